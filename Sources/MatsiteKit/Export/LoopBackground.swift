import Foundation
import MatsiteImaging

/// What lies under an exported loop's frames: a colour, the demo base map (in a site whose
/// base map is the demo), or an `export_background` tile source's tiles.
enum LoopBackground: Sendable, CustomStringConvertible {
    case color(RGB)
    case demo
    case tiles(ExportBackgroundTiles)

    /// Names the background in the export's keys: a changed colour, demo map or set of
    /// tiles makes new exports.
    var description: String {
        switch self {
        case .color(let c): "colour \(c.hex)"
        case .demo: "demo \(DemoBaseMap.version)"
        case .tiles(let t): "tiles \(t.digest)"
        }
    }

    /// The background's RGB pixels at `size`, under frames of `layout` at `zoom`.
    func pixels(_ size: (width: Int, height: Int), layout: FrameLayout, zoom: Int) throws -> [UInt8] {
        switch self {
        case .color(let color):
            return LoopCanvas(width: size.width, height: size.height, color: color).rgb
        case .demo:
            // The demo base map as the player shows it: its tiles at the frame's zoom (drawn
            // up to the map's deepest zoom, scaled up beyond).
            let decoder = PNGDecoder(maxWidth: 256, maxHeight: 256)
            let map = TileMap(size: size, layout: layout, frameZoom: zoom, zoom: min(zoom, DemoBaseMap.deepestDetailZoom))
            return try map.pixels { z, x, y in try decoder.decode(DemoBaseMap.tile(z: z, x: x, y: y), keepIndices: false) }
        case .tiles(let background):
            let map = TileMap(size: size, layout: layout, frameZoom: zoom, zoom: background.zoom)
            return try map.pixels { _, x, y in background.tiles[y * (1 << background.zoom) + x] }
        }
    }

    /// 256-px tiles of `zoom` under frames of `layout` at `frameZoom`, drawn at `size`.
    struct TileMap {
        let size: (width: Int, height: Int)
        let layout: FrameLayout
        let frameZoom: Int
        let zoom: Int

        static let tileSize = 256

        /// The map's pixels, nearest neighbour, scaled up when the frames are deeper than
        /// `zoom`; where `tile` has none (or not a 256-px one), the default background
        /// colour, which also shows under a tile's transparent pixels.
        func pixels(_ tile: (_ z: Int, _ x: Int, _ y: Int) throws -> DecodedImage?) throws -> [UInt8] {
            let (shift, tileSize, world) = (frameZoom - zoom, Self.tileSize, Self.tileSize << zoom)
            var tiles: [Int: DecodedImage?] = [:]
            var out = LoopCanvas(width: size.width, height: size.height, color: ExportConfig.defaultBackground).rgb
            let columns = (0..<size.width).map { LoopCanvas.source($0, count: size.width, sourceCount: layout.width) }
            for y in 0..<size.height {
                let gy = min(world - 1, max(0, (layout.originY + LoopCanvas.source(y, count: size.height, sourceCount: layout.height)) >> shift))
                for x in 0..<size.width {
                    let gx = (((layout.originX + columns[x]) >> shift) % world + world) % world
                    let (tx, ty) = (gx / tileSize, gy / tileSize)
                    let id = ty * (1 << zoom) + tx
                    if tiles[id] == nil { tiles[id] = .some(try tile(zoom, tx, ty)) }
                    guard let found = tiles[id], let image = found, image.width == tileSize, image.height == tileSize else { continue }
                    Self.blend(image, at: ((gy % tileSize) * tileSize + gx % tileSize) * 4, into: &out, at: (y * size.width + x) * 3)
                }
            }
            return out
        }

        /// The tile's RGBA pixel at `source` over the RGB pixel at `target`.
        static func blend(_ image: DecodedImage, at source: Int, into out: inout [UInt8], at target: Int) {
            let a = Int(image.pixels[source + 3])
            for c in 0..<3 {
                out[target + c] = UInt8((Int(image.pixels[source + c]) * a + Int(out[target + c]) * (255 - a) + 127) / 255)
            }
        }
    }
}
