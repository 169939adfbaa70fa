import CWebPShim

/// Decodes still WebP bytes (lossy or lossless, with or without alpha) to RGBA through
/// libwebp, refusing images over the size limits before any pixel memory is used.
public struct WebPDecoder: Sendable {
    /// Widest image accepted.
    public var maxWidth: Int
    /// Tallest image accepted.
    public var maxHeight: Int

    /// A decoder with limits fit for map tiles (4096 x 4096 at most).
    public init(maxWidth: Int = 4096, maxHeight: Int = 4096) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// Reads the header only: the image's size and whether it has an alpha channel.
    public func info(of bytes: [UInt8]) throws(ImageError) -> (width: Int, height: Int, hasAlpha: Bool) {
        var raw = mwebp_info()
        let probe = run(bytes, info: &raw, out: nil, capacity: 0, stride: 0)
        guard probe.code == MWEBP_NEED_BUFFER else { throw ImageError(.decode, probe.message, format: "WebP") }
        return (Int(raw.width), Int(raw.height), raw.has_alpha != 0)
    }

    /// Reads the header only: true for lossy (VP8) data, false for lossless (VP8L). A frame
    /// made of lossy tiles may be written lossy without losing what the tiles kept.
    public func isLossy(_ bytes: [UInt8]) throws(ImageError) -> Bool {
        var raw = mwebp_info()
        let probe = run(bytes, info: &raw, out: nil, capacity: 0, stride: 0)
        guard probe.code == MWEBP_NEED_BUFFER else { throw ImageError(.decode, probe.message, format: "WebP") }
        return raw.lossless == 0
    }

    /// Decodes the whole image to RGBA (not premultiplied).
    public func decode(_ bytes: [UInt8]) throws(ImageError) -> DecodedImage {
        let (width, height, _) = try info(of: bytes)
        return try DecodedImage.rgba(width: width, height: height) { buffer throws(ImageError) in
            _ = try decode(bytes, into: buffer, stride: width * 4)
        }
    }

    /// Decodes to RGBA into caller-owned memory: `height` rows of `stride` bytes.
    public func decode(
        _ bytes: [UInt8], into out: UnsafeMutableRawBufferPointer,
        stride: Int
    ) throws(ImageError) -> (width: Int, height: Int) {
        var raw = mwebp_info()
        let outcome = run(
            bytes, info: &raw, out: out.baseAddress?.assumingMemoryBound(to: UInt8.self),
            capacity: out.count, stride: stride)
        if outcome.code == MWEBP_NEED_BUFFER {
            throw ImageError(.decode, "image is \(raw.width)x\(raw.height), larger than the space for it", format: "WebP")
        }
        guard outcome.code == MWEBP_OK else { throw ImageError(.decode, outcome.message, format: "WebP") }
        return (Int(raw.width), Int(raw.height))
    }
}

private extension WebPDecoder {
    func run(
        _ bytes: [UInt8], info: inout mwebp_info, out: UnsafeMutablePointer<UInt8>?,
        capacity: Int, stride: Int
    ) -> (code: Int32, message: String) {
        var limits = mwebp_limits(max_width: UInt32(clamping: maxWidth), max_height: UInt32(clamping: maxHeight))
        var message = [CChar](repeating: 0, count: 256)
        let code = bytes.withUnsafeBufferPointer { data in
            message.withUnsafeMutableBufferPointer { text in
                mwebp_decode(data.baseAddress, data.count, &limits, &info, out, capacity, stride, text.baseAddress, text.count)
            }
        }
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (code, text.isEmpty ? "unknown libwebp error" : text)
    }
}

/// Encodes RGBA pixels as lossless WebP (exact: transparent pixels keep their colour), to
/// measure what WebP frames would weigh beside PNG ones.
public enum WebPLosslessEncoder {
    /// The WebP bytes of a `width` x `height` RGBA image with rows `stride` bytes apart.
    /// `effort` is libwebp's lossless preset, 0 (fast) to 9 (smallest).
    public static func encode(
        rgba: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int,
        effort: Int = 6
    ) throws(ImageError) -> [UInt8] {
        guard width > 0, height > 0, width <= 16383, height <= 16383, stride >= width * 4,
            rgba.count >= stride * (height - 1) + width * 4
        else {
            throw ImageError(.encode, "invalid image size \(width)x\(height) for WebP", format: "WebP")
        }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let code = message.withUnsafeMutableBufferPointer { text in
            mwebp_encode_lossless(
                rgba.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height),
                stride, Int32(effort), &out, &size, text.baseAddress, text.count)
        }
        defer { mwebp_free(out) }
        guard code == MWEBP_OK, let out else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageError(.encode, text.isEmpty ? "unknown libwebp error" : text, format: "WebP")
        }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
