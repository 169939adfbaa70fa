/// Builds a small still (a poster) from a frame's rows as they stream past, by
/// nearest-neighbour sampling: it never needs the whole frame in memory.
public final class RowSampler {
    /// Poster width in pixels.
    public let width: Int
    /// Poster height in pixels.
    public let height: Int
    /// The frame's pixel layout (the poster keeps it: indexed stays indexed).
    public let format: PixelFormat
    private let sourceWidth: Int
    private let sourceHeight: Int
    private var pixels: [UInt8]

    /// A sampler for a `sourceWidth` x `sourceHeight` frame, fitting within `maxEdge`.
    public init(sourceWidth: Int, sourceHeight: Int, format: PixelFormat, maxEdge: Int = 480) {
        let scale = min(1.0, Double(maxEdge) / Double(max(sourceWidth, sourceHeight)))
        width = max(1, Int((Double(sourceWidth) * scale).rounded()))
        height = max(1, Int((Double(sourceHeight) * scale).rounded()))
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.format = format
        pixels = [UInt8](repeating: 0, count: width * height * format.bytesPerPixel)
    }

    /// Offers frame row `row` (packed pixels in the frame's format).
    public func take(row: Int, pixels source: UnsafeRawPointer) {
        let bpp = format.bytesPerPixel
        // Poster row p samples the frame row under its centre.
        var p = (row * height) / sourceHeight
        while p < height {
            let centre = ((2 * p + 1) * sourceHeight) / (2 * height)
            if centre > row { break }
            if centre == row {
                pixels.withUnsafeMutableBytes { out in
                    for x in 0..<width {
                        let sx = ((2 * x + 1) * sourceWidth) / (2 * width)
                        (out.baseAddress! + (p * width + x) * bpp).copyMemory(from: source + sx * bpp, byteCount: bpp)
                    }
                }
            }
            p += 1
        }
    }

    /// The poster as PNG bytes.
    public func encode() throws(PNGError) -> [UInt8] {
        try PNGWriter.encode(width: width, height: height, format: format, pixels: pixels, level: 9)
    }

    /// The poster in the frame's own file format: a JPEG or WebP loop gets a JPEG or WebP
    /// poster (an RGBA PNG of a photographic frame is several frames' worth of bytes, and
    /// its zlib level 9 most of a small build's CPU); a PNG loop keeps PNG.
    public func encode(as frameFormat: FrameFormat) throws(ImageError) -> [UInt8] {
        guard frameFormat != .png, format == .rgba else { return try encode() }
        let (width, height) = (self.width, self.height)
        let result: Result<[UInt8], ImageError> = pixels.withUnsafeBytes { raw in
            do throws(ImageError) {
                return .success(try frameFormat.encode(rgba: raw, width: width, height: height, stride: width * 4, level: 6))
            } catch { return .failure(error) }
        }
        return try result.get()
    }
}
