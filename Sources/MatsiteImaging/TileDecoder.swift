/// The header facts of a tile in any supported format.
public struct TileInfo: Equatable, Sendable {
    /// The format, known from the bytes.
    public let kind: ImageKind
    /// Pixels across.
    public let width: Int
    /// Pixels down.
    public let height: Int
    /// The palette (with tRNS alpha) of a palette PNG; nil for every other tile.
    public let palette: Palette?
}

/// Decodes tiles of any supported format (PNG, JPEG, WebP), chosen by their first bytes,
/// each through its own library with the same size limits.
public struct TileDecoder: Sendable {
    /// The PNG decoder (libpng).
    public var png: PNGDecoder
    /// The JPEG decoder (libjpeg-turbo).
    public var jpeg: JPEGDecoder
    /// The WebP decoder (libwebp).
    public var webp: WebPDecoder

    /// Decoders sharing one size limit (4096 x 4096 unless told).
    public init(maxWidth: Int = 4096, maxHeight: Int = 4096) {
        png = PNGDecoder(maxWidth: maxWidth, maxHeight: maxHeight)
        jpeg = JPEGDecoder(maxWidth: maxWidth, maxHeight: maxHeight)
        webp = WebPDecoder(maxWidth: maxWidth, maxHeight: maxHeight)
    }

    /// Wraps a PNG decoder (its limits then apply to JPEG and WebP tiles too).
    public init(_ png: PNGDecoder) {
        self.png = png
        jpeg = JPEGDecoder(maxWidth: png.maxWidth, maxHeight: png.maxHeight)
        webp = WebPDecoder(maxWidth: png.maxWidth, maxHeight: png.maxHeight)
    }

    /// Reads a tile's header.
    public func info(of bytes: [UInt8]) throws(ImageError) -> TileInfo {
        switch try Self.kind(of: bytes) {
        case .png:
            let info = try png.info(of: bytes)
            return TileInfo(
                kind: .png, width: info.width, height: info.height,
                palette: info.colorType == 3 ? info.palette : nil)
        case .jpeg:
            let info = try jpeg.info(of: bytes)
            return TileInfo(kind: .jpeg, width: info.width, height: info.height, palette: nil)
        case .webp:
            let info = try webp.info(of: bytes)
            return TileInfo(kind: .webp, width: info.width, height: info.height, palette: nil)
        }
    }

    /// Decodes a whole tile. With `keepIndices`, a palette PNG stays indexed; every other
    /// tile becomes RGBA.
    public func decode(_ bytes: [UInt8], keepIndices: Bool) throws(ImageError) -> DecodedImage {
        switch try Self.kind(of: bytes) {
        case .png: try png.decode(bytes, keepIndices: keepIndices)
        case .jpeg: try jpeg.decode(bytes)
        case .webp: try webp.decode(bytes)
        }
    }

    /// Decodes into caller-owned memory: `height` rows of `stride` bytes, indices for a
    /// palette PNG with `keepIndices` (the caller checked `info(of:)` first), else RGBA.
    public func decode(
        _ bytes: [UInt8], keepIndices: Bool, into out: UnsafeMutableRawBufferPointer,
        stride: Int
    ) throws(ImageError) -> (width: Int, height: Int) {
        switch try Self.kind(of: bytes) {
        case .png:
            let info = try png.decode(bytes, keepIndices: keepIndices, into: out, stride: stride)
            return (info.width, info.height)
        case .jpeg: return try jpeg.decode(bytes, into: out, stride: stride)
        case .webp: return try webp.decode(bytes, into: out, stride: stride)
        }
    }

    /// The format of `bytes`, or an error naming what they are not.
    public static func kind(of bytes: [UInt8]) throws(ImageError) -> ImageKind {
        guard let kind = ImageKind.sniff(bytes) else {
            throw ImageError(
                .decode, bytes.isEmpty ? "empty file" : "not a PNG, JPEG or WebP image (unknown signature)",
                format: "image")
        }
        return kind
    }
}
