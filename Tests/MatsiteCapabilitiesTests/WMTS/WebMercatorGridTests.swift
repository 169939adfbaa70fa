import Testing

@testable import MatsiteCapabilities

@Suite("Recognising Web Mercator tile matrix sets")
struct WebMercatorGridTests {
    static let corner = (-20_037_508.342_789_2, 20_037_508.342_789_2)

    private func set(
        _ id: String, crs: String, tileSize: Int = 256, zooms: ClosedRange<Int> = 0...3,
        corner: (Double, Double) = corner, scaleFactor: Double = 1,
        names: (Int) -> String = { String($0) }
    ) -> WMTSCapabilities.TileMatrixSet {
        let matrices = zooms.map { z in
            WMTSCapabilities.TileMatrix(
                identifier: names(z),
                scaleDenominator: 559_082_264.028_717_8 * 256 / Double(tileSize) / Double(1 << z) * scaleFactor,
                topLeftCorner: corner, tileWidth: tileSize, tileHeight: tileSize,
                matrixWidth: 1 << z, matrixHeight: 1 << z)
        }
        return WMTSCapabilities.TileMatrixSet(identifier: id, supportedCRS: crs, wellKnownScaleSet: nil, matrices: matrices)
    }

    @Test(
        "every usual spelling of EPSG:3857 is recognised",
        arguments: [
            "EPSG:3857", "urn:ogc:def:crs:EPSG::3857", "urn:ogc:def:crs:EPSG:6.18:3:3857",
            "http://www.opengis.net/def/crs/EPSG/0/3857", "EPSG:900913", "EPSG:102100", "epsg:3857",
        ])
    func crsSpellings(crs: String) {
        #expect(WebMercatorGrid.match(set("s", crs: crs))?.matrices.count == 4)
    }

    @Test(
        "other CRS are refused with the CRS named",
        arguments: [
            "EPSG:4326", "urn:ogc:def:crs:OGC:1.3:CRS84", "EPSG:25832", "EPSG:38571", "",
        ])
    func otherCRS(crs: String) {
        guard case let .failure(why) = WebMercatorGrid.check(set("s", crs: crs)) else {
            Issue.record("\(crs) accepted")
            return
        }
        #expect(why.text.hasPrefix("its CRS is"))
    }

    @Test("zooms come from scales, not from identifiers")
    func namedMatrices() {
        let grid = WebMercatorGrid.match(set("s", crs: "EPSG:3857", zooms: 5...7, names: { "level-\($0 * 10)" }))
        #expect(grid?.matrices == [5: "level-50", 6: "level-60", 7: "level-70"])
        #expect(grid?.tileSize == 256)
    }

    @Test("rounded scale denominators are accepted, wrong ones are not")
    func tolerance() {
        #expect(WebMercatorGrid.match(set("s", crs: "EPSG:3857", scaleFactor: 1.000_01)) != nil)
        #expect(WebMercatorGrid.match(set("s", crs: "EPSG:3857", scaleFactor: 1.01)) == nil)
    }

    @Test("a 3857 set with a different origin is refused; a well-known name is trusted")
    func origin() {
        let shifted = (-20_037_508.342_789_2, -20_037_508.342_789_2)
        guard case let .failure(why) = WebMercatorGrid.check(set("tiles", crs: "EPSG:3857", corner: shifted)) else {
            Issue.record("shifted corner accepted")
            return
        }
        #expect(why.text.contains("not at the Web Mercator corner"))
        #expect(WebMercatorGrid.match(set("GoogleMapsCompatible", crs: "EPSG:3857", corner: shifted)) != nil)
        #expect(WebMercatorGrid.match(set("WebMercatorQuad", crs: "", corner: shifted)) != nil)
    }

    @Test("512-pixel tiles number zooms by their grid")
    func bigTiles() {
        let grid = WebMercatorGrid.match(set("s", crs: "EPSG:3857", tileSize: 512, zooms: 0...2))
        #expect(grid?.tileSize == 512)
        #expect(grid?.matrices == [0: "0", 1: "1", 2: "2"])
    }
}
