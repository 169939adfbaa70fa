import Foundation
import MatsiteImaging
import MatsiteSupport

/// Map tiles whose every pixel is a formula of its global pixel position (and frame), and
/// the reference arithmetic to say which global pixels a frame should show. Stitched
/// frames are compared with the formula, never with the pipeline's own numbers.
package enum FormulaTiles {
    /// Colour of global pixel (x, y) at any zoom, for `frame`. Opaque, different for
    /// neighbours, not repeating within the test boxes.
    package static func rgba(_ x: Int, _ y: Int, frame: Int = 0) -> [UInt8] {
        [red(x), green(y), blue(x, y, frame), 255]
    }

    // The channels one by one, so hot loops need no array per pixel.
    package static func red(_ x: Int) -> UInt8 { UInt8(truncatingIfNeeded: x % 251) }
    package static func green(_ y: Int) -> UInt8 { UInt8(truncatingIfNeeded: y % 241) }
    package static func blue(_ x: Int, _ y: Int, _ frame: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: (x / 251 + 7 * (y / 241) + x * 3 + y * 5 + frame * 101) % 256)
    }

    /// Tile (x, y) at zoom z as an RGBA PNG.
    package static func tile(z: Int, x: Int, y: Int, frame: Int = 0, size: Int = 256) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        for row in 0..<size {
            for column in 0..<size {
                let gx = x * size + column, gy = y * size + row, at = (row * size + column) * 4
                pixels[at] = red(gx); pixels[at + 1] = green(gy); pixels[at + 2] = blue(gx, gy, frame); pixels[at + 3] = 255
            }
        }
        return try PNGWriter.encode(width: size, height: size, format: .rgba, pixels: pixels, level: 1)
    }

    /// A radar-like palette: entry 0 transparent.
    package static let palette = Palette(rgba: [0, 0, 0, 0, 4, 233, 231, 255, 1, 159, 244, 255, 3, 0, 244, 255, 2, 253, 2, 255, 1, 197, 1, 255])

    /// Palette index of global pixel (x, y).
    package static func index(_ x: Int, _ y: Int) -> UInt8 {
        UInt8((x / 3 + y / 5 + x * y) % palette.count)
    }

    /// Tile (x, y) at zoom z as a palette PNG with `palette`.
    package static func indexedTile(z: Int, x: Int, y: Int, size: Int = 256) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: size * size)
        for row in 0..<size {
            for column in 0..<size { pixels[row * size + column] = index(x * size + column, y * size + row) }
        }
        return try PNGWriter.encode(width: size, height: size, format: .indexed(palette), pixels: pixels, level: 1)
    }

    /// Serves `/<prefix>/<frame>/<z>/<x>/<y>.png` from the formula (RGBA, or palette when
    /// `indexed`), tiles of `tileSize` pixels. With `tms`, the path's row is counted from
    /// the bottom.
    package static func serve(
        on server: TestServer, prefix: String = "/t/", indexed: Bool = false, tms: Bool = false,
        tileSize: Int = 256
    ) {
        let made = LockedBox([String: [UInt8]]())
        server.route(
            prefix: prefix,
            .custom { request, writer in
                let parts = request.path.dropFirst(prefix.count).replacingOccurrences(of: ".png", with: "")
                    .split(separator: "/").compactMap { Int($0) }
                guard parts.count == 4, parts[1] >= 0, parts[1] <= 22, (0..<(1 << parts[1])).contains(parts[2]),
                    (0..<(1 << parts[1])).contains(parts[3])
                else {
                    return try await TestServer.Behaviour.status(404).run(request, writer)
                }
                let (frame, z, x) = (parts[0], parts[1], parts[2])
                let y = tms ? (1 << z) - 1 - parts[3] : parts[3]
                let key = "\(frame)/\(z)/\(x)/\(y)"
                let body = try made.withLock { cache in
                    if let hit = cache[key] { return hit }
                    let png =
                        indexed
                        ? try indexedTile(z: z, x: x, y: y, size: tileSize)
                        : try tile(z: z, x: x, y: y, frame: frame, size: tileSize)
                    cache[key] = png
                    return png
                }
                try await TestServer.Behaviour.ok(body, contentType: "image/png").run(request, writer)
            })
    }

    /// The frame's global pixel window by the contract's pixel-centre rule, computed here
    /// from the spherical Mercator formulas (not with WebMercator).
    package static func window(
        west: Double, south: Double, east: Double, north: Double, zoom: Int,
        tileSize: Int = 256
    ) -> (x: Int, y: Int, width: Int, height: Int) {
        let world = Double(tileSize) * pow(2, Double(zoom))
        func px(_ lon: Double) -> Double { (lon + 180) / 360 * world }
        func py(_ lat: Double) -> Double {
            let phi = lat * .pi / 180
            return (1 - log(tan(phi) + 1 / cos(phi)) / .pi) / 2 * world
        }
        let x0 = px(west).rounded(.toNearestOrEven), x1 = px(east < west ? east + 360 : east).rounded(.toNearestOrEven)
        let y0 = py(north).rounded(.toNearestOrEven), y1 = py(south).rounded(.toNearestOrEven)
        return (Int(x0), Int(y0), Int(x1 - x0), Int(y1 - y0))
    }

    /// The RGBA a frame of `window` at `zoom` must show, from source tiles at `sourceZoom`.
    package static func expectedFrame(
        window: (x: Int, y: Int, width: Int, height: Int), zoom: Int, sourceZoom: Int,
        frame: Int = 0, tileSize: Int = 256,
        pixel: ((Int, Int, Int) -> [UInt8])? = nil
    ) -> [UInt8] {
        let shift = zoom - sourceZoom
        let sourceWorld = tileSize << sourceZoom
        var out = [UInt8](repeating: 0, count: window.width * window.height * 4)
        var at = 0
        for y in window.y..<(window.y + window.height) {
            for x in window.x..<(window.x + window.width) {
                let sx = (x >> shift) % sourceWorld, sy = y >> shift
                if let pixel {
                    let colour = pixel(sx, sy, frame)
                    out[at] = colour[0]; out[at + 1] = colour[1]; out[at + 2] = colour[2]; out[at + 3] = colour[3]
                } else {
                    out[at] = red(sx); out[at + 1] = green(sy); out[at + 2] = blue(sx, sy, frame); out[at + 3] = 255
                }
                at += 4
            }
        }
        return out
    }

    /// Where two RGBA images first differ, in words, or nil when equal.
    package static func firstDifference(_ actual: [UInt8], _ expected: [UInt8], width: Int) -> String? {
        guard actual.count == expected.count else { return "sizes differ: \(actual.count) bytes vs \(expected.count) expected" }
        guard let i = zip(actual, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else { return nil }
        let pixel = i / 4
        let shown = Array(actual[(pixel * 4)..<(pixel * 4 + 4)]), wanted = Array(expected[(pixel * 4)..<(pixel * 4 + 4)])
        return "pixel (\(pixel % width), \(pixel / width)) is \(shown), expected \(wanted)"
    }
}
