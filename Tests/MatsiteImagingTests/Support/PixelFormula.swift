import MatsiteImaging

/// Pixels defined by a formula of their global position, so a stitched frame can be
/// checked against the formula itself rather than against the stitcher's own arithmetic.
enum PixelFormula {
    /// An opaque colour that differs between neighbours in x and y and does not repeat
    /// within a few hundred pixels.
    static func rgba(_ x: Int, _ y: Int) -> [UInt8] {
        let blue: Int = (x / 251 + 7 * (y / 241) + x * 3 + y * 5) % 256
        return [UInt8(x % 251), UInt8(y % 241), UInt8(blue), 255]
    }

    /// A palette index (0..<count) for a global position.
    static func index(_ x: Int, _ y: Int, count: Int) -> UInt8 {
        UInt8((x * 3 + y * 5 + x / 7) % count)
    }

    /// A PNG tile (column, row) of `size` pixels, RGBA, drawn from `rgba`.
    static func rgbaTile(column: Int, row: Int, size: Int) throws -> [UInt8] {
        var pixels: [UInt8] = []
        for y in 0..<size {
            for x in 0..<size { pixels += rgba(column * size + x, row * size + y) }
        }
        return try PNGWriter.encode(width: size, height: size, format: .rgba, pixels: pixels, level: 1)
    }

    /// A palette PNG tile (column, row) drawn from `index`.
    static func indexedTile(column: Int, row: Int, size: Int, palette: Palette) throws -> [UInt8] {
        var pixels: [UInt8] = []
        for y in 0..<size {
            for x in 0..<size { pixels.append(index(column * size + x, row * size + y, count: palette.count)) }
        }
        return try PNGWriter.encode(width: size, height: size, format: .indexed(palette), pixels: pixels, level: 1)
    }

    /// A palette of `count` entries; entry `transparent`, if given, has alpha 0.
    static func palette(count: Int, seed: Int = 0, transparent: Int? = nil) -> Palette {
        var rgba: [UInt8] = []
        for i in 0..<count {
            let red = UInt8((i * 37 + seed) % 256), green = UInt8((i * 91 + 13) % 256), blue = UInt8((i * 53 + 200) % 256)
            let alpha: UInt8 = i == transparent ? 0 : 255
            rgba += [red, green, blue, alpha]
        }
        return Palette(rgba: rgba)
    }
}
