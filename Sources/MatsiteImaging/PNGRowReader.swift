import CPNGShim

/// Reads a PNG file a few rows at a time through libpng: memory is one row and zlib's
/// window, whatever the image's height (the whole-image decoders hold every row).
///
/// Limits and strictness are `PNGDecoder`'s: a CRC error or any libpng warning fails the
/// read, and after the last row the rest of the file is checked too.
public final class PNGRowReader {
    private var reader: OpaquePointer?
    /// The header facts (and palette).
    public let info: PNGInfo
    /// What the rows hold: the palette's indices (asked for, and a palette image), else RGBA.
    public let format: PixelFormat
    /// Rows read so far.
    public private(set) var rowsRead = 0

    /// Opens `path`. With `keepIndices`, a palette image's rows are its indices (1 byte a
    /// pixel); every other image's rows are RGBA. An interlaced PNG is refused.
    public init(path: String, keepIndices: Bool, limits: PNGDecoder = PNGDecoder()) throws(PNGError) {
        var raw = mpng_info()
        var limit = mpng_limits(
            max_width: UInt32(clamping: limits.maxWidth), max_height: UInt32(clamping: limits.maxHeight),
            max_chunk_bytes: limits.maxChunkBytes)
        var message = [CChar](repeating: 0, count: 256)
        let opened = message.withUnsafeMutableBufferPointer { text in
            mpng_reader_open(path, keepIndices ? 1 : 0, &limit, &raw, text.baseAddress, text.count)
        }
        guard let opened else { throw PNGError(.decode, Self.text(message)) }
        reader = opened
        var palette: Palette?
        if raw.palette_size > 0 {
            palette = Palette(rgba: withUnsafeBytes(of: raw.palette) { Array($0.prefix(Int(raw.palette_size) * 4)) })
        }
        info = PNGInfo(
            width: Int(raw.width), height: Int(raw.height), bitDepth: Int(raw.bit_depth), colorType: Int(raw.color_type),
            interlaced: false, palette: palette)
        format = raw.channels == 1 ? .indexed(palette ?? Palette(rgba: [0, 0, 0, 0])) : .rgba
    }

    deinit { mpng_reader_free(reader) }

    /// Reads the next `count` rows into `out`, `stride` bytes apart (at least `width *
    /// format.bytesPerPixel`).
    public func read(into out: UnsafeMutableRawPointer, count: Int, stride: Int) throws(PNGError) {
        guard count > 0 else { return }
        guard stride >= info.width * format.bytesPerPixel else { throw PNGError(.decode, "row stride \(stride) is shorter than a row") }
        var message = [CChar](repeating: 0, count: 256)
        let code = message.withUnsafeMutableBufferPointer { text in
            mpng_reader_read_rows(reader, out.assumingMemoryBound(to: UInt8.self), UInt32(count), stride, text.baseAddress, text.count)
        }
        guard code == MPNG_OK else { throw PNGError(.decode, Self.text(message)) }
        rowsRead += count
    }

    private static func text(_ message: [CChar]) -> String {
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.isEmpty ? "unknown libpng error" : text
    }
}
