import Foundation
import MatsiteImaging

/// Web Mercator (EPSG:3857) pixel and tile arithmetic.
enum WebMercator {
    /// The latitude where the square world ends.
    static let maxLatitude = 85.05112877980659
    /// Half the world's width in metres.
    static let halfWorldMetres = 20037508.342789244

    /// World width in pixels at a zoom.
    static func worldSize(zoom: Int, tileSize: Int) -> Double {
        Double(tileSize) * Double(1 << zoom)
    }

    /// Global pixel column of a longitude.
    static func pixelX(longitude: Double, world: Double) -> Double {
        (longitude + 180) / 360 * world
    }

    /// Global pixel row of a latitude (clamped to the Mercator limit).
    static func pixelY(latitude: Double, world: Double) -> Double {
        let lat = min(max(latitude, -maxLatitude), maxLatitude) * .pi / 180
        return (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * world
    }

    /// Longitude of a global pixel column.
    static func longitude(pixelX: Double, world: Double) -> Double {
        pixelX / world * 360 - 180
    }

    /// Latitude of a global pixel row.
    static func latitude(pixelY: Double, world: Double) -> Double {
        atan(sinh(.pi * (1 - 2 * pixelY / world))) * 180 / .pi
    }

    /// The frame's pixel window by the pixel-centre rule: a pixel belongs to the frame
    /// when its centre lies inside the box (x0 = round(west), x1 = round(east), half to
    /// even, likewise for rows). A box with `west > east` continues past 180°.
    static func window(of box: BoundingBox, zoom: Int, tileSize: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let world = worldSize(zoom: zoom, tileSize: tileSize)
        let east = box.east < box.west ? box.east + 360 : box.east
        let x0 = Int(pixelX(longitude: box.west, world: world).rounded(.toNearestOrEven))
        let x1 = Int(pixelX(longitude: east, world: world).rounded(.toNearestOrEven))
        let y0 = Int(pixelY(latitude: box.north, world: world).rounded(.toNearestOrEven))
        let y1 = Int(pixelY(latitude: box.south, world: world).rounded(.toNearestOrEven))
        return (x0, y0, x1 - x0, y1 - y0)
    }

    /// The layout of frames for a box at `zoom`, built from source tiles at `sourceZoom`.
    static func layout(of box: BoundingBox, zoom: Int, sourceZoom: Int, tileSize: Int) -> FrameLayout {
        let w = window(of: box, zoom: zoom, tileSize: tileSize)
        return FrameLayout(
            width: w.width, height: w.height, originX: w.x, originY: w.y,
            shift: zoom - sourceZoom, tileSize: tileSize)
    }

    /// The bounds of tile (z, x, y) in degrees.
    static func tileBounds(z: Int, x: Int, y: Int) -> BoundingBox {
        let world = Double(1 << z)
        return BoundingBox(
            west: longitude(pixelX: Double(x), world: world),
            south: latitude(pixelY: Double(y + 1), world: world),
            east: longitude(pixelX: Double(x + 1), world: world),
            north: latitude(pixelY: Double(y), world: world))
    }

    /// The bounds of tile (z, x, y) in EPSG:3857 metres: minX, minY, maxX, maxY.
    static func tileMetres(z: Int, x: Int, y: Int) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let size = 2 * halfWorldMetres / Double(1 << z)
        return (
            -halfWorldMetres + Double(x) * size, halfWorldMetres - Double(y + 1) * size,
            -halfWorldMetres + Double(x + 1) * size, halfWorldMetres - Double(y) * size
        )
    }
}
