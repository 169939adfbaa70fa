import Foundation
import MatsiteCapabilities
import MatsiteImaging

/// The embedded offline source: radar-like precipitation drawn from `DemoWeather` at the
/// frame's time through a reflectivity-style palette, transparent where dry.
///
/// Tiles are real palette PNGs made by libpng, so they take the same decode and stitch
/// path as tiles from any server. The field is defined in world coordinates and time, so
/// tiles of every zoom agree with each other, and a frame's picture depends on its time
/// only: the same time gives the same tile in every build.
enum DemoRadar {
    /// The demo's palette: index 0 is "no echo" (transparent), then index `n` is
    /// `5 * (n + 1)` dBZ (10, 15, ... 80), in the colours `legend` names.
    static let palette = Palette(rgba: [
        0, 0, 0, 0,
        120, 200, 230, 110, 70, 170, 225, 160, 30, 120, 205, 205,
        40, 190, 80, 225, 20, 150, 50, 240, 10, 110, 30, 250,
        240, 230, 40, 255, 240, 190, 20, 255, 250, 140, 20, 255,
        240, 60, 30, 255, 200, 20, 20, 255, 160, 0, 40, 255,
        230, 40, 200, 255, 150, 60, 200, 255, 255, 255, 255, 255,
    ])

    /// The legend of the demo's colours: every other palette entry, in dBZ, with words for
    /// what a reader would call them.
    static let legend = LegendConfig(
        unit: "dBZ",
        stops: [
            .init(value: 10, color: "#78c8e6"), .init(value: 20, color: "#1e78cd", label: "20 light"),
            .init(value: 30, color: "#149632"), .init(value: 40, color: "#f0e628", label: "40 moderate"),
            .init(value: 50, color: "#fa8c14", label: "50 heavy"), .init(value: 60, color: "#c81414", label: "60 hail"),
            .init(value: 70, color: "#e628c8"),
        ])

    /// Names the drawing: bump it whenever `tile` would draw different bytes. Demo tiles
    /// are pure functions of their time and coordinates, so their digest is this name, the
    /// time and the coordinates (`digest`), and an unchanged rebuild need not draw them to
    /// know them.
    static let version = "demo-radar-2"

    /// The time a frame without one is drawn at: frame `n` of a `count:` loop is
    /// `untimedStart + n` steps of ten minutes, so such a loop moves as a timed one does.
    static let untimedStart = TimeInstant(millisecondsSinceEpoch: 1_780_336_800_000) // 2026-06-01T18:00:00Z

    /// The instant a frame shows: its own time, or `untimedStart` and ten minutes per frame.
    static func time(of frame: SourceFrame) -> TimeInstant {
        frame.time ?? TimeInstant(millisecondsSinceEpoch: untimedStart.millisecondsSinceEpoch + Int64(frame.index) * 600_000)
    }

    /// The identity of a demo tile, known without drawing it.
    static func digest(_ tile: DemoTile, size: Int = 256) -> TileDigest {
        TileDigest(
            sha256: SHA256.hex(of: "\(version) \(tile.layer) \(tile.time.millisecondsSinceEpoch) \(tile.z)/\(tile.x)/\(tile.y) \(size)"),
            size: 0)
    }

    /// The tile's PNG bytes.
    static func tile(_ tile: DemoTile, size: Int = 256) -> [UInt8] {
        let field = DemoWeather.field(
            x0: tile.x * size, y0: tile.y * size, width: size, height: size, world: Double(size) * Double(1 << tile.z),
            time: Double(tile.time.millisecondsSinceEpoch) / 1000)
        var pixels = [UInt8](repeating: 0, count: size * size)
        for i in 0..<pixels.count {
            pixels[i] = paletteIndex(field[i])
        }
        // Encoding a palette image cannot fail for these sizes; an empty tile is the fallback.
        return (try? PNGWriter.encode(width: size, height: size, format: .indexed(palette), pixels: pixels)) ?? []
    }

    /// The palette entry for a field value: dry below 0.12, then a step of 5 dBZ for each
    /// 0.09 more, 80 dBZ at most.
    static func paletteIndex(_ value: Float) -> UInt8 {
        value < 0.12 ? 0 : UInt8(min(15, 1 + Int((value - 0.12) / 0.09)))
    }
}
