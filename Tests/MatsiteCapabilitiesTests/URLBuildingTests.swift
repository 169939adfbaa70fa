import Testing

@testable import MatsiteCapabilities

@Suite("Building request URLs")
struct URLBuildingTests {
    @Test(
        "relative references resolve against the capabilities URL",
        arguments: [
            ("tiles/{z}.png", "https://h.example/wmts/1.0.0/WMTSCapabilities.xml", "https://h.example/wmts/1.0.0/tiles/{z}.png"),
            ("../tiles/a.png", "https://h.example/wmts/1.0.0/caps.xml?x=1", "https://h.example/wmts/tiles/a.png"),
            ("/root/a.png", "https://h.example:8443/wmts/caps.xml", "https://h.example:8443/root/a.png"),
            ("//cdn.example/a.png", "https://h.example/caps.xml", "https://cdn.example/a.png"),
            ("?service=WMTS", "http://h.example/cgi/wmts", "http://h.example/cgi/wmts?service=WMTS"),
            ("https://other.example/{TileMatrix}", "https://h.example/caps.xml", "https://other.example/{TileMatrix}"),
            ("./a/./b.png", "http://h.example", "http://h.example/a/b.png"),
        ])
    func resolves(reference: String, base: String, expected: String) {
        #expect(resolveURL(reference, against: base) == expected)
    }

    @Test("query parameters are appended once, keeping the base URL's own")
    func query() {
        #expect(appendingQuery("https://h/wms", [("A", "1")]) == "https://h/wms?A=1")
        #expect(appendingQuery("https://h/wms?", [("A", "1")]) == "https://h/wms?A=1")
        #expect(appendingQuery("https://h/wms?map=x.map&", [("A", "1")]) == "https://h/wms?map=x.map&A=1")
        #expect(appendingQuery("https://h/wms?a=old&b=2", [("A", "1")]) == "https://h/wms?b=2&A=1")
    }

    @Test("substituted values are percent-encoded, keeping colons for times")
    func encoding() {
        #expect(percentEncode("2026-11-21T10:00:00Z") == "2026-11-21T10:00:00Z")
        #expect(percentEncode("a b/c&d=é") == "a%20b%2Fc%26d%3D%C3%A9")
        #expect(percentEncode("a,b", keeping: [UInt8(ascii: ",")]) == "a,b")
        #expect(
            fill("{TileMatrix}/{tilerow}/{TILECOL}/{Unknown}/{", value: { ["tilematrix": "L 1", "tilerow": "2", "tilecol": "3"][$0] })
                == "L%201/2/3/{Unknown}/{")
        #expect(placeholders(in: "a/{Time}/{TileMatrix}/x{y") == ["time", "tilematrix"])
    }

    @Test("coordinates are written to the micrometre without trailing zeros")
    func coordinates() {
        #expect(formatCoordinate(-20_037_508.342_789_244) == "-20037508.342789")
        #expect(formatCoordinate(0) == "0")
        #expect(formatCoordinate(-0.0000001) == "0")
        #expect(formatCoordinate(1.5) == "1.5")
        #expect(formatCoordinate(-2_504_688.542_848_655) == "-2504688.542849")
    }
}
