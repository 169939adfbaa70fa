import MatsiteImaging
import Testing

/// Telling a tile or frame with nothing drawn on it (every pixel alpha 0: MapServer's answer
/// for a time without data) from one that shows something, in every format a tile comes in.
@Suite("Transparency: blank tiles and frames")
struct TransparencyTests {
    static let size = 16

    static func rgba(_ alpha: (Int) -> UInt8) -> [UInt8] {
        var pixels = [UInt8](repeating: 90, count: size * size * 4)
        for i in 0..<(size * size) { pixels[i * 4 + 3] = alpha(i) }
        return pixels
    }

    static func png(_ pixels: [UInt8], format: PixelFormat = .rgba) throws -> [UInt8] {
        try PNGWriter.encode(width: size, height: size, format: format, pixels: pixels)
    }

    @Test("an RGBA PNG is blank when every alpha is 0, whatever its colours, and not with one pixel at alpha 1")
    func rgbaTiles() throws {
        #expect(TileDecoder().isFullyTransparent(try Self.png(Self.rgba { _ in 0 })))
        #expect(!TileDecoder().isFullyTransparent(try Self.png(Self.rgba { $0 == Self.size * Self.size - 1 ? 1 : 0 })))
    }

    @Test("a palette PNG is blank when its pixels use only entries whose tRNS alpha is 0")
    func paletteTiles() throws {
        let palette = Palette(rgba: [0, 0, 0, 0, 255, 255, 255, 0, 200, 10, 10, 255])
        let clear = [UInt8]((0..<(Self.size * Self.size)).map { UInt8($0 % 2) })
        #expect(TileDecoder().isFullyTransparent(try Self.png(clear, format: .indexed(palette))))
        var one = clear
        one[Self.size * 5 + 3] = 2
        #expect(!TileDecoder().isFullyTransparent(try Self.png(one, format: .indexed(palette))))
        // Without a transparent entry nothing is decoded: every pixel shows.
        let opaque = Palette(rgba: [1, 2, 3, 255, 4, 5, 6, 255])
        #expect(!TileDecoder().isFullyTransparent(try Self.png(clear, format: .indexed(opaque))))
    }

    @Test("a JPEG, a WebP without alpha and bytes that are not an image are never blank; a WebP with alpha 0 is")
    func otherFormats() throws {
        let black = [UInt8](repeating: 0, count: Self.size * Self.size * 4)
        let jpeg = try black.withUnsafeBytes { try FrameFormat.jpeg(quality: 80).encode(rgba: $0, width: Self.size, height: Self.size, stride: Self.size * 4) }
        #expect(!TileDecoder().isFullyTransparent(jpeg))
        let clearWebP = try black.withUnsafeBytes { try FrameFormat.webpLossless.encode(rgba: $0, width: Self.size, height: Self.size, stride: Self.size * 4) }
        #expect(TileDecoder().isFullyTransparent(clearWebP))
        let shown = Self.rgba { _ in 255 }
        let opaqueWebP = try shown.withUnsafeBytes { try FrameFormat.webpLossless.encode(rgba: $0, width: Self.size, height: Self.size, stride: Self.size * 4) }
        #expect(!TileDecoder().isFullyTransparent(opaqueWebP))
        #expect(!TileDecoder().isFullyTransparent(Array("<ServiceExceptionReport/>".utf8)))
    }

    @Test("the stitcher says a frame of transparent tiles and empty cells is blank, and one with a visible pixel is not, indexed or RGBA")
    func stitchedFrames() throws {
        let layout = FrameLayout(width: 21, height: 12, originX: 3, originY: 2, shift: 0, tileSize: Self.size)
        let clear = try Self.png(Self.rgba { _ in 0 })
        var tiles = [TileContent](repeating: .png(clear), count: layout.tileCount)
        tiles[1] = .empty
        #expect(try Self.blank(layout, tiles) == [true, true])
        // The last pixel of a frame row (21 wide: an odd row) at alpha 1 shows.
        tiles[1] = .png(try Self.png(Self.rgba { $0 == Self.size * 4 + 7 ? 1 : 0 }))
        #expect(try Self.blank(layout, tiles) == [false, false])
        // One pixel inside the frame's window shows.
        tiles[1] = .empty
        tiles[0] = .png(try Self.png(Self.rgba { $0 == Self.size * 5 + 7 ? 255 : 0 }))
        #expect(try Self.blank(layout, tiles) == [false, false])
    }

    /// Whether the stitcher finds the frame blank, written in the format it plans, then as RGBA.
    static func blank(_ layout: FrameLayout, _ tiles: [TileContent]) throws -> [Bool] {
        try [Stitcher().plan(layout: layout, tiles: tiles).format, .rgba].map { format in
            let writer = try PNGWriter(path: nil, width: layout.width, height: layout.height, format: format)
            return try Stitcher().stitch(layout: layout, tiles: tiles, format: format, to: writer, tolerateBadTiles: false).blank
        }
    }
}
