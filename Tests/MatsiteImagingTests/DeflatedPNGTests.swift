import CDeflate
import Foundation
import Testing

@testable import MatsiteImaging

/// Palette PNGs at libdeflate's levels (10-12): bands compressed apart and joined into one
/// zlib stream, read back by libpng (which checks every CRC and the stream's Adler-32).
@Suite("DeflatedPNG")
struct DeflatedPNGTests {
    /// Radar-like indices: runs of levels with noise where they meet, so both filters and
    /// every kind of deflate block turn up.
    static func indices(width: Int, height: Int, count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height)
        var seed: UInt32 = 12345
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_103_515_245 &+ 12345
                let level = (x / 37 + y / 23) % count
                out[y * width + x] = UInt8((seed >> 16) % 7 == 0 ? (level + 1) % count : level)
            }
        }
        return out
    }

    @Test(
        "every bit depth, written in bands of a few rows and joined, decodes to the same indices and palette",
        arguments: [(2, 301), (4, 77), (16, 1001), (200, 513)])
    func bandsJoin(colors: Int, width: Int) throws {
        let palette = PixelFormula.palette(count: colors, transparent: 0)
        let height = 97
        let pixels = Self.indices(width: width, height: height, count: colors)
        // Bands of about three rows: dozens of joins, each ending at another bit.
        let writer = try PNGWriter(path: nil, width: width, height: height, format: .indexed(palette), level: 11, deflateBand: 3 * width + 5)
        try writer.write(rows: Array(pixels.prefix(width * 40)))
        try writer.write(rows: Array(pixels.dropFirst(width * 40)))
        let bytes = try #require(try writer.finish())
        #expect(writer.bytesWritten == UInt64(bytes.count))
        let info = try PNGDecoder().info(of: bytes)
        #expect(info.bitDepth == (colors <= 2 ? 1 : colors <= 4 ? 2 : colors <= 16 ? 4 : 8) && info.colorType == 3)
        let decoded = try PNGDecoder().decode(bytes, keepIndices: true)
        #expect(decoded.palette == palette)
        #expect(decoded.pixels == pixels)
    }

    @Test("the default band holds a radar frame whole; at level 11 it is smaller than zlib's and the same picture")
    func smallerThanZlib() throws {
        let palette = PixelFormula.palette(count: 16, transparent: 0)
        let (width, height) = (640, 480)
        let pixels = Self.indices(width: width, height: height, count: 16)
        let zlib = try PNGWriter.encode(width: width, height: height, format: .indexed(palette), pixels: pixels, level: 6)
        let deflated = try PNGWriter.encode(width: width, height: height, format: .indexed(palette), pixels: pixels, level: 11)
        #expect(deflated.count < zlib.count)
        #expect(try PNGDecoder().decode(deflated, keepIndices: true).pixels == pixels)
    }

    @Test(
        "a row of index 0 only is written unfiltered, so its zeros continue the run before it; other rows keep Sub",
        arguments: [10, 11])
    func blankRowsUnfiltered(level: Int) throws {
        let palette = PixelFormula.palette(count: 16, transparent: 0)
        let (width, height) = (301, 60)
        var pixels = Self.indices(width: width, height: height, count: 16)
        let blank = Set(0..<4).union(20..<31).union([59])
        for y in blank { pixels.replaceSubrange(y * width..<(y + 1) * width, with: repeatElement(0, count: width)) }
        // Bands of about five rows, so blank rows also begin and end bands.
        let writer = try PNGWriter(path: nil, width: width, height: height, format: .indexed(palette), level: level, deflateBand: 5 * 152)
        try writer.write(rows: pixels)
        let bytes = try #require(try writer.finish())
        #expect(try PNGDecoder().decode(bytes, keepIndices: true).pixels == pixels)
        let rowBytes = (width * 4 + 7) / 8
        let filtered = try #require(Self.inflatedImageData(bytes, size: (rowBytes + 1) * height))
        let filters = (0..<height).map { filtered[$0 * (rowBytes + 1)] }
        #expect(filters == (0..<height).map { blank.contains($0) ? 0 : 1 })
    }

    /// The PNG's IDAT chunks joined and inflated (libdeflate checks the Adler-32), or nil
    /// when they do not inflate to exactly `size` bytes.
    static func inflatedImageData(_ png: [UInt8], size: Int) -> [UInt8]? {
        var stream: [UInt8] = []
        var at = 8
        while at + 8 <= png.count {
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            if png[at + 4..<at + 8].elementsEqual("IDAT".utf8) { stream += png[at + 8..<at + 8 + length] }
            at += 12 + length
        }
        var out = [UInt8](repeating: 0, count: size)
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        let result = stream.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, output.baseAddress, output.count, nil)
            }
        }
        return result == LIBDEFLATE_SUCCESS ? out : nil
    }

    @Test("a file written at level 11 is a PNG at its path; RGBA at level 11 is zlib's")
    func toFileAndRGBA() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-deflated-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let palette = PixelFormula.palette(count: 5)
        let pixels = Self.indices(width: 33, height: 9, count: 5)
        let writer = try PNGWriter(path: path, width: 33, height: 9, format: .indexed(palette), level: 11)
        try writer.write(rows: pixels)
        #expect(try writer.finish() == nil)
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        #expect(writer.bytesWritten == UInt64(bytes.count))
        #expect(try PNGDecoder().decode(bytes, keepIndices: true).pixels == pixels)
        let rgba: [UInt8] = (0..<(7 * 3)).flatMap { i -> [UInt8] in [UInt8(i), 9, 200, 255] }
        #expect(
            try PNGWriter.encode(width: 7, height: 3, format: .rgba, pixels: rgba, level: 11)
                == PNGWriter.encode(width: 7, height: 3, format: .rgba, pixels: rgba, level: 6))
        // Too few rows is an error, as with zlib.
        let short = try PNGWriter(path: nil, width: 4, height: 2, format: .indexed(palette), level: 11)
        try short.write(rows: [1, 2, 3, 4])
        #expect(throws: PNGError.self) { try short.finish() }
    }
}
