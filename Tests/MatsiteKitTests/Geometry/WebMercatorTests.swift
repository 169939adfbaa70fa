import MatsiteImaging
import Testing

@testable import MatsiteKit

@Suite("WebMercator")
struct WebMercatorTests {
    static let anchor = BoundingBox(west: -95.5, south: 29.0, east: -74.5, north: 43.5)

    @Test("the anchor box at z7 is the 1912x1646 window at (7691, 11978), tiles x 30...37, y 46...53")
    func anchorWindow() {
        // Reference arithmetic: bench/anchors.sh (Python, round half to even):
        // float px x 7691.378...9602.844, y 11978.094...13623.847.
        let window = WebMercator.window(of: Self.anchor, zoom: 7, tileSize: 256)
        #expect(window.x == 7691 && window.y == 11978)
        #expect(window.width == 1912 && window.height == 1646)
        let layout = WebMercator.layout(of: Self.anchor, zoom: 7, sourceZoom: 7, tileSize: 256)
        #expect(layout.columns == 30...37)
        #expect(layout.rows == 46...53)
        #expect(layout.shift == 0)
        // The crop inside the 8x8 mosaic.
        #expect(window.x - 30 * 256 == 11 && window.y - 46 * 256 == 202)
    }

    @Test("the same window agrees with the reference computed independently in the test")
    func agreesWithReference() {
        for (box, zoom) in [
            (Self.anchor, 3), (Self.anchor, 9), (BoundingBox(west: -20.3, south: 10.1, east: 15.7, north: 40.2), 4),
            (BoundingBox(west: 139.1, south: 35.2, east: 140.3, north: 36.0), 12),
        ] {
            let w = WebMercator.window(of: box, zoom: zoom, tileSize: 256)
            let r = FormulaTiles.window(west: box.west, south: box.south, east: box.east, north: box.north, zoom: zoom)
            #expect(w.x == r.x && w.y == r.y && w.width == r.width && w.height == r.height, "zoom \(zoom)")
        }
    }

    @Test("512-pixel tiles halve the tile counts but not the window")
    func bigTiles() {
        let w256 = WebMercator.window(of: Self.anchor, zoom: 7, tileSize: 256)
        let w512 = WebMercator.window(of: Self.anchor, zoom: 6, tileSize: 512)
        #expect(w256.x == w512.x && w256.width == w512.width && w256.height == w512.height)
        let layout = WebMercator.layout(of: Self.anchor, zoom: 6, sourceZoom: 6, tileSize: 512)
        #expect(layout.columns == 15...18)
        #expect(layout.rows == 23...26)
    }

    @Test("pixel centres on exact halves round half to even, as the reference does")
    func halfPixels() {
        // At z0 with 256-px tiles a pixel is 360/256 degrees wide.
        let degree = 360.0 / 256
        let box = BoundingBox(west: -180 + 1.5 * degree, south: -10, east: -180 + 10.5 * degree, north: 10)
        let window = WebMercator.window(of: box, zoom: 0, tileSize: 256)
        #expect(window.x == 2)
        #expect(window.width == 8) // x1 = round(10.5) = 10
    }

    @Test("a box crossing the antimeridian (west > east) continues past 180° and wraps its tile columns")
    func antimeridian() {
        let box = BoundingBox(west: 170, south: -20, east: -170, north: 5)
        let window = WebMercator.window(of: box, zoom: 4, tileSize: 256)
        #expect(window.x == 3982 && window.width == 228)
        #expect(window.y == 1991 && window.height == 289)
        let layout = WebMercator.layout(of: box, zoom: 4, sourceZoom: 4, tileSize: 256)
        #expect(layout.columns == 15...16) // column 16 is tile 0 again: PlannerTests checks the wrap
    }

    @Test("overzoom layouts keep the output window and count source tiles at the source zoom")
    func overzoomLayout() {
        let layout = WebMercator.layout(of: Self.anchor, zoom: 9, sourceZoom: 7, tileSize: 256)
        #expect(layout.shift == 2)
        #expect(layout.originX == 30766 && layout.originY == 47912)
        #expect(layout.width == 38411 - 30766 && layout.height == 54495 - 47912)
        #expect(layout.columns == 30...37)
        #expect(layout.rows == 46...53)
    }

    @Test("latitudes beyond the Mercator limit clamp to the world's edge")
    func clamp() {
        let world = WebMercator.worldSize(zoom: 2, tileSize: 256)
        #expect(abs(WebMercator.pixelY(latitude: 90, world: world)) < 1e-6)
        #expect(abs(WebMercator.pixelY(latitude: -89, world: world) - world) < 1e-6)
        #expect(abs(WebMercator.pixelY(latitude: WebMercator.maxLatitude, world: world)) < 1e-6)
        #expect(WebMercator.pixelY(latitude: 0, world: world) == world / 2)
    }

    @Test("tile bounds in degrees match the standard tile coordinates")
    func tileBounds() {
        let whole = WebMercator.tileBounds(z: 0, x: 0, y: 0)
        #expect(whole.west == -180 && whole.east == 180)
        #expect(abs(whole.north - 85.0511287798066) < 1e-9 && abs(whole.south + 85.0511287798066) < 1e-9)
        let northEast = WebMercator.tileBounds(z: 1, x: 1, y: 0)
        #expect(northEast.west == 0 && northEast.east == 180 && abs(northEast.south) < 1e-9)
        let anchorCorner = WebMercator.tileBounds(z: 7, x: 30, y: 46)
        #expect(anchorCorner.west == -95.625 && anchorCorner.east == -92.8125)
        #expect(abs(anchorCorner.north - 45.089035564831015) < 1e-9)
        #expect(abs(anchorCorner.south - 43.06888777416962) < 1e-9)
    }

    @Test("tile bounds in EPSG:3857 metres split the square world evenly")
    func tileMetres() {
        let half = 20037508.342789244
        let whole = WebMercator.tileMetres(z: 0, x: 0, y: 0)
        #expect(whole.minX == -half && whole.minY == -half && whole.maxX == half && whole.maxY == half)
        let southEast = WebMercator.tileMetres(z: 1, x: 1, y: 1)
        #expect(southEast.minX == 0 && southEast.maxX == half && southEast.minY == -half && southEast.maxY == 0)
        let tile = WebMercator.tileMetres(z: 7, x: 30, y: 46)
        let size = 2 * half / 128
        #expect(abs(tile.maxX - tile.minX - size) < 1e-6 && abs(tile.maxY - tile.minY - size) < 1e-6)
        #expect(abs(tile.minX - (-half + 30 * size)) < 1e-6 && abs(tile.maxY - (half - 46 * size)) < 1e-6)
    }

    @Test("pixel and degree conversions invert each other")
    func roundTrips() {
        let world = WebMercator.worldSize(zoom: 7, tileSize: 256)
        for lat in [-80.0, -43.5, 0, 29, 43.5, 85] {
            #expect(abs(WebMercator.latitude(pixelY: WebMercator.pixelY(latitude: lat, world: world), world: world) - lat) < 1e-9)
        }
        for lon in [-180.0, -95.5, 0, 74.5, 179.9] {
            #expect(abs(WebMercator.longitude(pixelX: WebMercator.pixelX(longitude: lon, world: world), world: world) - lon) < 1e-9)
        }
    }
}
