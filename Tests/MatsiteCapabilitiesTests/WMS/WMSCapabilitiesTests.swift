import Testing

@testable import MatsiteCapabilities

@Suite("WMS capabilities")
struct WMSCapabilitiesTests {
    static let realWorld = Fixtures.haveRealWorld

    private func load(_ name: String, url: String) throws -> WMSCapabilities {
        let bytes = try #require(Fixtures.bytes(name))
        return try WMSCapabilities.parse(bytes, url: url)
    }

    @Test("Mesonet WMS 1.1.1: DOCTYPE accepted, Dimension plus Extent time read", .enabled(if: realWorld))
    func mesonet111() throws {
        let caps = try load("owslib/wms_mesonet-caps.xml", url: "https://mesonet.example/wms?SERVICE=WMS&REQUEST=GetCapabilities")
        #expect(caps.version == "1.1.1")
        #expect(caps.title == "IEM WMS Service")
        #expect(caps.getMapURL == "http://mesonet.agron.iastate.edu/cgi-bin/wms/nexrad/n0r-t.cgi?")
        #expect(caps.formats.first == "image/png")
        #expect(caps.layerNames == ["nexrad_base_reflect", "time_idx", "nexrad-n0r-wmst"])
        let layer = try #require(caps.layer(named: "nexrad-n0r-wmst"))
        #expect(layer.webMercatorCRS == "EPSG:3857")
        let dimension = try #require(layer.timeDimension)
        #expect(dimension.defaultValue == "2006-06-23T03:10:00Z")
        #expect(dimension.values == ["1995-01-01/2013-12-31/PT5M"])
        let time = try dimension.timeDimension()
        #expect(time.first?.iso8601 == "1995-01-01T00:00:00Z")
        #expect(time.last?.iso8601 == "2013-12-31T00:00:00Z")
        #expect(time.count == 1_998_433)
        #expect(caps.layer(named: "nexrad_base_reflect")?.timeDimension == nil)
    }

    @Test("Mesonet WMS 1.3.0: time values inside Dimension", .enabled(if: realWorld))
    func mesonet130() throws {
        let caps = try load("owslib/wms_mesonet-caps-130.xml", url: "https://mesonet.example/wms")
        #expect(caps.version == "1.3.0")
        let source = try caps.mapSource(layers: "nexrad-n0r-wmst")
        let time = try #require(source.time)
        #expect(time.count == 2_208_673)
        #expect(try time.latest(2).map(\.iso8601) == ["2015-12-30T23:55:00Z", "2015-12-31T00:00:00Z"])
        #expect(source.crs == "EPSG:3857")
        #expect(
            source.mapURL(z: 0, x: 0, y: 0, tileSize: 256, instant: try time.latest(1)[0])
                == "http://mesonet.agron.iastate.edu/cgi-bin/wms/nexrad/n0r-t.cgi?SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=nexrad-n0r-wmst&STYLES=&CRS=EPSG:3857&BBOX=-20037508.342789,-20037508.342789,20037508.342789,20037508.342789&WIDTH=256&HEIGHT=256&FORMAT=image%2Fpng&TRANSPARENT=TRUE&TIME=2015-12-31T00:00:00Z"
        )
    }

    @Test("NASA NCCS WMS 1.3.0: nested layers inherit EPSG:3857 and keep their monthly times", .enabled(if: realWorld))
    func nccs() throws {
        let caps = try load(
            "owslib/wms_nccs_nasa_getcap_130.xml", url: "http://dataserver.nccs.nasa.gov/thredds/wms/seasonal/ocn_ana_3D_ll?service=WMS&request=GetCapabilities"
        )
        #expect(caps.layerNames == ["T", "S", "U", "V", "RHO", "WMO", "current"])
        let layer = try #require(caps.layer(named: "T"))
        #expect(layer.crs.contains("EPSG:3857"))
        #expect(layer.styles.map(\.name).contains("boxfill/rainbow"))
        #expect(layer.dimensions.map(\.identifier) == ["elevation", "time"])
        let time = try #require(layer.timeDimension).timeDimension()
        #expect(time.count == 271)
        #expect(time.first?.iso8601 == "1993-01-01T12:00:00Z")
        #expect(time.last?.iso8601 == "2015-07-01T12:00:00Z")
        #expect(time.current)
        let source = try caps.mapSource(layers: "T", styles: "boxfill/rainbow")
        let url = source.mapURL(z: 2, x: 1, y: 2, tileSize: 512, time: "2015-07-01T12:00:00Z")
        #expect(
            url
                == "http://dataserver.nccs.nasa.gov/thredds/wms/seasonal/ocn_ana_3D_ll?SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=T&STYLES=boxfill%2Frainbow&CRS=EPSG:3857&BBOX=-10018754.171395,-10018754.171395,0,0&WIDTH=512&HEIGHT=512&FORMAT=image%2Fpng&TRANSPARENT=TRUE&TIME=2015-07-01T12:00:00Z"
        )
        let summary = caps.summary
        #expect(summary.count == 7)
        #expect(summary[0].description == "T (potential_temperature): 1993-01-01T12:00:00Z to 2015-07-01T12:00:00Z, 271 times, default 2015-07-01T12:00:00Z")
    }

    @Test("an unknown layer is refused, listing known names", .enabled(if: realWorld))
    func unknownLayer() throws {
        let caps = try load("owslib/wms_nccs_nasa_getcap_130.xml", url: "http://nccs.example/wms")
        let error = #expect(throws: CapabilitiesError.self) { try caps.mapSource(layers: "SST") }
        #expect(error?.description == "capabilities at http://nccs.example/wms: no layer \"SST\" (layers include: T, S, U, V, RHO, WMO, current)")
        let style = #expect(throws: CapabilitiesError.self) { try caps.mapSource(layers: "T", styles: "nope") }
        #expect(
            style?.reason
                == .unknownStyle(
                    layer: "T", style: "nope",
                    known: [
                        "boxfill/alg2", "boxfill/rainbow", "boxfill/ncview", "boxfill/occam", "boxfill/greyscale",
                        "boxfill/redblue", "boxfill/alg", "boxfill/occam_pastel-30", "boxfill/ferret", "boxfill/sst_36",
                    ]))
        let format = #expect(throws: CapabilitiesError.self) { try caps.mapSource(layers: "T", format: "image/webp") }
        #expect(
            format?.reason
                == .unknownFormat(
                    layer: "T", format: "image/webp",
                    known: [
                        "image/png", "image/png;mode=32bit", "image/gif", "image/jpeg", "application/vnd.google-earth.kmz",
                    ]))
    }

    @Test("1.1.1 nesting: SRS, styles and time are inherited; Extent may come from a child")
    func nested111() throws {
        let caps = try load("matsite-wms-111-nested.xml", url: "https://maps.example.org/wms?SERVICE=WMS&REQUEST=GetCapabilities")
        #expect(caps.version == "1.1.1")
        #expect(caps.getMapURL == "https://maps.example.org/cgi-bin/mapserv?map=/srv/radar.map&")
        #expect(caps.layerNames == ["radar", "radar-hires", "lightning", "landuse"])
        let radar = try #require(caps.layer(named: "radar"))
        #expect(radar.crs == ["EPSG:4326", "EPSG:900913"])
        #expect(radar.styles.map(\.name) == ["default", "dbz"])
        #expect(radar.webMercatorCRS == "EPSG:900913")
        #expect(radar.timeDimension?.values == ["2026-11-21T10:00:00Z/2026-11-21T11:50:00Z/PT10M"])
        let hires = try #require(caps.layer(named: "radar-hires"))
        #expect(hires.crs == ["EPSG:4326", "EPSG:900913", "EPSG:3857"])
        #expect(hires.webMercatorCRS == "EPSG:3857")
        #expect(hires.timeDimension?.defaultValue == "2026-11-21T11:50:00Z")
        #expect(hires.parentName == "radar")
        #expect(hires.depth == 2)
        let lightning = try #require(caps.layer(named: "lightning")?.timeDimension).timeDimension()
        #expect(lightning.count == 3)
        #expect(lightning.defaultValue == "current")
    }

    @Test("1.1.1 GetMap uses SRS, keeps the base URL's parameters and sends the time as advertised")
    func getMap111() throws {
        let caps = try load("matsite-wms-111-nested.xml", url: "https://maps.example.org/wms")
        let source = try caps.mapSource(layers: "radar", styles: "dbz")
        #expect(source.crs == "EPSG:900913")
        #expect(!source.usesCRSParameter)
        let time = try #require(source.time)
        let frames = try time.latest(3)
        #expect(frames.map(\.iso8601) == ["2026-11-21T11:30:00Z", "2026-11-21T11:40:00Z", "2026-11-21T11:50:00Z"])
        #expect(
            source.mapURL(z: 1, x: 1, y: 0, tileSize: 256, instant: frames[2])
                == "https://maps.example.org/cgi-bin/mapserv?map=/srv/radar.map&SERVICE=WMS&REQUEST=GetMap&VERSION=1.1.1&LAYERS=radar&STYLES=dbz&SRS=EPSG:900913&BBOX=0,0,20037508.342789,20037508.342789&WIDTH=256&HEIGHT=256&FORMAT=image%2Fpng&TRANSPARENT=TRUE&TIME=2026-11-21T11:50:00Z"
        )
        // Several layers: the CRS sent must suit all of them.
        let both = try caps.mapSource(layers: "radar-hires,lightning")
        #expect(both.layers == "radar-hires,lightning")
        #expect(both.crs == "EPSG:900913")
        #expect(both.mapURL(z: 0, x: 0, y: 0, tileSize: 256, time: nil).contains("LAYERS=radar-hires,lightning&STYLES=&SRS=EPSG:900913"))
    }

    @Test("a layer without a Web Mercator CRS is refused with the CRS it has")
    func noWebMercator() throws {
        let caps = try load("matsite-wms-111-nested.xml", url: "https://maps.example.org/wms")
        let error = #expect(throws: CapabilitiesError.self) { try caps.mapSource(layers: "landuse") }
        #expect(
            error?.description
                == "capabilities at https://maps.example.org/wms: layer \"landuse\" is not offered in Web Mercator (EPSG:3857 or EPSG:900913) (it has: EPSG:27700)"
        )
    }

    @Test("a WMTS document given as WMS is refused with a hint")
    func wrongDocument() throws {
        let text = "<Capabilities xmlns=\"http://www.opengis.net/wmts/1.0\" version=\"1.0.0\"/>"
        let error = #expect(throws: CapabilitiesError.self) { try WMSCapabilities.parse(text.bytes, url: "https://x/c") }
        #expect(
            error?.description
                == "capabilities at https://x/c: expected a WMS 1.1.1 or 1.3.0 capabilities document, found <Capabilities> in namespace http://www.opengis.net/wmts/1.0 (a WMTS document: use source.wmts)"
        )
    }

    @Test("hostile documents are refused by the WMS parser too")
    func hostile() {
        let xxe = "<!DOCTYPE WMT_MS_Capabilities [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><WMT_MS_Capabilities>&x;</WMT_MS_Capabilities>"
        #expect(throws: CapabilitiesError(url: "u", reason: .entityDeclared)) { try WMSCapabilities.parse(xxe.bytes, url: "u") }
        let cut = "<WMS_Capabilities xmlns=\"http://www.opengis.net/wms\" version=\"1.3.0\"><Capability><Layer>"
        let error = #expect(throws: CapabilitiesError.self) { try WMSCapabilities.parse(cut.bytes, url: "u") }
        guard case let .malformed(_, _, _, truncated)? = error?.reason else {
            Issue.record("expected malformed")
            return
        }
        #expect(truncated)
    }
}
