import MatsiteImaging
import Testing

/// Issue 14's lighter frames: the smallest PNG for the same pixels. Every check decodes the
/// new frame and the frame as matsite wrote it before (RGBA for tiles that do not share a
/// palette) and compares them pixel for pixel.
@Suite("Lighter frames: same pixels, fewer bytes")
struct LighterFramesTests {
    static let size = 32

    /// RGBA tiles (colour type 6) drawing `count` colours, some translucent and one
    /// transparent, in a pattern over global pixel positions.
    static func rgbaTiles(_ layout: FrameLayout, colors count: Int) throws -> [TileContent] {
        var tiles: [TileContent] = []
        for row in layout.rows {
            for column in layout.columns {
                var pixels: [UInt8] = []
                for y in 0..<size {
                    for x in 0..<size {
                        let i = Int(PixelFormula.index(column * size + x, row * size + y, count: count))
                        pixels += [
                            UInt8(i * 13 % 256), UInt8(255 - i * 7 % 256), UInt8(i * 29 % 256),
                            i == 0 ? 0 : i < 3 ? 140 : 255,
                        ]
                    }
                }
                tiles.append(.encoded(try PNGWriter.encode(width: size, height: size, format: .rgba, pixels: pixels)))
            }
        }
        return tiles
    }

    static func frame(_ layout: FrameLayout, _ tiles: [TileContent], _ format: PixelFormat) throws -> [UInt8] {
        let writer = try PNGWriter(path: nil, width: layout.width, height: layout.height, format: format)
        _ = try Stitcher().stitch(layout: layout, tiles: tiles, format: format, to: writer, tolerateBadTiles: false)
        return try #require(try writer.finish())
    }

    @Test(
        "RGBA tiles of few colours give a palette frame at the smallest bit depth, pixel-identical to the RGBA frame",
        arguments: [(2, 1), (4, 2), (16, 4), (17, 8), (200, 8)])
    func rgbaTilesBecomePalette(colors: Int, depth: Int) throws {
        let layout = FrameLayout(width: 83, height: 70, originX: 7, originY: 5, shift: 0, tileSize: Self.size)
        let tiles = try Self.rgbaTiles(layout, colors: colors)
        let (format, failures) = Stitcher().plan(layout: layout, tiles: tiles)
        #expect(failures.isEmpty)
        guard case .indexed(let palette) = format else { Issue.record("expected a palette frame, got \(format)"); return }
        #expect(palette.count == colors)
        let light = try Self.frame(layout, tiles, format)
        let today = try Self.frame(layout, tiles, .rgba)
        let info = try PNGDecoder().info(of: light)
        #expect(info.colorType == 3 && info.bitDepth == depth)
        #expect(try PNGDecoder().decode(light, keepIndices: false).pixels == PNGDecoder().decode(today, keepIndices: false).pixels)
        // Packed below 8 bits the palette frame is smaller; at 8 bits it need not be (a small
        // frame of smooth RGBA ramps filters to almost nothing), so only the pixels are held.
        if depth < 8 { #expect(light.count < today.count, "palette \(light.count) bytes, RGBA \(today.count) bytes") }
    }

    @Test("overzoomed RGBA tiles of few colours: palette frame, same pixels", arguments: [1, 2])
    func overzoom(shift: Int) throws {
        let layout = FrameLayout(width: 61, height: 45, originX: 19, originY: 11, shift: shift, tileSize: Self.size)
        let tiles = try Self.rgbaTiles(layout, colors: 9)
        let (format, _) = Stitcher().plan(layout: layout, tiles: tiles)
        guard case .indexed = format else { Issue.record("expected a palette frame, got \(format)"); return }
        let light = try Self.frame(layout, tiles, format)
        let today = try Self.frame(layout, tiles, .rgba)
        #expect(try PNGDecoder().decode(light, keepIndices: false).pixels == PNGDecoder().decode(today, keepIndices: false).pixels)
    }

    @Test("a 16-entry palette shared by the tiles is written at 4 bits, indices unchanged")
    func sharedPaletteFourBits() throws {
        let palette = PixelFormula.palette(count: 16, transparent: 0)
        let layout = FrameLayout(width: 50, height: 40, originX: 3, originY: 9, shift: 0, tileSize: Self.size)
        var tiles: [TileContent] = []
        for row in layout.rows {
            for column in layout.columns {
                tiles.append(.encoded(try PixelFormula.indexedTile(column: column, row: row, size: Self.size, palette: palette)))
            }
        }
        let (format, _) = Stitcher().plan(layout: layout, tiles: tiles)
        #expect(format == .indexed(palette))
        let light = try Self.frame(layout, tiles, format)
        let info = try PNGDecoder().info(of: light)
        #expect(info.colorType == 3 && info.bitDepth == 4 && info.palette == palette)
        #expect(
            try PNGDecoder().decode(light, keepIndices: false).pixels
                == PNGDecoder().decode(Self.frame(layout, tiles, .rgba), keepIndices: false).pixels)
    }

    @Test("257 colours or more stay RGBA")
    func manyColoursStayRGBA() throws {
        let layout = FrameLayout(width: 60, height: 60, originX: 0, originY: 0, shift: 0, tileSize: Self.size)
        var tiles: [TileContent] = []
        for row in layout.rows {
            for column in layout.columns {
                tiles.append(.encoded(try PixelFormula.rgbaTile(column: column, row: row, size: Self.size)))
            }
        }
        #expect(Stitcher().plan(layout: layout, tiles: tiles).format == .rgba)
    }

    @Test("the palette is the same whatever order the tiles show the colours in")
    func paletteOrderIsStable() throws {
        let layout = FrameLayout(width: 64, height: 32, originX: 0, originY: 0, shift: 0, tileSize: Self.size)
        let tiles = try Self.rgbaTiles(layout, colors: 11)
        let forward = Stitcher().plan(layout: layout, tiles: tiles).format
        let swapped = Stitcher().plan(layout: layout, tiles: [tiles[1], tiles[0]]).format
        #expect(forward == swapped)
    }

    @Test("lossless WebP keeps every pixel, transparent ones included")
    func webpLosslessRoundTrip() throws {
        let width = 37, height = 23
        var pixels: [UInt8] = []
        for y in 0..<height { for x in 0..<width { pixels += [UInt8(x * 7 % 256), UInt8(y * 11 % 256), UInt8((x ^ y) % 256), x % 5 == 0 ? 0 : 255] } }
        let webp = try pixels.withUnsafeBytes { try WebPLosslessEncoder.encode(rgba: $0, width: width, height: height, stride: width * 4) }
        #expect(ImageKind.sniff(webp) == .webp)
        #expect(try WebPDecoder().decode(webp).pixels == pixels)
    }
}
