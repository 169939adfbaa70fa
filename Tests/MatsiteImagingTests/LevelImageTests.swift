import MatsiteImaging
import Testing

@Suite("LevelImage")
struct LevelImageTests {
    /// Entries: 0 transparent, 1...4 opaque, 5 half transparent.
    static let palette = Palette(rgba: [
        0, 0, 0, 0, 255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 9, 9, 9, 255, 90, 90, 90, 128,
    ])

    @Test("palette downsampling keeps the palette and takes the most frequent of the four pixels")
    func paletteMode() {
        // Six 2x2 blocks side by side: (1 1 / 2 3) -> 1, (0 2 / 0 2) -> 2 (tie: the opaque one),
        // (1 2 / 3 4) -> 1 (all differ: top-left), (2 3 / 3 2) -> 2 (tie of equals: top-left),
        // (3 4 / 4 4) -> 4, (5 0 / 0 5) -> 5 (tie: the more opaque).
        let top: [UInt8] = [1, 1, 0, 2, 1, 2, 2, 3, 3, 4, 5, 0]
        let bottom: [UInt8] = [2, 3, 0, 2, 3, 4, 3, 2, 4, 4, 0, 5]
        let fine = LevelImage(
            level: PyramidLevel(zoom: 6, x0: 64, y0: 32, width: 12, height: 2), format: .indexed(Self.palette), pixels: top + bottom)
        let coarse = fine.coarser()
        #expect(coarse.level == PyramidLevel(zoom: 5, x0: 32, y0: 16, width: 6, height: 1))
        #expect(coarse.format == .indexed(Self.palette))
        #expect(coarse.pixels == [1, 2, 1, 2, 4, 5])
    }

    @Test("at an odd edge a coarse pixel is the mode of the fine pixels inside the box only")
    func paletteOddEdge() {
        // Fine columns 1...3 and rows 1...2: coarse (0,0) covers only fine (1,1); coarse
        // (1,0) covers fine (2...3, 1); coarse (0,1) covers fine (1,2); coarse (1,1) covers (2...3, 2).
        let fine = LevelImage(
            level: PyramidLevel(zoom: 3, x0: 1, y0: 1, width: 3, height: 2), format: .indexed(Self.palette),
            pixels: [4, 0, 3, 2, 1, 1])
        let coarse = fine.coarser()
        #expect(coarse.level == PyramidLevel(zoom: 2, x0: 0, y0: 0, width: 2, height: 2))
        // (0 3): a tie, the opaque 3 wins; (1 1): 1.
        #expect(coarse.pixels == [4, 3, 2, 1])
    }

    @Test("RGBA downsampling averages with premultiplied alpha")
    func rgbaAverage() {
        // Red and green opaque, a transparent blue, transparent black: the blue adds no colour.
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 255, 0, 0, 0, 0]
        let fine = LevelImage(level: PyramidLevel(zoom: 1, x0: 0, y0: 0, width: 2, height: 2), format: .rgba, pixels: pixels)
        let coarse = fine.coarser()
        #expect(coarse.pixels == [128, 128, 0, 128])
        // Opaque pixels average plainly; a fully transparent block stays transparent black.
        let plain = LevelImage(
            level: PyramidLevel(zoom: 1, x0: 0, y0: 0, width: 4, height: 2), format: .rgba,
            pixels: [10, 20, 30, 255, 20, 30, 40, 255, 0, 0, 0, 0, 7, 7, 7, 0, 30, 40, 50, 255, 40, 50, 60, 255, 5, 5, 5, 0, 0, 0, 0, 0])
        #expect(plain.coarser().pixels == [25, 35, 45, 255, 0, 0, 0, 0])
    }

    @Test("an RGBA pixel at an odd edge averages only the pixels inside the box")
    func rgbaOddEdge() {
        let fine = LevelImage(
            level: PyramidLevel(zoom: 1, x0: 1, y0: 0, width: 1, height: 2), format: .rgba,
            pixels: [100, 0, 0, 255, 0, 100, 0, 255])
        #expect(fine.coarser().pixels == [50, 50, 0, 255])
    }

    @Test("the finest level's tiles, decoded and put together, are the frame's pixels exactly", arguments: [false, true])
    func finestTilesReassemble(rgba: Bool) throws {
        let level = PyramidLevel(zoom: 9, x0: 301, y0: 699, width: 601, height: 333)
        let format: PixelFormat = rgba ? .rgba : .indexed(Self.palette)
        let bpp = format.bytesPerPixel
        var pixels: [UInt8] = []
        for y in 0..<level.height {
            for x in 0..<level.width {
                let gx = level.x0 + x, gy = level.y0 + y
                pixels += rgba ? PixelFormula.rgba(gx, gy) : [PixelFormula.index(gx, gy, count: Self.palette.count)]
            }
        }
        let image = LevelImage(level: level, format: format, pixels: pixels)
        var seen = [UInt8](repeating: 0, count: pixels.count)
        var tiles = 0
        for column in level.tileColumns {
            for row in level.tileRows {
                let png = try #require(try image.encodeTile(column: column, row: row, compressionLevel: 6, to: nil))
                let decoded = try PNGDecoder().decode(png, keepIndices: !rgba)
                #expect(decoded.width == 256 && decoded.height == 256)
                if !rgba { #expect(decoded.palette == Self.palette) }
                tiles += 1
                for ty in 0..<256 {
                    for tx in 0..<256 {
                        let gx = column * 256 + tx, gy = row * 256 + ty
                        let tilePixel = Array(decoded.pixels[((ty * 256 + tx) * bpp)..<((ty * 256 + tx + 1) * bpp)])
                        let inside = gx >= level.x0 && gx < level.x0 + level.width && gy >= level.y0 && gy < level.y0 + level.height
                        if inside {
                            let at = ((gy - level.y0) * level.width + gx - level.x0) * bpp
                            seen.replaceSubrange(at..<(at + bpp), with: tilePixel)
                        } else if rgba {
                            #expect(tilePixel[3] == 0)
                        } else {
                            #expect(tilePixel == [0])
                        }
                    }
                }
            }
        }
        #expect(tiles == 3 * 3)
        #expect(seen == pixels)
    }

    @Test("a palette without a transparent entry gets one appended for the tiles; a full one makes RGBA tiles")
    func tileFormats() throws {
        let opaque = Palette(rgba: [1, 2, 3, 255, 4, 5, 6, 255])
        let image = LevelImage(level: PyramidLevel(zoom: 2, x0: 10, y0: 10, width: 2, height: 1), format: .indexed(opaque), pixels: [1, 0])
        #expect(image.tileFormat == .indexed(Palette(rgba: opaque.rgba + [0, 0, 0, 0])))
        let tile = image.tile(column: 0, row: 0)
        #expect(tile[10 * 256 + 10] == 1 && tile[10 * 256 + 11] == 0 && tile[0] == 2)

        let full = Palette(rgba: (0..<256).flatMap { [UInt8($0), 0, 0, 255] })
        let big = LevelImage(level: PyramidLevel(zoom: 2, x0: 1, y0: 0, width: 1, height: 1), format: .indexed(full), pixels: [200])
        #expect(big.tileFormat == .rgba)
        let rgbaTile = big.tile(column: 0, row: 0)
        #expect(Array(rgbaTile[4..<8]) == [200, 0, 0, 255])
        #expect(Array(rgbaTile[0..<4]) == [0, 0, 0, 0])
    }
}
