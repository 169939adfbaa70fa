import Foundation
import MatsiteImaging
import Testing

@Suite("PyramidCutter")
struct PyramidCutterTests {
    /// A frame box with odd edges everywhere, three levels (z10 2100 x 1300 down to z8).
    static let pyramid = FramePyramid(zoom: 10, x0: 1001, y0: 777, width: 2100, height: 1300)

    static func pixels(_ level: PyramidLevel, format: PixelFormat) -> [UInt8] {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(level.width * level.height * format.bytesPerPixel)
        for y in level.y0..<(level.y0 + level.height) {
            for x in level.x0..<(level.x0 + level.width) {
                switch format {
                case .rgba:
                    // Some pixels translucent or transparent, so the premultiplied average matters.
                    var p = PixelFormula.rgba(x, y)
                    p[3] = UInt8((x * 7 + y * 3) % 5 * 60)
                    pixels += p
                case .indexed(let palette): pixels.append(PixelFormula.index(x, y, count: palette.count))
                }
            }
        }
        return pixels
    }

    /// The levels the way they were made before bands: the whole frame, then `coarser()` of
    /// each whole level. Coarsest first.
    static func wholeLevels(_ frame: [UInt8], format: PixelFormat) -> [LevelImage] {
        var image = LevelImage(level: pyramid.finest, format: format, pixels: frame)
        var levels = [image]
        while levels.count < pyramid.levels.count {
            image = image.coarser()
            levels.append(image)
        }
        return levels.reversed()
    }

    static let formats: [PixelFormat] = [
        .rgba,
        .indexed(PixelFormula.palette(count: 7, transparent: 2)),
        // No transparent entry: the tiles get one appended.
        .indexed(PixelFormula.palette(count: 5)),
    ]

    @Test("bands cut from rows given in uneven batches make every level's tiles exactly as the whole-level chain does", arguments: formats)
    func bandsEqualWholeLevels(format: PixelFormat) throws {
        let frame = Self.pixels(Self.pyramid.finest, format: format)
        let whole = Self.wholeLevels(frame, format: format)
        let cutter = PyramidCutter(pyramid: Self.pyramid, format: format)
        let stride = Self.pyramid.finest.width * format.bytesPerPixel
        var bands: [LevelImage] = []
        var row = 0
        // 37 rows at a time: batches straddle band boundaries.
        while cutter.rowsToCome > 0 {
            let count = min(37, cutter.rowsToCome)
            try frame.withUnsafeBytes { try cutter.take(rows: $0.baseAddress! + row * stride, count: count, stride: stride) }
            row += count
            bands += cutter.drain()
        }
        #expect(row == Self.pyramid.finest.height)
        for (depth, level) in Self.pyramid.levels.enumerated() {
            let mine = bands.filter { $0.level.zoom == level.zoom }
            // One band per row of tiles, in order, together covering the level's rows.
            #expect(mine.map { $0.level.y0 / 256 } == Array(level.tileRows))
            #expect(mine.map(\.level.height).reduce(0, +) == level.height)
            for band in mine {
                #expect(band.level.x0 == level.x0 && band.level.width == level.width)
                for column in level.tileColumns {
                    let tileRow = band.level.y0 / 256
                    #expect(band.tile(column: column, row: tileRow) == whole[depth].tile(column: column, row: tileRow))
                }
            }
        }
    }

    @Test("a band's encoded tile is byte for byte the whole level's")
    func encodedTilesIdentical() throws {
        let format = PixelFormat.indexed(PixelFormula.palette(count: 16, transparent: 0))
        let frame = Self.pixels(Self.pyramid.finest, format: format)
        let whole = Self.wholeLevels(frame, format: format)
        let cutter = PyramidCutter(pyramid: Self.pyramid, format: format)
        let stride = Self.pyramid.finest.width
        try frame.withUnsafeBytes { try cutter.take(rows: $0.baseAddress!, count: Self.pyramid.finest.height, stride: stride) }
        let bands = cutter.drain()
        #expect(cutter.rowsToCome == 0)
        for band in bands {
            let depth = band.level.zoom - Self.pyramid.minZoom
            let column = band.level.tileColumns.lowerBound, row = band.level.y0 / 256
            let mine = try band.encodeTile(column: column, row: row, compressionLevel: 6, to: nil)
            let theirs = try whole[depth].encodeTile(column: column, row: row, compressionLevel: 6, to: nil)
            #expect(mine == theirs)
        }
    }

    @Test("more rows than the frame has is an error")
    func tooManyRows() throws {
        let pyramid = FramePyramid(zoom: 3, x0: 10, y0: 10, width: 4, height: 3)
        let cutter = PyramidCutter(pyramid: pyramid, format: .rgba)
        let rows = [UInt8](repeating: 9, count: 4 * 4 * 4)
        #expect(throws: ImageError.self) { try rows.withUnsafeBytes { try cutter.take(rows: $0.baseAddress!, count: 4, stride: 16) } }
        try rows.withUnsafeBytes { try cutter.take(rows: $0.baseAddress!, count: 3, stride: 16) }
        #expect(cutter.drain().count == 1)
    }

    @Test("FrameRows reads a PNG file row by row into the same bands as the pixels it was written from", arguments: [false, true])
    func rowsFromFile(rgba: Bool) throws {
        let format: PixelFormat = rgba ? .rgba : .indexed(PixelFormula.palette(count: 9, transparent: 0))
        let level = Self.pyramid.finest
        let frame = Self.pixels(level, format: format)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-rows-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try PNGWriter(path: path, width: level.width, height: level.height, format: format)
        try writer.write(rows: frame)
        try writer.finish()

        let rows = try FrameRows(png: path, width: level.width, height: level.height)
        #expect(rows.format == format)
        let cutter = PyramidCutter(pyramid: Self.pyramid, format: rows.format)
        var bands: [LevelImage] = []
        while cutter.rowsToCome > 0 {
            try rows.read(cutter.rowsToNextBand, into: cutter)
            bands += cutter.drain()
        }
        let whole = Self.wholeLevels(frame, format: format)
        for band in bands {
            let depth = band.level.zoom - Self.pyramid.minZoom
            for column in band.level.tileColumns {
                #expect(band.tile(column: column, row: band.level.y0 / 256) == whole[depth].tile(column: column, row: band.level.y0 / 256))
            }
        }
        #expect(bands.count == Self.pyramid.levels.reduce(0) { $0 + $1.tileRows.count })

        let wrong = #expect(throws: ImageError.self) { try FrameRows(png: path, width: level.width, height: level.height + 1) }
        #expect(wrong?.reason.contains("expected \(level.width)x\(level.height + 1)") == true)
    }

    @Test("the row reader refuses interlaced and damaged files with libpng's reason")
    func readerErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-rows-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = (0..<8).map { y in (0..<8).map { x in [x * 30, y * 30, 9, 255] } }
        var image = HandmadePNG(width: 8, height: 8, colorType: .rgba, bitDepth: 8, samples: samples)
        image.interlaced = true
        let interlaced = folder.appendingPathComponent("interlaced.png").path
        FileManager.default.createFile(atPath: interlaced, contents: Data(image.encode()))
        let refused = #expect(throws: ImageError.self) { try PNGRowReader(path: interlaced, keepIndices: false) }
        #expect(refused?.reason.contains("interlaced") == true)

        image.interlaced = false
        let whole = image.encode()
        let truncated = folder.appendingPathComponent("truncated.png").path
        FileManager.default.createFile(atPath: truncated, contents: Data(whole.prefix(whole.count - 40)))
        let reader = try PNGRowReader(path: truncated, keepIndices: false)
        var rows = [UInt8](repeating: 0, count: 8 * 8 * 4)
        let failed = #expect(throws: ImageError.self) {
            try rows.withUnsafeMutableBytes { try reader.read(into: $0.baseAddress!, count: 8, stride: 32) }
        }
        #expect(failed?.reason.isEmpty == false)

        let missing = #expect(throws: ImageError.self) { try PNGRowReader(path: folder.appendingPathComponent("none.png").path, keepIndices: false) }
        #expect(missing?.reason.contains("none.png") == true)
    }
}
