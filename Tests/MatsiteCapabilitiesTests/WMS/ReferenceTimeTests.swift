import Testing

@testable import MatsiteCapabilities

/// Model runs advertised as the `reference_time` dimension (OGC 06-042 Annex C, the way MSC
/// GeoMet serves its model layers), in WMS 1.3.0 and WMTS.
@Suite("Model runs (reference_time)")
struct ReferenceTimeTests {
    private func wms() throws -> WMSCapabilities {
        try WMSCapabilities.parse(try #require(Fixtures.bytes("matsite-wms-130-runs.xml")), url: "https://geo.example/wms")
    }

    private func wmts() throws -> WMTSCapabilities {
        try WMTSCapabilities.parse(try #require(Fixtures.bytes("matsite-wmts-runs.xml")), url: "https://model.example/caps.xml")
    }

    @Test("a WMS layer inherits its parent's runs (start/end/period) with their default; newest run first")
    func inheritedInterval() throws {
        let source = try wms().mapSource(layers: "RDPS.ETA_PR")
        let runs = try #require(source.referenceTime)
        #expect(runs.identifier == "reference_time")
        #expect(runs.runs.count == 4)
        #expect(runs.runs.defaultValue == "2026-11-28T00:00:00Z")
        #expect(try runs.newest(2).map(\.iso8601) == ["2026-11-28T00:00:00Z", "2026-11-27T12:00:00Z"])
        #expect(try runs.newest(9).count == 4)
        #expect(source.time?.last?.iso8601 == "2026-11-28T06:00:00Z")
    }

    @Test("a layer's own reference_time (any case, a list) replaces the inherited one")
    func ownList() throws {
        let runs = try #require(try wms().mapSource(layers: "RDPS.ETA_TT").referenceTime)
        #expect(runs.identifier == "REFERENCE_TIME")
        #expect(try runs.newest(5).map(\.iso8601) == ["2026-11-28T00:00:00Z", "2026-11-27T18:00:00Z"])
        #expect(runs.runs.defaultValue == nil)
    }

    @Test("GetMap names the run in DIM_REFERENCE_TIME after TIME; without a run the server's default applies")
    func getMapParameter() throws {
        let source = try wms().mapSource(layers: "RDPS.ETA_PR")
        let runs = try #require(source.referenceTime)
        let run = try runs.newest(2)[1]
        let valid = try TimeInstant.parse("2026-11-28T03:00:00Z")
        let url = source.mapURL(
            z: 1, x: 0, y: 0, tileSize: 256, time: try #require(source.time).format(valid), run: runs.format(run))
        #expect(
            url
                == "https://geo.example/wms?lang=en&SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=RDPS.ETA_PR&STYLES=&CRS=EPSG:3857&BBOX=-20037508.342789,0,0,20037508.342789&WIDTH=256&HEIGHT=256&FORMAT=image%2Fpng&TRANSPARENT=TRUE&TIME=2026-11-28T03:00:00Z&DIM_REFERENCE_TIME=2026-11-27T12:00:00Z"
        )
        #expect(!source.mapURL(z: 1, x: 0, y: 0, tileSize: 256, time: "2026-11-28T03:00:00Z").contains("DIM_"))
    }

    @Test("a layer without runs has none; unreadable runs are refused naming the layer")
    func noneAndBroken() throws {
        let caps = try wms()
        #expect(try caps.mapSource(layers: "RADAR_1KM_RRAI").referenceTime == nil)
        let error = #expect(throws: CapabilitiesError.self) { try caps.mapSource(layers: "BROKEN_RUNS") }
        #expect(error?.description.hasPrefix("capabilities at https://geo.example/wms: layer \"BROKEN_RUNS\": its model runs (reference_time): ") == true)
        #expect(error?.description.contains("yesterday") == true)
    }

    @Test("check's layer lines name the runs, or why they cannot be read")
    func summaries() throws {
        let lines = try wms().summary.map(\.description)
        #expect(
            lines.contains(
                "RDPS.ETA_PR (Precipitation accumulation): 2026-11-28T01:00:00Z to 2026-11-28T06:00:00Z, 6 times every PT1H, default 2026-11-28T01:00:00Z; runs (reference_time): 2026-11-26T12:00:00Z to 2026-11-28T00:00:00Z, 4 times every PT12H, default 2026-11-28T00:00:00Z"
            ))
        #expect(lines.contains { $0.hasPrefix("RADAR_1KM_RRAI") && !$0.contains("runs") })
        #expect(lines.contains { $0.hasPrefix("BROKEN_RUNS") && $0.contains("; reference_time unreadable: ") })
        let wmtsLines = try wmts().summary.map(\.description)
        #expect(wmtsLines.first?.hasSuffix("; runs (reference_time): 2026-11-28T00:00:00Z to 2026-11-28T06:00:00Z, 2 times every PT6H") == true)
    }

    @Test("WMTS: the run fills the dimension's placeholder; without one, the newest run (no default advertised)")
    func wmtsTemplate() throws {
        let source = try wmts().tileSource(layer: "precip")
        let runs = try #require(source.referenceTime)
        #expect(try runs.newest(2).map(runs.format) == ["2026-11-28T06:00:00Z", "2026-11-28T00:00:00Z"])
        #expect(
            source.tileURL(z: 1, x: 1, y: 0, time: "2026-11-28T09:00:00Z", run: "2026-11-28T00:00:00Z")
                == "https://model.example/tiles/2026-11-28T00:00:00Z/2026-11-28T09:00:00Z/1/0/1.png")
        #expect(
            source.tileURL(z: 1, x: 1, y: 0, time: "2026-11-28T09:00:00Z")
                == "https://model.example/tiles/2026-11-28T06:00:00Z/2026-11-28T09:00:00Z/1/0/1.png")
    }

    @Test("WMTS KVP: the run goes in the dimension's own parameter, REFERENCE_TIME")
    func wmtsKVP() throws {
        let source = try wmts().tileSource(layer: "precip", format: "image/jpeg")
        #expect(
            source.tileURL(z: 0, x: 0, y: 0, time: "2026-11-28T09:00:00Z", run: "2026-11-28T00:00:00Z")
                == "https://model.example/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=precip&STYLE=default&FORMAT=image%2Fjpeg&TILEMATRIXSET=GoogleMapsCompatible&TILEMATRIX=0&TILEROW=0&TILECOL=0&TIME=2026-11-28T09:00:00Z&REFERENCE_TIME=2026-11-28T00:00:00Z"
        )
    }
}
