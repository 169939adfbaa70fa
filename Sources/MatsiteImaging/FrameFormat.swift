import CJPEGShim
import CWebPShim

/// The file format a stitched frame (or any picture made from tiles: a pyramid level's
/// tile, say) is written in, with its quality for the lossy ones.
public enum FrameFormat: Sendable, Equatable, CustomStringConvertible {
    /// Lossless PNG: palette frames, few-colour frames, frames from lossless tiles.
    case png
    /// Baseline JPEG at a quality of 1-100 (opaque frames only: JPEG has no alpha).
    case jpeg(quality: Int)
    /// Lossy WebP at a quality of 0-100, alpha kept losslessly.
    case webp(quality: Int)
    /// Lossless WebP (`format: webp-lossless`): the pixels PNG would keep, in fewer bytes
    /// for radar frames (about 0.9 of the smallest palette PNG), at more encoding time.
    case webpLossless

    /// The file name extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp, .webpLossless: "webp"
        }
    }

    /// True for the formats encoded from a whole RGBA buffer (all but PNG, which streams).
    public var isLossy: Bool { self != .png }

    /// libwebp's lossless effort (its preset level 0-9) for `webpLossless`: the middle, which
    /// on the anchor job's frames gives 0.92 of the smallest palette PNG's bytes.
    public static let losslessEffort = 4

    public var description: String {
        switch self {
        case .png: "PNG"
        case .jpeg(let quality): "JPEG q\(quality)"
        case .webp(let quality): "WebP q\(quality)"
        case .webpLossless: "WebP lossless"
        }
    }

    /// Encodes `height` rows of RGBA pixels, `stride` bytes apart. PNG is written with
    /// zlib `level` (RGBA: callers wanting a palette PNG stream through `PNGWriter`).
    public func encode(
        rgba: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int, level: Int = 6
    ) throws(ImageError) -> [UInt8] {
        guard width > 0, height > 0, stride >= width * 4, rgba.count >= stride * (height - 1) + width * 4,
            let base = rgba.baseAddress
        else {
            throw ImageError(.encode, "invalid image size \(width)x\(height)", format: description)
        }
        switch self {
        case .png:
            let writer = try PNGWriter(path: nil, width: width, height: height, format: .rgba, level: level)
            try writer.write(rows: base, count: height, stride: stride)
            guard let bytes = try writer.finish() else { throw ImageError(.encode, "no PNG bytes were produced") }
            return bytes
        case .jpeg(let quality):
            return try Self.run(
                "JPEG", free: { mjpeg_free($0) },
                encode: { out, size, text, capacity in
                    mjpeg_encode(
                        base.assumingMemoryBound(to: UInt8.self), UInt32(clamping: width), UInt32(clamping: height), stride,
                        Int32(clamping: quality), out, size, text, capacity) == MJPEG_OK
                })
        case .webp(let quality):
            guard width <= 16383, height <= 16383 else {
                throw ImageError(.encode, "WebP images are at most 16383 pixels a side, this frame is \(width)x\(height)", format: "WebP")
            }
            return try Self.run(
                "WebP", free: { mwebp_free($0) },
                encode: { out, size, text, capacity in
                    mwebp_encode_lossy(
                        base.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height), stride,
                        Int32(clamping: quality), out, size, text, capacity) == MWEBP_OK
                })
        case .webpLossless:
            guard width <= 16383, height <= 16383 else {
                throw ImageError(.encode, "WebP images are at most 16383 pixels a side, this frame is \(width)x\(height)", format: "WebP")
            }
            // The colour under a fully transparent pixel is never seen: one colour for all
            // of them (as a palette PNG has) instead of whatever the tiles left there.
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let from = y * stride + x * 4, to = (y * width + x) * 4
                    if rgba[from + 3] != 0 {
                        for c in 0..<4 { pixels[to + c] = rgba[from + c] }
                    }
                }
            }
            return try pixels.withUnsafeBufferPointer { clean throws(ImageError) in
                try Self.run(
                    "WebP", free: { mwebp_free($0) },
                    encode: { out, size, text, capacity in
                        mwebp_encode_lossless(
                            clean.baseAddress!, UInt32(width), UInt32(height), width * 4, Int32(Self.losslessEffort), out, size, text,
                            capacity) == MWEBP_OK
                    })
            }
        }
    }
}

/// What an animation's `format:` and `quality:` ask for; `resolve` turns it into each
/// frame's `FrameFormat`.
public struct FrameFormatChoice: Sendable, Equatable {
    /// The `format:` values.
    public enum Setting: String, Sendable, CaseIterable {
        /// PNG for frames made of lossless tiles; JPEG (opaque) or lossy WebP (with
        /// transparency) for frames made only of lossy tiles (JPEG, lossy WebP).
        case auto
        /// Always lossless PNG.
        case png
        /// JPEG; a frame with transparent pixels becomes lossy WebP (JPEG has no alpha).
        case jpeg
        /// Always lossy WebP.
        case webp
        /// Always lossless WebP: PNG's pixels in fewer bytes, slower to encode.
        case webpLossless = "webp-lossless"
    }

    /// JPEG quality when `quality:` is not set: little visible loss on satellite imagery.
    public static let defaultJPEGQuality = 85
    /// Lossy WebP quality when `quality:` is not set (about JPEG 85's look, smaller).
    public static let defaultWebPQuality = 80

    /// `format:` (default auto).
    public var setting: Setting
    /// `quality:` 1-100, or nil for each format's default.
    public var quality: Int?

    /// A choice (default: auto, default qualities).
    public init(_ setting: Setting = .auto, quality: Int? = nil) {
        self.setting = setting
        self.quality = quality
    }

    /// Whether a frame needs a whole RGBA buffer (a lossy format) rather than the
    /// streaming PNG writer, before stitching: `pixelFormat` is the stitcher's plan,
    /// `tiles` how many of the tiles it draws came lossy- and lossless-encoded.
    public func wantsLossy(pixelFormat: PixelFormat, tiles: TileKinds) -> Bool {
        switch setting {
        case .png: false
        case .jpeg, .webp, .webpLossless: true
        // Palette frames are few colours: PNG is lossless and small. A frame takes the
        // format most of its tiles came in: re-encoding lossless tiles lossily would lose
        // what they kept, lossy tiles gain nothing from PNG. A source that serves PNG only
        // where it needs transparency (TiTiler at the data's edge) and JPEG inside is a
        // lossy source: its frames are written lossy too, with their transparency (WebP).
        case .auto: !pixelFormat.isIndexed && tiles.lossy > tiles.lossless
        }
    }

    /// `wantsLossy` for a frame whose tiles are all lossy (`tilesAreLossy`) or all lossless.
    public func wantsLossy(pixelFormat: PixelFormat, tilesAreLossy: Bool) -> Bool {
        wantsLossy(pixelFormat: pixelFormat, tiles: TileKinds(lossy: tilesAreLossy ? 1 : 0, lossless: tilesAreLossy ? 0 : 1))
    }

    /// The lossy format of a stitched frame, once its pixels show whether it is opaque.
    /// Without `quality:`, the default is lowered to `sourceQuality` (the JPEG tiles' own,
    /// `tilesQuality`): a higher one would only spend bytes on the tiles' artefacts.
    public func lossyFormat(opaque: Bool, sourceQuality: Int? = nil) -> FrameFormat {
        func pick(_ standard: Int) -> Int { quality ?? min(standard, sourceQuality ?? standard) }
        switch setting {
        case .webpLossless: return .webpLossless
        case .webp: return .webp(quality: pick(Self.defaultWebPQuality))
        case .png, .jpeg, .auto:
            return opaque ? .jpeg(quality: pick(Self.defaultJPEGQuality)) : .webp(quality: pick(Self.defaultWebPQuality))
        }
    }

    /// The highest quality among the JPEG tiles (read from their quantisation tables), or
    /// nil when there is none to read.
    public static func tilesQuality(_ tiles: [TileContent], decoder: TileDecoder) -> Int? {
        var best: Int?
        for case .encoded(let bytes) in tiles where ImageKind.sniff(bytes) == .jpeg {
            if let quality = try? decoder.jpeg.quality(of: bytes) { best = max(best ?? quality, quality) }
        }
        return best
    }

    /// A short tag for input hashes: a changed setting makes new frames.
    public var tag: String { "\(setting.rawValue)\(quality.map { "q\($0)" } ?? "")" }

    /// True when every tile drawn (`.encoded` ones that `decoder` can read) is lossy
    /// (JPEG, lossy WebP) and there is at least one; reads headers only.
    public static func tilesAreLossy(_ tiles: [TileContent], decoder: TileDecoder) -> Bool {
        let kinds = tileKinds(tiles, decoder: decoder)
        return kinds.lossy > 0 && kinds.lossless == 0
    }

    /// How many of the tiles drawn (`.encoded` ones of a known format) are lossy (JPEG,
    /// lossy WebP) and lossless (PNG, lossless WebP); reads headers only.
    public static func tileKinds(_ tiles: [TileContent], decoder: TileDecoder) -> TileKinds {
        var kinds = TileKinds(lossy: 0, lossless: 0)
        for case .encoded(let bytes) in tiles {
            guard let kind = ImageKind.sniff(bytes) else { continue }
            switch kind {
            case .png: kinds.lossless += 1
            case .jpeg: kinds.lossy += 1
            case .webp:
                if (try? decoder.webp.isLossy(bytes)) == true { kinds.lossy += 1 } else { kinds.lossless += 1 }
            }
        }
        return kinds
    }

    /// True when no pixel of the RGBA rows is transparent or translucent.
    public static func isOpaque(rgba: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) -> Bool {
        for y in 0..<height {
            let row = y * stride
            var x = 3
            while x < width * 4 {
                if rgba[row + x] != 255 { return false }
                x += 4
            }
        }
        return true
    }
}

/// How many of a frame's tiles came lossy-encoded (JPEG, lossy WebP) and lossless (PNG,
/// lossless WebP).
public struct TileKinds: Sendable, Equatable {
    /// Lossy tiles.
    public var lossy: Int
    /// Lossless tiles.
    public var lossless: Int

    /// Counts.
    public init(lossy: Int, lossless: Int) {
        self.lossy = lossy
        self.lossless = lossless
    }
}

extension PixelFormat {
    /// True for palette formats.
    var isIndexed: Bool {
        if case .indexed = self { return true }
        return false
    }
}

private extension FrameFormat {
    /// Runs a C encoder that hands back malloc'd bytes, copying them out and freeing them.
    static func run(
        _ format: String, free: (UnsafeMutablePointer<UInt8>?) -> Void,
        encode body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<CChar>, Int) -> Bool
    ) throws(ImageError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let ok = message.withUnsafeMutableBufferPointer { text in body(&out, &size, text.baseAddress!, text.count) }
        defer { free(out) }
        guard ok, let out, size > 0 else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageError(.encode, text.isEmpty ? "unknown \(format) encoder error" : text, format: format)
        }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
