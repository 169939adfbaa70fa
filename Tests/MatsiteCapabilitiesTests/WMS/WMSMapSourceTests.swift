import Testing

@testable import MatsiteCapabilities

@Suite("WMS GetMap URLs")
struct WMSMapSourceTests {
    private func source(
        version: String = "1.3.0", base: String = "https://x/wms", layers: String = "radar",
        styles: String = "", crs: String = "EPSG:3857"
    ) -> WMSMapSource {
        WMSMapSource(
            capabilitiesURL: "https://x/c", getMapURL: base, version: version, layers: layers,
            styles: styles, format: "image/png", crs: crs, time: nil, referenceTime: nil)
    }

    private func bbox(_ url: String) -> String? {
        url.split(separator: "&").first { $0.hasPrefix("BBOX=") }.map { String($0.dropFirst(5)) }
    }

    @Test(
        "tile boxes are in EPSG:3857 metres, x then y, rows counted from the top",
        arguments: [
            (0, 0, 0, "-20037508.342789,-20037508.342789,20037508.342789,20037508.342789"),
            (1, 0, 0, "-20037508.342789,0,0,20037508.342789"),
            (1, 1, 1, "0,-20037508.342789,20037508.342789,0"),
            (7, 33, 48, "-9705668.103539,4696291.017841,-9392582.035682,5009377.085697"),
        ])
    func boxes(z: Int, x: Int, y: Int, expected: String) {
        #expect(bbox(source().mapURL(z: z, x: x, y: y, tileSize: 256, time: nil)) == expected)
    }

    @Test("1.3.0 sends CRS, 1.1.1 sends SRS")
    func crsParameter() {
        #expect(source().mapURL(z: 0, x: 0, y: 0, tileSize: 256, time: nil).contains("&CRS=EPSG:3857&"))
        let old = source(version: "1.1.1", crs: "EPSG:900913").mapURL(z: 0, x: 0, y: 0, tileSize: 256, time: nil)
        #expect(old.contains("&SRS=EPSG:900913&"))
        #expect(!old.contains("CRS="))
    }

    @Test("the time goes into TIME, encoded")
    func time() {
        let url = source().mapURL(z: 0, x: 0, y: 0, tileSize: 512, time: "2026-11-21T10:00:00+01:00")
        #expect(url.hasSuffix("&WIDTH=512&HEIGHT=512&FORMAT=image%2Fpng&TRANSPARENT=TRUE&TIME=2026-11-21T10:00:00%2B01:00"))
    }

    @Test("GetMap parameters already in the base URL are replaced, not repeated")
    func replacesParameters() {
        let url = source(base: "https://x/wms?service=WMS&map=a.map&version=1.1.1&#frag").mapURL(z: 0, x: 0, y: 0, tileSize: 256, time: nil)
        #expect(
            url
                == "https://x/wms?map=a.map&SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=radar&STYLES=&CRS=EPSG:3857&BBOX=-20037508.342789,-20037508.342789,20037508.342789,20037508.342789&WIDTH=256&HEIGHT=256&FORMAT=image%2Fpng&TRANSPARENT=TRUE"
        )
    }

    @Test("several layers and styles keep their commas")
    func lists() {
        let url = source(layers: "a b,c", styles: ",x/y").mapURL(z: 0, x: 0, y: 0, tileSize: 256, time: nil)
        #expect(url.contains("&LAYERS=a%20b,c&STYLES=,x%2Fy&"))
    }
}
