import MatsiteImaging
import Testing

@Suite("Stitcher")
struct StitcherTests {
    static let size = 8

    @Test("a window that starts and ends mid-tile is cut out of the tile grid pixel for pixel")
    func unaligned() throws {
        let layout = FrameLayout(width: 13, height: 10, originX: 5, originY: 3, shift: 0, tileSize: Self.size)
        #expect(layout.columns == 0...2 && layout.rows == 0...1)
        let tiles = try rgbaTiles(layout)
        let (format, failures) = Stitcher().plan(layout: layout, tiles: tiles)
        // 130 pixels, all different: few enough colours for a palette frame.
        guard case .indexed(let palette) = format else { Issue.record("expected a palette frame, got \(format)"); return }
        #expect(palette.count == 130 && failures.isEmpty)
        let image = try stitch(layout, tiles, format: format)
        #expect(image.pixels == Self.expected(layout) { PixelFormula.rgba($0, $1) })
    }

    @Test("overzoom turns each source pixel into a 2^shift block", arguments: [1, 2, 3])
    func overzoom(shift: Int) throws {
        let layout = FrameLayout(width: 37, height: 21, originX: (11 << shift) >> 1, originY: 29, shift: shift, tileSize: Self.size)
        let tiles = try rgbaTiles(layout)
        let image = try stitch(layout, tiles, format: .rgba)
        #expect(image.pixels == Self.expected(layout) { PixelFormula.rgba($0 >> shift, $1 >> shift) })
    }

    @Test("tiles sharing one palette give an indexed frame with that palette and the tiles' indices")
    func palettePassthrough() throws {
        let palette = PixelFormula.palette(count: 6)
        let layout = FrameLayout(width: 19, height: 12, originX: 3, originY: 6, shift: 0, tileSize: Self.size)
        let tiles = try grid(layout) { try .png(PixelFormula.indexedTile(column: $0, row: $1, size: Self.size, palette: palette)) }
        let (format, _) = Stitcher().plan(layout: layout, tiles: tiles)
        #expect(format == .indexed(palette))
        let image = try stitch(layout, tiles, format: format, indices: true)
        #expect(image.palette == palette)
        #expect(image.pixels == Self.expected(layout) { [PixelFormula.index($0, $1, count: 6)] })
    }

    @Test("tiles with differing palettes give one merged palette frame showing each tile's own colours")
    func differingPalettes() throws {
        let first = PixelFormula.palette(count: 6), second = PixelFormula.palette(count: 6, seed: 100)
        let layout = FrameLayout(width: 12, height: 5, originX: 2, originY: 1, shift: 0, tileSize: Self.size)
        #expect(layout.columns == 0...1)
        let tiles = try grid(layout) { column, row in
            try .png(PixelFormula.indexedTile(column: column, row: row, size: Self.size, palette: column == 0 ? first : second))
        }
        let (format, _) = Stitcher().plan(layout: layout, tiles: tiles)
        guard case .indexed(let merged) = format else { Issue.record("expected a palette frame, got \(format)"); return }
        #expect(merged.count <= 12)
        let image = try stitch(layout, tiles, format: format)
        #expect(
            image.pixels
                == Self.expected(layout) { x, y in
                    let c = (x / Self.size == 0 ? first : second).color(Int(PixelFormula.index(x, y, count: 6)))
                    return [c.r, c.g, c.b, c.a]
                })
    }

    @Test("an empty cell stays indexed when the palette has a transparent entry, and is drawn with it")
    func emptyCellIndexed() throws {
        let palette = PixelFormula.palette(count: 5, transparent: 4)
        let layout = FrameLayout(width: 16, height: 8, originX: 0, originY: 0, shift: 0, tileSize: Self.size)
        let tiles: [TileContent] = [try .png(PixelFormula.indexedTile(column: 0, row: 0, size: Self.size, palette: palette)), .empty]
        let (format, _) = Stitcher().plan(layout: layout, tiles: tiles)
        #expect(format == .indexed(palette))
        let image = try stitch(layout, tiles, format: format, indices: true)
        #expect(image.pixels == Self.expected(layout) { x, y in [x < Self.size ? PixelFormula.index(x, y, count: 5) : 4] })
    }

    @Test("an empty cell beside a palette without a transparent entry gives a palette gaining one, and is transparent")
    func emptyCellRGBA() throws {
        let palette = PixelFormula.palette(count: 5)
        let layout = FrameLayout(width: 16, height: 8, originX: 0, originY: 0, shift: 0, tileSize: Self.size)
        let tiles: [TileContent] = [.empty, try .png(PixelFormula.indexedTile(column: 1, row: 0, size: Self.size, palette: palette))]
        let (format, _) = Stitcher().plan(layout: layout, tiles: tiles)
        guard case .indexed(let merged) = format else { Issue.record("expected a palette frame, got \(format)"); return }
        #expect(merged.count == 6 && merged.transparentIndex != nil)
        let image = try stitch(layout, tiles, format: format)
        #expect(
            image.pixels
                == Self.expected(layout) { x, y in
                    guard x >= Self.size else { return [0, 0, 0, 0] }
                    let c = palette.color(Int(PixelFormula.index(x, y, count: 5)))
                    return [c.r, c.g, c.b, c.a]
                })
    }

    @Test("a tile of the wrong size is a failure named by its column and row")
    func wrongSize() throws {
        let layout = FrameLayout(width: 16, height: 8, originX: 0, originY: 0, shift: 0, tileSize: Self.size)
        let small = try PNGWriter.encode(width: 4, height: 4, format: .rgba, pixels: [UInt8](repeating: 9, count: 64))
        let tiles: [TileContent] = [try .png(PixelFormula.rgbaTile(column: 0, row: 0, size: Self.size)), .png(small)]
        let (_, failures) = Stitcher().plan(layout: layout, tiles: tiles)
        #expect(failures.count == 1)
        #expect(failures.first?.column == 1 && failures.first?.row == 0)
        #expect(failures.first?.reason.contains("4x4") == true)
    }

    @Test("a damaged tile throws unless tolerated; tolerated, it is drawn transparent and reported")
    func damagedTile() throws {
        let layout = FrameLayout(width: 16, height: 8, originX: 0, originY: 0, shift: 0, tileSize: Self.size)
        let good = try PixelFormula.rgbaTile(column: 0, row: 0, size: Self.size)
        var bad = try PixelFormula.rgbaTile(column: 1, row: 0, size: Self.size)
        let idat = try #require(bad.chunkOffset("IDAT"))
        bad[idat + 10] ^= 0x55 // the chunk's data (and so its CRC) no longer match
        let tiles: [TileContent] = [.png(good), .png(bad)]
        let writer = try PNGWriter(path: nil, width: 16, height: 8, format: .rgba)
        #expect(throws: UnusableTileError.self) {
            try Stitcher().stitch(layout: layout, tiles: tiles, format: .rgba, to: writer, tolerateBadTiles: false)
        }
        let tolerant = try PNGWriter(path: nil, width: 16, height: 8, format: .rgba)
        let report = try Stitcher().stitch(layout: layout, tiles: tiles, format: .rgba, to: tolerant, tolerateBadTiles: true)
        #expect(report.failedTiles.map(\.column) == [1])
        let image = try PNGDecoder().decode(#require(try tolerant.finish()), keepIndices: false)
        #expect(image.pixels == Self.expected(layout) { x, y in x < Self.size ? PixelFormula.rgba(x, y) : [0, 0, 0, 0] })
    }

    @Test("the sampler sees every output row, so the poster is the frame scaled down")
    func posterSampling() throws {
        let layout = FrameLayout(width: 24, height: 16, originX: 0, originY: 0, shift: 0, tileSize: Self.size)
        let tiles = try rgbaTiles(layout)
        let writer = try PNGWriter(path: nil, width: layout.width, height: layout.height, format: .rgba)
        let sampler = RowSampler(sourceWidth: 24, sourceHeight: 16, format: .rgba, maxEdge: 6)
        _ = try Stitcher().stitch(layout: layout, tiles: tiles, format: .rgba, to: writer, tolerateBadTiles: false, sampler: sampler)
        #expect(sampler.width == 6 && sampler.height == 4)
        let poster = try PNGDecoder().decode(sampler.encode(), keepIndices: false)
        // Poster pixel (px, py) shows the frame pixel under its centre: 4 frame pixels per poster pixel.
        var expected: [UInt8] = []
        for py in 0..<4 { for px in 0..<6 { expected += PixelFormula.rgba(px * 4 + 2, py * 4 + 2) } }
        #expect(poster.pixels == expected)
    }

    @Test(
        "interlaced, gray, gray+alpha, RGB and 16-bit tiles are decoded straight into the band, pixel-exact",
        arguments: [(HandmadePNG.ColorType.rgb, 8, false), (.gray, 8, true), (.grayAlpha, 16, false), (.rgba, 16, true), (.rgb, 16, true)])
    func everyTileKind(type: HandmadePNG.ColorType, depth: Int, interlaced: Bool) throws {
        let layout = FrameLayout(width: 13, height: 11, originX: 2, originY: 3, shift: 0, tileSize: Self.size)
        var expectedTiles: [[UInt8]] = []
        let tiles = try grid(layout) { column, row in
            var image = PNGDecoderTests.image(type, depth: depth, width: Self.size, height: Self.size)
            // Shift the samples per tile so tiles differ from each other.
            image.samples = image.samples.map { $0.map { $0.map { ($0 + column * 3 + row * 5) % (1 << depth) } } }
            image.interlaced = interlaced
            expectedTiles.append(PNGDecoderTests.expectedRGBA(image))
            return .png(image.encode())
        }
        let stitched = try stitch(layout, tiles, format: .rgba)
        let columns = layout.columns.count
        let expected = Self.expected(layout) { x, y in
            let tile = expectedTiles[(y / Self.size) * columns + x / Self.size]
            let at = ((y % Self.size) * Self.size + x % Self.size) * 4
            return Array(tile[at..<(at + 4)])
        }
        #expect(stitched.pixels == expected)
    }

    @Test("overzoomed palette tiles stay indexed, each index a 2x2 block")
    func overzoomIndexed() throws {
        let palette = PixelFormula.palette(count: 6)
        let layout = FrameLayout(width: 21, height: 9, originX: 5, originY: 7, shift: 1, tileSize: Self.size)
        let tiles = try grid(layout) { try .png(PixelFormula.indexedTile(column: $0, row: $1, size: Self.size, palette: palette)) }
        let (format, _) = Stitcher().plan(layout: layout, tiles: tiles)
        #expect(format == .indexed(palette))
        let image = try stitch(layout, tiles, format: format, indices: true)
        #expect(image.pixels == Self.expected(layout) { [PixelFormula.index($0 >> 1, $1 >> 1, count: 6)] })
    }
}

// MARK: - Helpers

extension StitcherTests {
    func grid(_ layout: FrameLayout, _ make: (Int, Int) throws -> TileContent) rethrows -> [TileContent] {
        var tiles: [TileContent] = []
        for row in layout.rows { for column in layout.columns { tiles.append(try make(column, row)) } }
        return tiles
    }

    func rgbaTiles(_ layout: FrameLayout) throws -> [TileContent] {
        try grid(layout) { try .png(PixelFormula.rgbaTile(column: $0, row: $1, size: Self.size)) }
    }

    /// Stitches and decodes the frame: to RGBA, or with `indices` a palette frame's indices.
    func stitch(_ layout: FrameLayout, _ tiles: [TileContent], format: PixelFormat, indices: Bool = false) throws -> DecodedImage {
        let writer = try PNGWriter(path: nil, width: layout.width, height: layout.height, format: format)
        let report = try Stitcher().stitch(layout: layout, tiles: tiles, format: format, to: writer, tolerateBadTiles: false)
        #expect(report.failedTiles.isEmpty)
        let bytes = try #require(try writer.finish())
        return try PNGDecoder().decode(bytes, keepIndices: indices)
    }

    /// The frame's pixels straight from the formula over its window.
    static func expected(_ layout: FrameLayout, _ pixel: (Int, Int) -> [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for y in layout.originY..<(layout.originY + layout.height) {
            for x in layout.originX..<(layout.originX + layout.width) { out += pixel(x, y) }
        }
        return out
    }
}
