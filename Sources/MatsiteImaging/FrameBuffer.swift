/// Where a stitch writes its rows, top to bottom: a `PNGWriter` streaming to a file, or a
/// `FrameBuffer` holding the whole frame for an encoder that needs it (JPEG, WebP).
public protocol RowSink: AnyObject {
    /// Takes `count` rows starting at `rows`, each `stride` bytes after the last.
    func write(rows: UnsafeRawPointer, count: Int, stride: Int) throws(ImageError)
}

extension PNGWriter: RowSink {}

/// A whole RGBA frame in memory, filled row by row by a stitch, then encoded at once
/// (`FrameFormat.encode`). Memory is the frame's area: used only for the lossy formats.
public final class FrameBuffer: RowSink {
    /// Pixels across.
    public let width: Int
    /// Pixels down.
    public let height: Int
    /// RGBA, `width * 4` bytes a row.
    public private(set) var pixels: [UInt8]
    /// Rows written so far.
    public private(set) var rowsWritten = 0

    /// An empty (transparent) `width` x `height` frame.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    public func write(rows: UnsafeRawPointer, count: Int, stride: Int) throws(ImageError) {
        guard rowsWritten + count <= height else { throw ImageError(.encode, "more rows than the image height", format: "frame") }
        let rowBytes = width * 4
        let start = rowsWritten
        pixels.withUnsafeMutableBytes { out in
            for i in 0..<count {
                (out.baseAddress! + (start + i) * rowBytes).copyMemory(from: rows + i * stride, byteCount: rowBytes)
            }
        }
        rowsWritten += count
    }

    /// True when every pixel is fully opaque (so JPEG, which has no alpha, can hold it).
    public var isOpaque: Bool {
        pixels.withUnsafeBytes { FrameFormatChoice.isOpaque(rgba: $0, width: width, height: height, stride: width * 4) }
    }

    /// The frame encoded in `format`.
    public func encode(_ format: FrameFormat, level: Int = 6) throws(ImageError) -> [UInt8] {
        guard rowsWritten == height else { throw ImageError(.encode, "frame has \(rowsWritten) of \(height) rows", format: "frame") }
        let (width, height) = (self.width, self.height)
        let result: Result<[UInt8], ImageError> = pixels.withUnsafeBytes { raw in
            do throws(ImageError) {
                return .success(try format.encode(rgba: raw, width: width, height: height, stride: width * 4, level: level))
            } catch { return .failure(error) }
        }
        return try result.get()
    }
}
