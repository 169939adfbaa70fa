import Foundation
import MatsiteImaging

/// The embedded offline source: radar-like precipitation that moves and changes from
/// frame to frame, drawn through a reflectivity-style palette, transparent elsewhere.
///
/// Tiles are real palette PNGs made by libpng, so they take the same decode and stitch
/// path as tiles from any server. The field is defined in world coordinates, so tiles
/// of every zoom agree with each other.
enum DemoRadar {
    /// The demo's palette: index 0 is "no echo" (transparent), then rising intensity.
    static let palette = Palette(rgba: [
        0, 0, 0, 0,
        120, 200, 230, 110, 70, 170, 225, 160, 30, 120, 205, 205,
        40, 190, 80, 225, 20, 150, 50, 240, 10, 110, 30, 250,
        240, 230, 40, 255, 240, 190, 20, 255, 250, 140, 20, 255,
        240, 60, 30, 255, 200, 20, 20, 255, 160, 0, 40, 255,
        230, 40, 200, 255, 150, 60, 200, 255, 255, 255, 255, 255,
    ])

    /// The tile's PNG bytes.
    /// Names the drawing: bump it whenever `tile` would draw different bytes. Demo tiles
    /// are pure functions of their coordinates, so their digest is this name and the
    /// coordinates (`digest`), and an unchanged rebuild need not draw them to know them.
    static let version = "demo-radar-1"

    /// The identity of a demo tile, known without drawing it.
    static func digest(_ tile: DemoTile, size: Int = 256) -> TileDigest {
        TileDigest(
            sha256: SHA256.hex(of: "\(version) \(tile.layer) \(tile.frame)/\(tile.frameCount) \(tile.z)/\(tile.x)/\(tile.y) \(size)"),
            size: 0)
    }

    static func tile(_ tile: DemoTile, size: Int = 256) -> [UInt8] {
        let field = intensity(tile, size: size)
        var pixels = [UInt8](repeating: 0, count: size * size)
        for i in 0..<pixels.count where field[i] > 0.1 {
            pixels[i] = UInt8(min(15, 1 + Int((field[i] - 0.1) * 14)))
        }
        // Encoding a palette image cannot fail for these sizes; an empty tile is the fallback.
        return (try? PNGWriter.encode(width: size, height: size, format: .indexed(palette), pixels: pixels)) ?? []
    }

    /// The precipitation field over the tile's pixels, 0 where dry.
    static func intensity(_ tile: DemoTile, size: Int) -> [Float] {
        let grid = 48.0
        let world = Double(size) * Double(1 << tile.z)
        let t = tile.frameCount > 1 ? Double(tile.frame) / Double(tile.frameCount - 1) : 0
        var field = [Float](repeating: 0, count: size * size)
        let u0 = Double(tile.x) / Double(1 << tile.z), u1 = Double(tile.x + 1) / Double(1 << tile.z)
        let v0 = Double(tile.y) / Double(1 << tile.z), v1 = Double(tile.y + 1) / Double(1 << tile.z)
        let reach = 1.8 / grid
        let columns = Int(((u0 - reach) * grid).rounded(.down))...Int(((u1 + reach) * grid).rounded(.down))
        let rows = max(0, Int(((v0 - reach) * grid).rounded(.down)))...min(Int(grid) - 1, Int(((v1 + reach) * grid).rounded(.down)))
        for j in rows {
            for i in columns {
                let wrapped = ((i % Int(grid)) + Int(grid)) % Int(grid)
                guard noise(wrapped, j, 1) < 0.3 else { continue }
                let radius = (0.3 + 0.6 * noise(wrapped, j, 2)) / grid
                let cu = (Double(i) + noise(wrapped, j, 3)) / grid + (0.9 + 0.4 * noise(wrapped, j, 4)) / grid * t
                let cv = (Double(j) + noise(wrapped, j, 5)) / grid - (0.25 + 0.3 * noise(wrapped, j, 6)) / grid * t
                let strength = (0.45 + 0.75 * noise(wrapped, j, 7)) * (0.65 + 0.35 * sin(2 * .pi * (t + noise(wrapped, j, 8))))
                // The cell's box in tile pixels.
                let px0 = max(0, Int(((cu - radius) * world - Double(tile.x * size)).rounded(.down)))
                let px1 = min(size - 1, Int(((cu + radius) * world - Double(tile.x * size)).rounded(.up)))
                let py0 = max(0, Int(((cv - radius) * world - Double(tile.y * size)).rounded(.down)))
                let py1 = min(size - 1, Int(((cv + radius) * world - Double(tile.y * size)).rounded(.up)))
                guard px0 <= px1, py0 <= py1 else { continue }
                for py in py0...py1 {
                    let v = (Double(tile.y * size + py) + 0.5) / world
                    for px in px0...px1 {
                        let u = (Double(tile.x * size + px) + 0.5) / world
                        let du = (u - cu) / radius, dv = (v - cv) / radius
                        let s = du * du + dv * dv
                        guard s < 1 else { continue }
                        field[py * size + px] += Float(strength * (1 - s) * (1 - s))
                    }
                }
            }
        }
        // Texture: radar echoes are ragged, not smooth.
        for py in 0..<size {
            let v = (Double(tile.y * size + py) + 0.5) / world
            for px in 0..<size where field[py * size + px] > 0 {
                let u = (Double(tile.x * size + px) + 0.5) / world
                let n = smoothNoise(u * grid * 7 + t * 2, v * grid * 7, 11) * 0.6 + smoothNoise(u * grid * 19, v * grid * 19 + t * 3, 12) * 0.4
                field[py * size + px] *= Float(0.45 + 0.9 * n)
            }
        }
        return field
    }

    /// A repeatable pseudo-random number in [0, 1) for lattice point (i, j) and channel.
    static func noise(_ i: Int, _ j: Int, _ channel: Int) -> Double {
        var h = UInt64(bitPattern: Int64(i)) &* 0x9E3779B97F4A7C15
        h ^= UInt64(bitPattern: Int64(j)) &* 0xC2B2AE3D27D4EB4F
        h ^= UInt64(channel) &* 0x165667B19E3779F9
        h ^= h >> 33; h &*= 0xFF51AFD7ED558CCD; h ^= h >> 33; h &*= 0xC4CEB9FE1A85EC53; h ^= h >> 33
        return Double(h >> 11) / Double(1 << 53)
    }

    /// Bilinear value noise, smooth between lattice points.
    static func smoothNoise(_ x: Double, _ y: Double, _ channel: Int) -> Double {
        let xi = Int(x.rounded(.down)), yi = Int(y.rounded(.down))
        let fx = x - Double(xi), fy = y - Double(yi)
        let sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy)
        let a = noise(xi, yi, channel), b = noise(xi + 1, yi, channel)
        let c = noise(xi, yi + 1, channel), d = noise(xi + 1, yi + 1, channel)
        return (a + (b - a) * sx) * (1 - sy) + (c + (d - c) * sx) * sy
    }
}

/// The demo's offline base map: procedural land and sea, published with the site so the
/// demo needs no network in the viewer's browser either.
enum DemoBaseMap {
    /// Deepest zoom published; the player scales it up beyond.
    static let maxZoom = 4
    /// Names the drawing, as `DemoRadar.version` does; published beside the tiles so that
    /// a rebuild can keep them without drawing them again.
    static let version = "demo-basemap-1"

    /// Muted on purpose, like the base maps weather layers are shown on: grey-blue sea,
    /// pale land, grey graticule, so every echo colour stands out.
    static let palette = Palette(rgba: [
        196, 204, 214, 255, 205, 212, 221, 255, 214, 220, 227, 255,
        236, 232, 220, 255, 232, 233, 222, 255, 224, 227, 214, 255, 214, 219, 204, 255,
        205, 205, 196, 255, 160, 165, 172, 255,
    ])

    /// A base map tile's PNG bytes.
    static func tile(z: Int, x: Int, y: Int, size: Int = 256) -> [UInt8] {
        let world = Double(size) * Double(1 << z)
        var pixels = [UInt8](repeating: 0, count: size * size)
        for py in 0..<size {
            let v = (Double(y * size + py) + 0.5) / world
            let lat = WebMercator.latitude(pixelY: v * 256, world: 256)
            for px in 0..<size {
                let u = (Double(x * size + px) + 0.5) / world
                let lon = u * 360 - 180
                var h = 0.0, amplitude = 0.5, frequency = 5.0
                for octave in 0..<5 {
                    h += amplitude * DemoRadar.smoothNoise(u * frequency, v * frequency, 100 + octave)
                    amplitude *= 0.5
                    frequency *= 2.1
                }
                let index: UInt8
                switch h {
                case ..<0.40: index = 0
                case ..<0.43: index = 1
                case ..<0.45: index = 2
                case ..<0.46: index = 3
                case ..<0.52: index = 4
                case ..<0.58: index = 5
                case ..<0.64: index = 6
                default: index = 7
                }
                // A graticule every 10 degrees, a pixel wide at any zoom.
                let degreesPerPixel = 360 / world
                let onMeridian = abs(lon / 10 - (lon / 10).rounded()) * 10 < degreesPerPixel / 2
                let onParallel = abs(lat / 10 - (lat / 10).rounded()) * 10 < degreesPerPixel * cos(lat * .pi / 180) / 2
                pixels[py * size + px] = onMeridian || onParallel ? 8 : index
            }
        }
        return (try? PNGWriter.encode(width: size, height: size, format: .indexed(palette), pixels: pixels)) ?? []
    }
}
