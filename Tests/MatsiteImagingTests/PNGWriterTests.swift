import Foundation
import MatsiteImaging
import Testing

@Suite("PNGWriter")
struct PNGWriterTests {
    @Test("RGBA written in several row batches decodes to the same bytes")
    func rgbaRoundTrip() throws {
        let width = 17, height = 9
        var pixels: [UInt8] = []
        for i in 0..<(width * height) { pixels += [UInt8(i % 256), UInt8(i * 7 % 256), UInt8(i * 13 % 256), UInt8(i * 31 % 256)] }
        let writer = try PNGWriter(path: nil, width: width, height: height, format: .rgba)
        try writer.write(rows: Array(pixels.prefix(width * 4 * 4)))
        try writer.write(rows: Array(pixels.dropFirst(width * 4 * 4)))
        let bytes = try #require(try writer.finish())
        let info = try PNGDecoder().info(of: bytes)
        #expect(info.colorType == 6 && info.bitDepth == 8 && info.width == width && info.height == height)
        #expect(try PNGDecoder().decode(bytes, keepIndices: false).pixels == pixels)
    }

    @Test("an indexed PNG keeps its palette, with alpha for translucent entries anywhere in it")
    func indexedRoundTrip() throws {
        // The translucent entry sits in the middle: tRNS must cover it and the opaque one after stays opaque.
        let palette = Palette(rgba: [10, 20, 30, 255, 40, 50, 60, 0, 70, 80, 90, 128, 100, 110, 120, 255])
        let pixels = (0..<30).map { UInt8($0 % 4) }
        let bytes = try PNGWriter.encode(width: 6, height: 5, format: .indexed(palette), pixels: pixels)
        let decoded = try PNGDecoder().decode(bytes, keepIndices: true)
        #expect(decoded.palette == palette)
        #expect(decoded.pixels == pixels)
        let rgba = try PNGDecoder().decode(bytes, keepIndices: false).pixels
        #expect(Array(rgba[4..<8]) == [40, 50, 60, 0])
        #expect(Array(rgba[12..<16]) == [100, 110, 120, 255])
    }

    @Test("a file writer writes a PNG at its path")
    func toFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-writer-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try PNGWriter(path: path, width: 2, height: 2, format: .rgba)
        try writer.write(rows: [UInt8](repeating: 200, count: 16))
        #expect(try writer.finish() == nil)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(try PNGDecoder().decode([UInt8](bytes), keepIndices: false).pixels == [UInt8](repeating: 200, count: 16))
        #expect(writer.bytesWritten == UInt64(bytes.count))
    }

    @Test("misuse is an error, not a broken file: zero size, extra rows, missing rows, no folder")
    func misuse() throws {
        #expect(throws: PNGError.self) { try PNGWriter(path: nil, width: 0, height: 4, format: .rgba) }
        let writer = try PNGWriter(path: nil, width: 1, height: 1, format: .rgba)
        try writer.write(rows: [1, 2, 3, 4])
        #expect(throws: PNGError.self) { try writer.write(rows: [1, 2, 3, 4]) }
        let short = try PNGWriter(path: nil, width: 1, height: 2, format: .rgba)
        try short.write(rows: [1, 2, 3, 4])
        #expect(throws: PNGError.self) { try short.finish() }
        let error = #expect(throws: PNGError.self) {
            try PNGWriter(path: "/nonexistent-matsite-folder/x.png", width: 1, height: 1, format: .rgba)
        }
        #expect(error?.operation == .encode)
        #expect(error?.reason.contains("/nonexistent-matsite-folder/x.png") == true)
    }
}
