import Foundation
import MatsiteImaging

/// The demo's offline base map: procedural land and sea, published with the site so the
/// demo needs no network in the viewer's browser either.
///
/// The whole world is drawn down to `maxZoom`; around each animation the map is also drawn
/// at the zooms the player shows it (`Detail`), so it stays sharp there without drawing
/// the world at zoom 7. Coastlines get finer with every zoom, as a real map's do.
enum DemoBaseMap {
    /// Deepest zoom drawn for the whole world; the player scales it up beyond, except
    /// inside a detail region.
    static let maxZoom = 4
    /// Deepest zoom a detail region is drawn at, however deep its animation.
    static let deepestDetailZoom = 10
    /// Names the drawing, as `DemoRadar.version` does, and the folder of its tiles.
    static let version = "demo-basemap-2"
    /// Where a site's tiles are (`assets/demo-basemap-2/{z}/{x}/{y}.png`): named by the
    /// drawing, so a rebuild links the previous site's tiles at the same paths without
    /// drawing them again, and a viewer never mixes tiles of two drawings.
    static let folder = "assets/\(version)"

    /// Muted on purpose, like the base maps weather layers are shown on: grey-blue sea,
    /// pale land, grey graticule, a darker coastline, so every echo colour stands out.
    static let palette = Palette(rgba: [
        196, 204, 214, 255, 205, 212, 221, 255, 214, 220, 227, 255,
        236, 232, 220, 255, 232, 233, 222, 255, 224, 227, 214, 255, 214, 219, 204, 255,
        205, 205, 196, 255, 160, 165, 172, 255, 128, 142, 158, 255,
    ])

    /// Where and how deep the map is drawn beyond `maxZoom` for one animation: its box
    /// with a margin, at the zooms from `maxZoom + 1` to what the player shows.
    struct Detail: Sendable, Equatable {
        /// The box drawn, in degrees (west may exceed east across the antimeridian).
        var bbox: BoundingBox
        /// The zooms drawn.
        var zooms: ClosedRange<Int>

        /// The detail around `animation`: its box and half its size again on every side,
        /// at the zooms down to one past the frames' own (their first fallback level), or
        /// deeper when more fallback levels are published; nil when the frames are coarse
        /// enough for the world map.
        init?(_ animation: AnimationConfig) {
            let deepest = min(DemoBaseMap.deepestDetailZoom, animation.zoom + max(1, animation.fallback.levels))
            guard deepest > DemoBaseMap.maxZoom else { return nil }
            let box = animation.bbox
            let width = (box.east - box.west + (box.west > box.east ? 360 : 0)), height = box.north - box.south
            let limit = WebMercator.maxLatitude
            bbox = BoundingBox(
                west: box.west - width / 2, south: max(-limit, box.south - height / 2),
                east: box.east + width / 2, north: min(limit, box.north + height / 2))
            zooms = (DemoBaseMap.maxZoom + 1)...deepest
        }

        /// The tiles (x wrapped) that cover the box at `z`.
        func tiles(at z: Int) -> [(x: Int, y: Int)] {
            let n = 1 << z
            let east = bbox.east + (bbox.west > bbox.east ? 360 : 0)
            func column(_ lon: Double) -> Int { Int(((lon + 180) / 360 * Double(n)).rounded(.down)) }
            func row(_ lat: Double) -> Int {
                let y = WebMercator.pixelY(latitude: lat, world: Double(n))
                return min(n - 1, max(0, Int(y.rounded(.down))))
            }
            let columns = column(bbox.west)...column(east)
            var tiles: [(x: Int, y: Int)] = []
            var seen = Set<Int>()
            for x in columns.prefix(n) {
                let wrapped = ((x % n) + n) % n
                guard seen.insert(wrapped).inserted else { continue }
                for y in row(bbox.north)...row(bbox.south) { tiles.append((wrapped, y)) }
            }
            return tiles
        }
    }

    /// The paths under `folder` of every tile a site with these details
    /// publishes: the world down to `maxZoom`, then each detail's tiles.
    static func tilePaths(details: [Detail]) -> [(z: Int, x: Int, y: Int)] {
        var tiles: [(z: Int, x: Int, y: Int)] = []
        for z in 0...maxZoom {
            for x in 0..<(1 << z) { for y in 0..<(1 << z) { tiles.append((z, x, y)) } }
        }
        var seen = Set<String>()
        for detail in details {
            for z in detail.zooms {
                for (x, y) in detail.tiles(at: z) where seen.insert("\(z)/\(x)/\(y)").inserted { tiles.append((z, x, y)) }
            }
        }
        return tiles
    }

    /// A base map tile's PNG bytes.
    static func tile(z: Int, x: Int, y: Int, size: Int = 256) -> [UInt8] {
        let world = Double(size) * Double(1 << z)
        // Heights over the tile and a pixel around it, so the coastline is found at its edges too.
        let edge = size + 2
        let height = heights(x0: x * size - 1, y0: y * size - 1, edge: edge, world: world)
        var pixels = [UInt8](repeating: 0, count: size * size)
        let degreesPerPixel = 360 / world
        for py in 0..<size {
            let v = (Double(y * size + py) + 0.5) / world
            let lat = WebMercator.latitude(pixelY: v * 256, world: 256)
            for px in 0..<size {
                let u = (Double(x * size + px) + 0.5) / world
                let lon = u * 360 - 180
                let at = (py + 1) * edge + px + 1
                let h = height[at]
                var index = shade(h)
                if h >= seaLevel,
                    height[at - 1] < seaLevel || height[at + 1] < seaLevel || height[at - edge] < seaLevel || height[at + edge] < seaLevel
                {
                    index = 9
                }
                // A graticule every 10 degrees, a pixel wide at any zoom.
                let onMeridian = abs(lon / 10 - (lon / 10).rounded()) * 10 < degreesPerPixel / 2
                let onParallel = abs(lat / 10 - (lat / 10).rounded()) * 10 < degreesPerPixel * cos(lat * .pi / 180) / 2
                pixels[py * size + px] = onMeridian || onParallel ? 8 : index
            }
        }
        return (try? PNGWriter.encode(width: size, height: size, format: .indexed(palette), pixels: pixels)) ?? []
    }
}

private extension DemoBaseMap {
    /// Land begins at this height.
    static let seaLevel = 0.45

    /// Frequencies (per world width) of the height's octaves: whole numbers, so the map
    /// repeats every world and has no seam at the antimeridian.
    static let frequencies = (0..<14).map { (5 * pow(2.1, Double($0))).rounded() }

    /// Octaves down to about two pixels at this zoom: finer ones would only alias.
    static func octaveCount(world: Double) -> Int {
        max(1, frequencies.prefix { world / $0 >= 2 }.count)
    }

    /// The heights of the `edge` x `edge` pixels from (`x0`, `y0`) of a world `world` pixels
    /// wide: 0.48 plus each octave's value noise around zero, the first `octaveCount`
    /// octaves, each weaker than the one before. Each octave adds detail around zero, so a
    /// deeper zoom sharpens the coastline without moving it.
    ///
    /// The same sums as `DemoWeather.smoothNoise` at every pixel, but each lattice value is
    /// hashed once per tile instead of four times per pixel: the hashing was nearly all of
    /// the map's cost.
    static func heights(x0: Int, y0: Int, edge: Int, world: Double) -> [Double] {
        var height = [Double](repeating: 0.48, count: edge * edge)
        var amplitude = 0.5
        for octave in 0..<octaveCount(world: world) {
            let f = frequencies[octave], period = Int64(f), channel = 100 + octave
            // Per column and row: the lattice cell and the smoothstep weight inside it.
            func axis(_ first: Int) -> (cells: [Int64], weights: [Double]) {
                var cells: [Int64] = [], weights: [Double] = []
                for i in 0..<edge {
                    let t = (Double(first + i) + 0.5) / world * f
                    let cell = t.rounded(.down), w = t - cell
                    cells.append(Int64(cell))
                    weights.append(w * w * (3 - 2 * w))
                }
                return (cells, weights)
            }
            let (columns, sx) = axis(x0), (rows, sy) = axis(y0)
            // The lattice values under the tile: columns wrap around the world, rows do not.
            let (c0, r0) = (columns[0], rows[0])
            let width = Int(columns[edge - 1] - c0) + 2, depth = Int(rows[edge - 1] - r0) + 2
            var lattice = [Double](repeating: 0, count: width * depth)
            for j in 0..<depth {
                for i in 0..<width {
                    let wrapped = Int((((c0 + Int64(i)) % period) + period) % period)
                    lattice[j * width + i] = DemoWeather.noise(wrapped, Int(r0) + j, 0, channel)
                }
            }
            for row in 0..<edge {
                let at = Int(rows[row] - r0) * width, b = sy[row]
                for column in 0..<edge {
                    let i = at + Int(columns[column] - c0), a = sx[column]
                    let (p, q, r, s) = (lattice[i], lattice[i + 1], lattice[i + width], lattice[i + width + 1])
                    let value = (p + (q - p) * a) * (1 - b) + (r + (s - r) * a) * b
                    height[row * edge + column] += amplitude * (value - 0.5)
                }
            }
            amplitude *= 0.55
        }
        return height
    }

    /// The palette entry for a height: three depths of sea, a beach, four heights of land.
    static func shade(_ h: Double) -> UInt8 {
        switch h {
        case ..<0.40: 0
        case ..<0.43: 1
        case ..<seaLevel: 2
        case ..<0.46: 3
        case ..<0.52: 4
        case ..<0.58: 5
        case ..<0.64: 6
        default: 7
        }
    }
}
