import CPNGShim

/// The pixel layout a PNG is written in.
public enum PixelFormat: Equatable, Sendable {
    /// One byte per pixel, an index into the palette.
    case indexed(Palette)
    /// Four bytes per pixel.
    case rgba

    /// Bytes per pixel in memory.
    public var bytesPerPixel: Int {
        switch self {
        case .indexed: 1
        case .rgba: 4
        }
    }

    /// The byte pattern of a fully transparent pixel, or nil when the palette has none.
    public var transparentPixel: [UInt8]? {
        switch self {
        case .indexed(let palette): palette.transparentIndex.map { [$0] }
        case .rgba: [0, 0, 0, 0]
        }
    }
}

/// Writes a PNG row by row through libpng, to a file or to memory.
///
/// Memory stays at one zlib window (or, at libdeflate's levels, a band of a few MiB) plus
/// the caller's rows: a frame of any height is written without holding it whole.
public final class PNGWriter {
    /// libpng's writer (zlib levels), or nil when libdeflate writes (`deflated`).
    private var writer: OpaquePointer?
    /// The libdeflate writer of a palette image at a level above zlib's (10-12).
    private var deflated: OpaquePointer?
    /// Image width in pixels.
    public let width: Int
    /// Image height in pixels.
    public let height: Int
    /// The layout rows must be given in.
    public let format: PixelFormat
    private var rowsWritten = 0
    private let level: Int
    /// Palette rows held back until the compression is chosen (nil once chosen, or for RGBA).
    private var sample: [UInt8]? = nil
    private var sampleRows = 0
    /// The settings chosen for a palette image, once chosen.
    public private(set) var paletteCompression: PaletteCompression?

    /// The highest compression level: 0-9 are zlib's; 10-12 are libdeflate's near-optimal
    /// parsing, for palette images (about 6% smaller radar frames than zlib's best, at tens
    /// of times the CPU); an RGBA image at those levels gets zlib's default, 6.
    public static let maxLevel = 12

    /// The zlib level used at `level`: its own, or 6 above zlib's range.
    static func zlibLevel(_ level: Int) -> Int { level > 9 ? 6 : level }

    /// Opens a writer. `path` nil writes to memory (read it back from `finish()`).
    /// `level` is the compression level, 0-12 (see `maxLevel`).
    ///
    /// A palette image is written at the smallest bit depth its palette allows (1, 2, 4 or
    /// 8 bits), with the filter and zlib strategy that compress its first rows best (see
    /// `PaletteCompression`): the first `PaletteCompression.sampleRows` rows are held back
    /// until then (a band of 256 rows: memory still grows with width, not area).
    public convenience init(path: String?, width: Int, height: Int, format: PixelFormat, level: Int = 6) throws(PNGError) {
        try self.init(path: path, width: width, height: height, format: format, level: level, deflateBand: 0)
    }

    /// A writer whose libdeflate levels compress at most `deflateBand` filtered bytes at a
    /// time (0: the default, 4 MiB): tests make bands small to join many.
    init(path: String?, width: Int, height: Int, format: PixelFormat, level: Int, deflateBand: Int) throws(PNGError) {
        guard width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw PNGError(.encode, "invalid image size \(width)x\(height)")
        }
        self.width = width
        self.height = height
        self.format = format
        var message = [CChar](repeating: 0, count: 256)
        let channels: Int32 = format == .rgba ? 4 : 1
        var paletteBytes: [UInt8] = []
        var paletteCount: Int32 = 0
        if case .indexed(let palette) = format {
            paletteBytes = palette.rgba
            paletteCount = Int32(palette.count)
        }
        self.level = level
        if case .indexed = format, level > 9 {
            let opened = paletteBytes.withUnsafeBufferPointer { palette in
                message.withUnsafeMutableBufferPointer { text in
                    mpng_dwriter_open(
                        path, UInt32(width), UInt32(height), palette.baseAddress, paletteCount, MPNG_FILTER_SUB, Int32(level), deflateBand,
                        text.baseAddress, text.count)
                }
            }
            guard let opened else { throw PNGError(.encode, Self.text(message)) }
            deflated = opened
            sample = []
            return
        }
        var options = mpng_write_options(level: Int32(Self.zlibLevel(level)), filters: 0, strategy: -1)
        let opened: OpaquePointer? = paletteBytes.withUnsafeBufferPointer { palette in
            message.withUnsafeMutableBufferPointer { text in
                if let path {
                    return mpng_writer_open(
                        path, UInt32(width), UInt32(height), channels, palette.baseAddress,
                        paletteCount, &options, text.baseAddress, text.count)
                }
                return mpng_writer_open(
                    nil, UInt32(width), UInt32(height), channels, palette.baseAddress,
                    paletteCount, &options, text.baseAddress, text.count)
            }
        }
        guard let opened else { throw PNGError(.encode, Self.text(message)) }
        writer = opened
        if case .indexed = format { sample = [] }
    }

    deinit {
        mpng_writer_free(writer)
        mpng_dwriter_free(deflated)
    }

    /// Writes `count` rows starting at `rows`, each `stride` bytes after the last.
    public func write(rows: UnsafeRawPointer, count: Int, stride: Int) throws(PNGError) {
        guard count > 0 else { return }
        if sample != nil {
            let rowBytes = width * format.bytesPerPixel
            guard sampleRows + count <= height else { throw PNGError(.encode, "more rows than the image height") }
            for i in 0..<count {
                sample!.append(contentsOf: UnsafeRawBufferPointer(start: rows + i * stride, count: rowBytes))
            }
            sampleRows += count
            if sampleRows >= min(PaletteCompression.sampleRows, height) { try chooseCompression() }
            return
        }
        try writeNow(rows: rows, count: count, stride: stride)
    }

    /// Writes rows held in an array (packed, `width * bytesPerPixel` bytes each).
    public func write(rows: [UInt8]) throws(PNGError) {
        let stride = width * format.bytesPerPixel
        guard rows.count % stride == 0 else { throw PNGError(.encode, "row data is not a whole number of rows") }
        let result: Result<Void, PNGError> = rows.withUnsafeBytes { raw in
            do throws(PNGError) {
                try write(rows: raw.baseAddress!, count: rows.count / stride, stride: stride)
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Ends the image. Returns the PNG's bytes for a memory writer, nil for a file.
    @discardableResult
    public func finish() throws(PNGError) -> [UInt8]? {
        if sample != nil { try chooseCompression() }
        var message = [CChar](repeating: 0, count: 256)
        let code = message.withUnsafeMutableBufferPointer { text in
            deflated.map { mpng_dwriter_finish($0, text.baseAddress, text.count) } ?? mpng_writer_finish(writer, text.baseAddress, text.count)
        }
        guard code == MPNG_OK else { throw PNGError(.encode, Self.text(message)) }
        var size = 0
        guard let bytes = deflated.map({ mpng_dwriter_bytes($0, &size) }) ?? mpng_writer_bytes(writer, &size), size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// Encoded bytes produced so far.
    public var bytesWritten: UInt64 { deflated.map(mpng_dwriter_bytes_written) ?? mpng_writer_bytes_written(writer) }

    /// Encodes a whole image held in memory.
    public static func encode(
        width: Int, height: Int, format: PixelFormat, pixels: [UInt8],
        level: Int = 6
    ) throws(PNGError) -> [UInt8] {
        let writer = try PNGWriter(path: nil, width: width, height: height, format: format, level: level)
        try writer.write(rows: pixels)
        guard let bytes = try writer.finish() else { throw PNGError(.encode, "no output") }
        return bytes
    }
}

private extension PNGWriter {
    func writeNow(rows: UnsafeRawPointer, count: Int, stride: Int) throws(PNGError) {
        var message = [CChar](repeating: 0, count: 256)
        let code = message.withUnsafeMutableBufferPointer { text in
            if let deflated {
                return mpng_dwriter_write_rows(
                    deflated, rows.assumingMemoryBound(to: UInt8.self), UInt32(count), stride, text.baseAddress, text.count)
            }
            return mpng_writer_write_rows(
                writer, rows.assumingMemoryBound(to: UInt8.self), UInt32(count), stride,
                text.baseAddress, text.count)
        }
        guard code == MPNG_OK else { throw PNGError(.encode, Self.text(message)) }
        rowsWritten += count
    }

    func writeNow(_ rows: [UInt8], count: Int) throws(PNGError) {
        let result: Result<Void, PNGError> = rows.withUnsafeBytes { raw in
            do throws(PNGError) {
                try writeNow(rows: raw.baseAddress!, count: count, stride: width)
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Compresses the held-back rows each candidate way, keeps the smallest, then writes them.
    func chooseCompression() throws(PNGError) {
        guard let rows = sample, case .indexed(let palette) = format else { return }
        sample = nil
        var best: (choice: PaletteCompression, bytes: Int)?
        if sampleRows > 0 {
            // zlib tries the filters, also for libdeflate: the same one wins, at a fraction of the CPU.
            for choice in PaletteCompression.allCases {
                let trial = try PNGWriter(path: nil, width: width, height: sampleRows, format: .indexed(palette), level: Self.zlibLevel(level))
                trial.sample = nil
                try trial.setCompression(choice)
                try trial.writeNow(rows, count: sampleRows)
                let size = try trial.finish()?.count ?? Int.max
                if best == nil || size < best!.bytes { best = (choice, size) }
            }
        }
        let choice = best?.choice ?? .subRLE
        try setCompression(choice)
        paletteCompression = choice
        if sampleRows > 0 {
            try writeNow(rows, count: sampleRows)
        }
    }

    func setCompression(_ choice: PaletteCompression) throws(PNGError) {
        var message = [CChar](repeating: 0, count: 256)
        let code = message.withUnsafeMutableBufferPointer { text in
            if let deflated { return mpng_dwriter_set_filter(deflated, choice.filters, text.baseAddress, text.count) }
            return mpng_writer_set_compression(writer, choice.filters, choice.strategy, text.baseAddress, text.count)
        }
        guard code == MPNG_OK else { throw PNGError(.encode, Self.text(message)) }
    }

    static func text(_ message: [CChar]) -> String {
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.isEmpty ? "unknown libpng error" : text
    }
}

/// How a palette frame is compressed, chosen per frame by compressing its first rows
/// both ways (measured on the anchor job's 16-colour radar frames, bench/README.md).
///
/// With a palette in the order of its levels (as radar tiles' palettes are), the Sub filter
/// turns runs of neighbouring levels into runs of small values that zlib's RLE strategy
/// codes tightly: 147 KB against 172 KB for no filter at 4 bits (frame 0 of the anchor job).
/// With colours in an order unrelated to the picture (a palette made from RGBA tiles'
/// colours), filtering scrambles the data and no filter with zlib's default matching wins.
public enum PaletteCompression: CaseIterable, Sendable {
    /// Sub filter on every row, zlib's RLE strategy.
    case subRLE
    /// No filter, zlib's default strategy.
    case noneDefault

    /// Rows compressed to choose (one band of 256-pixel tiles).
    public static let sampleRows = 256

    var filters: Int32 {
        switch self {
        case .subRLE: MPNG_FILTER_SUB
        case .noneDefault: MPNG_FILTER_NONE
        }
    }

    var strategy: Int32 {
        switch self {
        case .subRLE: MPNG_STRATEGY_RLE
        case .noneDefault: MPNG_STRATEGY_DEFAULT
        }
    }
}
