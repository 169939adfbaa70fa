import CJPEGShim

/// Decodes JPEG bytes to RGBA through libjpeg-turbo, with limits on size and work.
///
/// libjpeg's fatal errors longjmp back into the C shim, never through Swift; its warnings
/// (corrupt or truncated data, which libjpeg would paint gray) fail the decode. Gray and
/// YCbCr/RGB files decode; CMYK and YCCK files are refused with a clear reason.
public struct JPEGDecoder: Sendable {
    /// Widest image accepted.
    public var maxWidth: Int
    /// Tallest image accepted.
    public var maxHeight: Int
    /// Most progressive scans accepted (each one re-walks the whole image).
    public var maxScans: Int

    /// A decoder with limits fit for map tiles (4096 x 4096 at most).
    public init(maxWidth: Int = 4096, maxHeight: Int = 4096, maxScans: Int = 100) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxScans = maxScans
    }

    /// Reads the header only: the image's size.
    public func info(of bytes: [UInt8]) throws(ImageError) -> (width: Int, height: Int) {
        var raw = mjpeg_info()
        let probe = run(bytes, info: &raw, out: nil, capacity: 0, stride: 0)
        guard probe.code == MJPEG_NEED_BUFFER else { throw ImageError(.decode, probe.message, format: "JPEG") }
        return (Int(raw.width), Int(raw.height))
    }

    /// Reads the header only: the IJG quality (1-100) the file's luminance table matches,
    /// or nil when it has none. Frames re-encoded from such tiles need no more.
    public func quality(of bytes: [UInt8]) throws(ImageError) -> Int? {
        var raw = mjpeg_info()
        let probe = run(bytes, info: &raw, out: nil, capacity: 0, stride: 0)
        guard probe.code == MJPEG_NEED_BUFFER else { throw ImageError(.decode, probe.message, format: "JPEG") }
        return raw.quality > 0 ? Int(raw.quality) : nil
    }

    /// Decodes the whole image to RGBA.
    public func decode(_ bytes: [UInt8]) throws(ImageError) -> DecodedImage {
        let (width, height) = try info(of: bytes)
        return try DecodedImage.rgba(width: width, height: height) { buffer throws(ImageError) in
            _ = try decode(bytes, into: buffer, stride: width * 4)
        }
    }

    /// Decodes to RGBA into caller-owned memory: `height` rows of `stride` bytes.
    public func decode(
        _ bytes: [UInt8], into out: UnsafeMutableRawBufferPointer,
        stride: Int
    ) throws(ImageError) -> (width: Int, height: Int) {
        var raw = mjpeg_info()
        let outcome = run(
            bytes, info: &raw, out: out.baseAddress?.assumingMemoryBound(to: UInt8.self),
            capacity: out.count, stride: stride)
        if outcome.code == MJPEG_NEED_BUFFER {
            throw ImageError(.decode, "image is \(raw.width)x\(raw.height), larger than the space for it", format: "JPEG")
        }
        guard outcome.code == MJPEG_OK else { throw ImageError(.decode, outcome.message, format: "JPEG") }
        return (Int(raw.width), Int(raw.height))
    }
}

private extension JPEGDecoder {
    func run(
        _ bytes: [UInt8], info: inout mjpeg_info, out: UnsafeMutablePointer<UInt8>?,
        capacity: Int, stride: Int
    ) -> (code: Int32, message: String) {
        var limits = mjpeg_limits(
            max_width: UInt32(clamping: maxWidth), max_height: UInt32(clamping: maxHeight),
            max_scans: UInt32(clamping: maxScans))
        var message = [CChar](repeating: 0, count: 256)
        let code = bytes.withUnsafeBufferPointer { data in
            message.withUnsafeMutableBufferPointer { text in
                mjpeg_decode(data.baseAddress, data.count, &limits, &info, out, capacity, stride, text.baseAddress, text.count)
            }
        }
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (code, text.isEmpty ? "unknown libjpeg error" : text)
    }
}
