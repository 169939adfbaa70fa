import CPNGShim

/// The header facts of a PNG, read without decoding its pixels.
public struct PNGInfo: Equatable, Sendable {
    /// Pixels across.
    public let width: Int
    /// Pixels down.
    public let height: Int
    /// Bits per sample as stored.
    public let bitDepth: Int
    /// PNG colour type (0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA).
    public let colorType: Int
    /// Adam7 interlacing.
    public let interlaced: Bool
    /// The palette with tRNS alpha, for colour type 3.
    public let palette: Palette?
}

/// Decoded pixels: palette indices (1 byte per pixel) or RGBA (4 bytes per pixel).
public struct DecodedImage: Sendable {
    /// Pixels across.
    public let width: Int
    /// Pixels down.
    public let height: Int
    /// Palette when the pixels are indices; nil for RGBA.
    public let palette: Palette?
    /// Row-major pixel bytes, rows packed.
    public let pixels: [UInt8]

    /// Bytes per pixel: 1 for indices, 4 for RGBA.
    public var bytesPerPixel: Int { palette == nil ? 4 : 1 }

    /// An RGBA image whose rows (`width * 4` bytes each) `fill` writes: the whole-image
    /// decode of the decoders that write into caller-owned memory (JPEG, WebP).
    static func rgba(
        width: Int, height: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(ImageError) -> Void
    ) throws(ImageError) -> DecodedImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        // withUnsafeMutableBytes rethrows untyped errors: carry the typed one out as a Result.
        let result: Result<Void, ImageError> = pixels.withUnsafeMutableBytes { buffer in
            do throws(ImageError) {
                try fill(buffer)
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
        return DecodedImage(width: width, height: height, palette: nil, pixels: pixels)
    }
}

/// Decodes PNG bytes through libpng with limits on size and chunk memory.
///
/// Every decode runs with `png_set_user_limits` and a chunk allocation cap, treats CRC
/// errors and libpng warnings as failures, and never lets libpng's longjmp reach Swift.
public struct PNGDecoder: Sendable {
    /// Widest image accepted.
    public var maxWidth: Int
    /// Tallest image accepted.
    public var maxHeight: Int
    /// Largest ancillary chunk buffered (protects against compressed-text bombs).
    public var maxChunkBytes: Int

    /// A decoder with limits fit for map tiles (4096 x 4096 at most).
    public init(maxWidth: Int = 4096, maxHeight: Int = 4096, maxChunkBytes: Int = 1 << 20) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxChunkBytes = maxChunkBytes
    }

    /// Reads the header and palette only.
    public func info(of bytes: [UInt8]) throws(PNGError) -> PNGInfo {
        var raw = mpng_info()
        let probe = run(bytes, wantIndexed: true, info: &raw, out: nil, capacity: 0, stride: 0)
        guard probe.code == MPNG_NEED_BUFFER else { throw PNGError(.decode, probe.message) }
        return Self.publicInfo(raw)
    }

    /// Decodes the whole image. With `keepIndices`, a palette image stays indexed.
    public func decode(_ bytes: [UInt8], keepIndices: Bool) throws(PNGError) -> DecodedImage {
        var raw = mpng_info()
        let probe = run(bytes, wantIndexed: keepIndices, info: &raw, out: nil, capacity: 0, stride: 0)
        guard probe.code == MPNG_NEED_BUFFER else { throw PNGError(.decode, probe.message) }
        let channels = Int(raw.channels)
        let stride = Int(raw.width) * channels
        var pixels = [UInt8](repeating: 0, count: stride * Int(raw.height))
        let outcome = pixels.withUnsafeMutableBufferPointer { buffer in
            run(bytes, wantIndexed: keepIndices, info: &raw, out: buffer.baseAddress, capacity: buffer.count, stride: stride)
        }
        guard outcome.code == MPNG_OK else { throw PNGError(.decode, outcome.message) }
        let info = Self.publicInfo(raw)
        return DecodedImage(
            width: info.width, height: info.height,
            palette: channels == 1 ? info.palette : nil, pixels: pixels)
    }

    /// Decodes into caller-owned memory: `out` must hold `height` rows of `stride` bytes
    /// (`width * 4`, or `width` for kept indices). Returns the header facts.
    public func decode(
        _ bytes: [UInt8], keepIndices: Bool, into out: UnsafeMutableRawBufferPointer,
        stride: Int
    ) throws(PNGError) -> PNGInfo {
        var raw = mpng_info()
        let outcome = run(
            bytes, wantIndexed: keepIndices, info: &raw,
            out: out.baseAddress?.assumingMemoryBound(to: UInt8.self), capacity: out.count, stride: stride)
        if outcome.code == MPNG_NEED_BUFFER {
            throw PNGError(.decode, "image is \(raw.width)x\(raw.height), larger than the space for it")
        }
        guard outcome.code == MPNG_OK else { throw PNGError(.decode, outcome.message) }
        return Self.publicInfo(raw)
    }
}

private struct DecodeOutcome {
    var code: Int32
    var message: String
}

private extension PNGDecoder {
    func run(
        _ bytes: [UInt8], wantIndexed: Bool, info: inout mpng_info,
        out: UnsafeMutablePointer<UInt8>?, capacity: Int, stride: Int
    ) -> DecodeOutcome {
        var limits = mpng_limits(
            max_width: UInt32(clamping: maxWidth), max_height: UInt32(clamping: maxHeight),
            max_chunk_bytes: maxChunkBytes)
        var message = [CChar](repeating: 0, count: 256)
        let code = bytes.withUnsafeBufferPointer { data in
            message.withUnsafeMutableBufferPointer { text in
                mpng_decode(
                    data.baseAddress, data.count, wantIndexed ? 1 : 0, &limits, &info,
                    out, capacity, stride, text.baseAddress, text.count)
            }
        }
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return DecodeOutcome(code: code, message: text.isEmpty ? "unknown libpng error" : text)
    }

    static func publicInfo(_ raw: mpng_info) -> PNGInfo {
        var palette: Palette?
        if raw.palette_size > 0 {
            let count = Int(raw.palette_size) * 4
            let bytes = withUnsafeBytes(of: raw.palette) { Array($0.prefix(count)) }
            palette = Palette(rgba: bytes)
        }
        return PNGInfo(
            width: Int(raw.width), height: Int(raw.height), bitDepth: Int(raw.bit_depth),
            colorType: Int(raw.color_type), interlaced: raw.interlaced != 0, palette: palette)
    }
}
