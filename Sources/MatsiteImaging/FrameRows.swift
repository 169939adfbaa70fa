/// A published frame file's rows, read top to bottom a band at a time to cut its levels
/// (`PyramidCutter`).
///
/// A PNG frame is read row by row (`PNGRowReader`): memory is a band, whatever the frame's
/// height. A JPEG or WebP frame is decoded whole (neither library hands out rows as they
/// are decoded), as its stitch held it whole to encode it.
public final class FrameRows {
    /// Pixels across.
    public let width: Int
    /// Pixels down.
    public let height: Int
    /// Palette indices (a palette PNG) or RGBA.
    public let format: PixelFormat
    private let source: Source
    /// Rows handed out so far.
    public private(set) var rowsRead = 0

    private enum Source {
        case png(PNGRowReader)
        case decoded([UInt8])
    }

    /// Reads the PNG file at `path` row by row; it must be `width` x `height` pixels.
    public init(png path: String, width: Int, height: Int) throws(ImageError) {
        let reader = try PNGRowReader(path: path, keepIndices: true, limits: PNGDecoder(maxWidth: width, maxHeight: height))
        source = .png(reader)
        format = reader.format
        (self.width, self.height) = (reader.info.width, reader.info.height)
        try check(width: width, height: height, what: path)
    }

    /// Decodes a JPEG or WebP frame's `bytes` whole; it must be `width` x `height` pixels.
    public init(decoding bytes: [UInt8], width: Int, height: Int, what: String) throws(ImageError) {
        let decoded = try TileDecoder(maxWidth: width, maxHeight: height).decode(bytes, keepIndices: true)
        source = .decoded(decoded.pixels)
        format = decoded.palette.map(PixelFormat.indexed) ?? .rgba
        (self.width, self.height) = (decoded.width, decoded.height)
        try check(width: width, height: height, what: what)
    }

    /// Reads the next `count` rows into `cutter`.
    public func read(_ count: Int, into cutter: PyramidCutter) throws(ImageError) {
        let stride = width * format.bytesPerPixel
        let count = min(count, height - rowsRead)
        guard count > 0 else { return }
        switch source {
        case .png(let reader):
            var band = [UInt8](repeating: 0, count: count * stride)
            let result: Result<Void, ImageError> = band.withUnsafeMutableBytes { buffer in
                do throws(ImageError) {
                    try reader.read(into: buffer.baseAddress!, count: count, stride: stride)
                    try cutter.take(rows: buffer.baseAddress!, count: count, stride: stride)
                    return .success(())
                } catch { return .failure(error) }
            }
            try result.get()
        case .decoded(let pixels):
            let result: Result<Void, ImageError> = pixels.withUnsafeBytes { buffer in
                do throws(ImageError) {
                    try cutter.take(rows: buffer.baseAddress! + rowsRead * stride, count: count, stride: stride)
                    return .success(())
                } catch { return .failure(error) }
            }
            try result.get()
        }
        rowsRead += count
    }
}

private extension FrameRows {
    func check(width: Int, height: Int, what: String) throws(ImageError) {
        guard self.width == width, self.height == height else {
            throw ImageError(.decode, "\(what) is \(self.width)x\(self.height) pixels, expected \(width)x\(height)", format: "frame")
        }
    }
}
