import MatsiteImaging
import Testing

@Suite("ImageSheet")
struct ImageSheetTests {
    static let width = 7, height = 5

    /// A palette PNG whose indices follow `seed` (every index of `palette` used).
    static func indexed(_ seed: Int, palette: Palette) throws -> [UInt8] {
        let pixels = (0..<(width * height)).map { UInt8(($0 * 3 + seed) % palette.count) }
        return try PNGWriter.encode(width: width, height: height, format: .indexed(palette), pixels: pixels, level: 6)
    }

    static let palette = Palette(rgba: [0, 0, 0, 0, 30, 144, 255, 255, 250, 200, 0, 255, 220, 20, 60, 128])

    @Test("cells of one palette stay indexed, in order, each the image's indices")
    func indexedCells() throws {
        let cells = try (0..<4).map { try Self.indexed($0, palette: Self.palette) }
        let sheet = try ImageSheet.stack(cells, width: Self.width, height: Self.height, level: 9)
        let decoded = try PNGDecoder(maxWidth: 64, maxHeight: 64).decode(sheet, keepIndices: true)
        #expect(decoded.width == Self.width && decoded.height == Self.height * 4)
        #expect(decoded.palette == Self.palette)
        for (k, cell) in cells.enumerated() {
            let own = try PNGDecoder(maxWidth: 64, maxHeight: 64).decode(cell, keepIndices: true).pixels
            let rows = Array(decoded.pixels[(k * Self.width * Self.height)..<((k + 1) * Self.width * Self.height)])
            #expect(rows == own, "cell \(k)")
        }
    }

    @Test("cells of different palettes, or RGBA, make an RGBA sheet with each cell's pixels")
    func mixedCells() throws {
        let other = Palette(rgba: [0, 0, 0, 0, 1, 2, 3, 255, 90, 90, 90, 200])
        let rgbaPixels = (0..<(Self.width * Self.height * 4)).map { UInt8(($0 * 37) % 256) }
        let rgba = try PNGWriter.encode(width: Self.width, height: Self.height, format: .rgba, pixels: rgbaPixels, level: 6)
        let cells = [try Self.indexed(1, palette: Self.palette), try Self.indexed(2, palette: other), rgba]
        let sheet = try ImageSheet.stack(cells, width: Self.width, height: Self.height, level: 6)
        let decoder = PNGDecoder(maxWidth: 64, maxHeight: 64)
        let decoded = try decoder.decode(sheet, keepIndices: true)
        #expect(decoded.palette == nil && decoded.height == Self.height * 3)
        let cell = Self.width * Self.height * 4
        for (k, bytes) in cells.enumerated() {
            let own = try decoder.decode(bytes, keepIndices: false).pixels
            #expect(Array(decoded.pixels[(k * cell)..<((k + 1) * cell)]) == own, "cell \(k)")
        }
    }

    @Test("an image of another size is refused, naming which")
    func wrongSize() throws {
        let small = try PNGWriter.encode(width: 3, height: 3, format: .indexed(Self.palette), pixels: [UInt8](repeating: 1, count: 9), level: 6)
        let cells = [try Self.indexed(0, palette: Self.palette), small]
        #expect {
            _ = try ImageSheet.stack(cells, width: Self.width, height: Self.height, level: 6)
        } throws: { error in
            "\(error)".contains("image 2 of the sheet is 3 x 3, not 7 x 5")
        }
        #expect(throws: ImageError.self) { _ = try ImageSheet.stack([], width: 1, height: 1, level: 6) }
    }
}
