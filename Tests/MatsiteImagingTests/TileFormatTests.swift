import Foundation
import MatsiteImaging
import Testing

/// JPEG and WebP tiles as Pillow, gdal2tiles and GDAL's MBTiles driver write them (see
/// Fixtures/make_fixtures.py): each frame must equal an independent mosaic (Pillow's
/// decode of the same tiles, placed and cropped) within the case's stated tolerance.
@Suite("Tile formats: JPEG and WebP beside PNG")
struct TileFormatTests {
    static let cases = [
        "pillow-jpeg", "pillow-jpeg-progressive", "pillow-webp-lossy", "pillow-webp-lossless",
        "gdal2tiles-webp", "gdal-mbtiles-jpeg", "mixed",
    ]

    @Test("a frame from real tiles equals Pillow's mosaic of them within the stated tolerance", arguments: cases)
    func mosaic(_ name: String) throws {
        let fixture = try Fixture(name)
        let (format, failures) = Stitcher().plan(layout: fixture.layout, tiles: fixture.tiles)
        #expect(failures.isEmpty, "\(failures)")
        // Photographic tiles have thousands of colours: the frame is RGBA, never a palette.
        #expect(format == .rgba)
        let frame = try fixture.stitch(format: format)
        let expected = try PNGDecoder().decode(fixture.expected, keepIndices: false)
        #expect(frame.width == expected.width && frame.height == expected.height)
        let worst = zip(frame.pixels, expected.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= fixture.tolerance, "\(name): largest channel difference \(worst), tolerance \(fixture.tolerance)")
    }

    @Test("in a mixed frame the PNG's and WebP's transparency and the empty cell stay exactly transparent")
    func mixedTransparency() throws {
        let fixture = try Fixture("mixed")
        let frame = try fixture.stitch(format: .rgba)
        let expected = try PNGDecoder().decode(fixture.expected, keepIndices: false)
        var transparent = 0
        for i in stride(from: 3, to: expected.pixels.count, by: 4) where expected.pixels[i] != 255 {
            #expect(frame.pixels[i] == expected.pixels[i])
            transparent += 1
        }
        #expect(transparent > 1000)
    }

    @Test("tiles are known by their bytes, whatever their file is called")
    func sniffing() throws {
        let folder = Fixture.root.appendingPathComponent("mixed")
        for (file, kind) in [("10_5.jpg", ImageKind.jpeg), ("11_5.png", .png), ("12_5.webp", .webp)] {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(file)))
            #expect(ImageKind.sniff(bytes) == kind)
            #expect(try TileDecoder().info(of: bytes).kind == kind)
        }
        #expect(ImageKind.sniff(Array("GIF89a".utf8)) == nil)
        let error = #expect(throws: ImageError.self) { try TileDecoder().info(of: Array("<html>".utf8)) }
        #expect(error?.reason.contains("not a PNG, JPEG or WebP") == true)
    }

    @Test("damaged JPEG and WebP tiles fail with a reason naming the damage", arguments: Damage.all)
    func damaged(_ damage: Damage) throws {
        let bytes = try damage.bytes()
        let error = #expect(throws: ImageError.self) { _ = try TileDecoder().decode(bytes, keepIndices: false) }
        let reason = error?.reason.lowercased() ?? ""
        #expect(damage.cause.contains { reason.contains($0) }, "\(damage): \(reason)")
        #expect(error?.description.hasPrefix(damage.format) == true, "\(String(describing: error))")
    }

    @Test(
        "a damaged tile fails only its own cell: named by plan or stitch, drawn transparent when tolerated",
        arguments: Damage.all)
    func damagedInFrame(_ damage: Damage) throws {
        let layout = FrameLayout(width: 128, height: 64, originX: 0, originY: 0, shift: 0, tileSize: 64)
        let good = try [UInt8](Data(contentsOf: Fixture.root.appendingPathComponent("damaged/good.jpg")))
        let tiles: [TileContent] = [.encoded(good), .encoded(try damage.bytes())]
        // As the renderer does: the plan names what it finds (headers, and tiles it decodes
        // to count colours), those cells become empty, the stitch reports the rest.
        let (format, planned) = Stitcher().plan(layout: layout, tiles: tiles)
        var cells = tiles
        for failure in planned { cells[failure.column] = .empty }
        let writer = try PNGWriter(path: nil, width: 128, height: 64, format: format)
        let report = try Stitcher().stitch(layout: layout, tiles: cells, format: format, to: writer, tolerateBadTiles: true)
        #expect(planned.map(\.column) + report.failedTiles.map(\.column) == [1], "\(planned) \(report.failedTiles)")
        let frame = try PNGDecoder().decode(#require(try writer.finish()), keepIndices: false)
        #expect(frame.pixels[(10 * 128 + 100) * 4 + 3] == 0) // the failed cell: transparent
        #expect(frame.pixels[(10 * 128 + 10) * 4 + 3] == 255) // the good JPEG: opaque
        // Stitched without the plan's word, the damaged tile throws or is reported.
        let direct = try PNGWriter(path: nil, width: 128, height: 64, format: .rgba)
        let tolerant = try Stitcher().stitch(layout: layout, tiles: tiles, format: .rgba, to: direct, tolerateBadTiles: true)
        #expect(tolerant.failedTiles.map(\.column) == [1])
        let strict = try PNGWriter(path: nil, width: 128, height: 64, format: .rgba)
        #expect(throws: UnusableTileError.self) {
            try Stitcher().stitch(layout: layout, tiles: tiles, format: .rgba, to: strict, tolerateBadTiles: false)
        }
    }
}

/// A way to damage a good JPEG or WebP fixture.
struct Damage: Sendable, CustomStringConvertible {
    let name: String
    let file: String
    let format: String
    /// Words (lowercased) one of which the reason must contain.
    let cause: [String]
    let damage: @Sendable ([UInt8]) -> [UInt8]
    var description: String { name }

    func bytes() throws -> [UInt8] {
        damage(try [UInt8](Data(contentsOf: Fixture.root.appendingPathComponent("damaged/\(file)"))))
    }

    static let all: [Damage] = [
        Damage(name: "a JPEG cut in half", file: "good.jpg", format: "JPEG", cause: ["premature", "truncated"]) {
            Array($0.prefix($0.count / 2))
        },
        Damage(name: "a JPEG whose frame header claims 30000 x 30000", file: "good.jpg", format: "JPEG", cause: ["limit"]) {
            var bytes = $0
            guard let sof = (0..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
            else { return bytes }
            for (i, byte) in [UInt8](arrayLiteral: 0x75, 0x30, 0x75, 0x30).enumerated() { bytes[sof + 5 + i] = byte }
            return bytes
        },
        Damage(
            name: "a JPEG whose frame header claims 65535 x 65535", file: "good.jpg", format: "JPEG",
            cause: ["limit", "dimension"]
        ) {
            var bytes = $0
            guard let sof = (0..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
            else { return bytes }
            for i in 5...8 { bytes[sof + i] = 0xFF }
            return bytes
        },
        Damage(name: "a CMYK JPEG", file: "cmyk.jpg", format: "JPEG", cause: ["cmyk"]) { $0 },
        Damage(
            name: "a JPEG with its scan data scrambled", file: "good.jpg", format: "JPEG",
            cause: ["corrupt", "huffman", "marker", "premature", "extraneous", "invalid"]
        ) {
            var bytes = $0
            let sos = (0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA } ?? 0
            for i in stride(from: sos + 20, to: bytes.count - 2, by: 7) { bytes[i] = 0xFF }
            return bytes
        },
        Damage(name: "a lossless WebP cut in half", file: "good-lossless.webp", format: "WebP", cause: ["truncated", "damaged"]) {
            Array($0.prefix($0.count / 2))
        },
        Damage(name: "a lossy WebP cut in half", file: "good-lossy.webp", format: "WebP", cause: ["truncated", "damaged"]) {
            Array($0.prefix($0.count / 2))
        },
        Damage(name: "a lossless WebP whose header claims 16384 x 16384", file: "good-lossless.webp", format: "WebP", cause: ["limit"]) {
            var bytes = $0
            guard bytes.count > 25, Array(bytes[12..<16]) == Array("VP8L".utf8) else { return [] }
            var word = UInt32(bytes[21]) | UInt32(bytes[22]) << 8 | UInt32(bytes[23]) << 16 | UInt32(bytes[24]) << 24
            word = (word & 0xF000_0000) | 0x3FFF | 0x3FFF << 14
            for i in 0..<4 { bytes[21 + i] = UInt8((word >> (8 * UInt32(i))) & 0xFF) }
            return bytes
        },
    ]
}

/// One fixture case: its tiles in grid order, its window and the expected mosaic.
struct Fixture {
    static let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    struct Case: Decodable {
        var tileSize: Int
        var columns: [Int]
        var rows: [Int]
        var window: [Int]
        var tolerance: Int
    }

    let layout: FrameLayout
    let tiles: [TileContent]
    let expected: [UInt8]
    let tolerance: Int

    init(_ name: String) throws {
        let folder = Self.root.appendingPathComponent(name)
        let spec = try JSONDecoder().decode(Case.self, from: Data(contentsOf: folder.appendingPathComponent("case.json")))
        layout = FrameLayout(
            width: spec.window[2], height: spec.window[3], originX: spec.window[0], originY: spec.window[1],
            shift: 0, tileSize: spec.tileSize)
        #expect(layout.columns == spec.columns[0]...spec.columns[1] && layout.rows == spec.rows[0]...spec.rows[1])
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        var tiles: [TileContent] = []
        for row in layout.rows {
            for column in layout.columns {
                let file = try #require(files.first { $0.hasPrefix("\(column)_\(row).") })
                tiles.append(
                    file.hasSuffix(".empty")
                        ? .empty
                        : .encoded(try [UInt8](Data(contentsOf: folder.appendingPathComponent(file)))))
            }
        }
        self.tiles = tiles
        expected = try [UInt8](Data(contentsOf: folder.appendingPathComponent("expected.png")))
        tolerance = spec.tolerance
    }

    /// The frame, stitched and decoded to RGBA.
    func stitch(format: PixelFormat) throws -> DecodedImage {
        let writer = try PNGWriter(path: nil, width: layout.width, height: layout.height, format: format)
        let report = try Stitcher().stitch(layout: layout, tiles: tiles, format: format, to: writer, tolerateBadTiles: false)
        #expect(report.failedTiles.isEmpty)
        return try PNGDecoder().decode(#require(try writer.finish()), keepIndices: false)
    }
}
