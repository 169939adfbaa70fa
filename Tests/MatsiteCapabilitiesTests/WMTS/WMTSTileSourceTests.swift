import Testing

@testable import MatsiteCapabilities

@Suite("WMTS tile URLs")
struct WMTSTileSourceTests {
    private func source(
        _ request: WMTSTileSource.Request, time: TimeDimension? = nil,
        others: [String: String] = [:]
    ) -> WMTSTileSource {
        WMTSTileSource(
            capabilitiesURL: "https://x/caps.xml", layer: "radar base", style: "dark/blue", format: "image/png",
            tileMatrixSet: "WebMercatorQuad", tileSize: 256, matrixIdentifiers: [0: "z0", 1: "z1", 2: "z2"],
            minZoom: 0, maxZoom: 2, time: time, otherDimensions: others, referenceTime: nil,
            request: request)
    }

    @Test("template placeholders are filled case-insensitively and encoded")
    func template() {
        let tiles = source(
            .template("https://t/{layer}/{STYLE}/{TileMatrixSet}/{tilematrix}/{TILEROW}/{TileCol}.png?t={time}&e={Elevation}"),
            others: ["Elevation": "1 000"])
        #expect(
            tiles.tileURL(z: 2, x: 3, y: 1, time: "2026-11-21T10:00:00Z")
                == "https://t/{layer}/dark%2Fblue/WebMercatorQuad/z2/1/3.png?t=2026-11-21T10:00:00Z&e=1%20000")
    }

    @Test("without a time, {Time} gets the advertised default, else current")
    func defaultTime() throws {
        let withDefault = try TimeDimension.parse(values: ["2026-11-21/2026-11-22/P1D"], default: "2026-11-22")
        #expect(
            source(.template("https://t/{Time}/{TileMatrix}.png"), time: withDefault).tileURL(z: 0, x: 0, y: 0, time: nil)
                == "https://t/2026-11-22/z0.png")
        #expect(
            source(.template("https://t/{Time}/{TileMatrix}.png")).tileURL(z: 0, x: 0, y: 0, time: nil)
                == "https://t/current/z0.png")
    }

    @Test("KVP requests carry every parameter, dimensions included, and keep the endpoint's own")
    func kvp() {
        let tiles = source(.kvp("https://t/service?map=radar&SERVICE=old"), others: ["elevation": "500"])
        #expect(
            tiles.tileURL(z: 1, x: 1, y: 0, time: "2026-11-21T10:00Z")
                == "https://t/service?map=radar&SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=radar%20base&STYLE=dark%2Fblue&FORMAT=image%2Fpng&TILEMATRIXSET=WebMercatorQuad&TILEMATRIX=z1&TILEROW=0&TILECOL=1&TIME=2026-11-21T10:00Z&ELEVATION=500"
        )
        #expect(tiles.tileURL(z: 1, x: 1, y: 0, time: nil)?.contains("TIME=") == false)
    }

    @Test("an instant is written the way the layer writes its times")
    func instants() throws {
        let daily = try TimeDimension.parse(values: ["2026-11-01/2026-11-22/P1D"])
        let tiles = source(.template("https://t/{Time}/{TileMatrix}/{TileRow}/{TileCol}"), time: daily)
        let instant = try TimeInstant.parse("2026-11-22")
        #expect(tiles.tileURL(z: 1, x: 0, y: 1, instant: instant) == "https://t/2026-11-22/z1/1/0")
        #expect(source(.template("https://t/{Time}")).tileURL(z: 0, x: 0, y: 0, instant: instant) == "https://t/2026-11-22T00:00:00Z")
    }

    @Test("zooms the set does not offer have no URL")
    func missingZoom() {
        #expect(source(.kvp("https://t/")).tileURL(z: 3, x: 0, y: 0, time: nil) == nil)
        #expect(source(.kvp("https://t/")).tileURL(z: -1, x: 0, y: 0, time: nil) == nil)
    }
}
