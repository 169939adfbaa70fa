/// Whether pixels are all fully transparent (alpha 0): how a frame or a tile with nothing
/// drawn on it is told from one that shows something. MapServer answers a time it
/// advertises but has no data for with such a tile.
///
/// The scan stops at the first pixel that shows anything, so a frame with data costs a
/// few bytes read; only a blank frame is read through.
struct TransparencyScan {
    /// Per byte value: true when a pixel of that value is fully transparent. Indexed
    /// pixels: the palette entries whose alpha is 0; RGBA: unused (alpha is read).
    private let clearIndex: [Bool]?
    /// True once a pixel with some opacity was seen.
    private(set) var sawVisible = false

    /// A scan of pixels in `format`.
    init(format: PixelFormat) {
        switch format {
        case .indexed(let palette): clearIndex = Self.clearEntries(palette)
        case .rgba: clearIndex = nil
        }
        // A palette without a transparent entry shows something on every pixel.
        if let clearIndex, !clearIndex.contains(true) { sawVisible = true }
    }

    /// Looks at `count` rows of `width` pixels, `stride` bytes apart, until something shows.
    mutating func look(rows: UnsafeRawPointer, count: Int, stride: Int, width: Int) {
        guard !sawVisible else { return }
        for y in 0..<count {
            let row = UnsafeRawBufferPointer(start: rows + y * stride, count: width * (clearIndex == nil ? 4 : 1))
            if let clearIndex {
                for byte in row where !clearIndex[Int(byte)] {
                    sawVisible = true
                    return
                }
            } else {
                for x in 0..<width where row[x * 4 + 3] != 0 {
                    sawVisible = true
                    return
                }
            }
        }
    }

    /// Per index 0...255, whether the palette entry is fully transparent (indices past the
    /// palette's end are not: libpng refuses them).
    static func clearEntries(_ palette: Palette) -> [Bool] {
        var clear = [Bool](repeating: false, count: 256)
        for i in 0..<palette.count where palette.color(i).a == 0 { clear[i] = true }
        return clear
    }
}

extension TileDecoder {
    /// True when every pixel of the tile is fully transparent: a palette PNG whose pixels
    /// all use entries with tRNS alpha 0, or an image with alpha whose alpha is 0
    /// throughout. A JPEG never is, nor a palette PNG without a transparent entry (both
    /// known from the header, without decoding); a tile that fails to decode is not.
    public func isFullyTransparent(_ bytes: [UInt8]) -> Bool {
        guard let kind = try? Self.kind(of: bytes), kind != .jpeg else { return false }
        if kind == .png, let info = try? png.info(of: bytes), info.colorType == 3 {
            guard let palette = info.palette, palette.transparentIndex != nil else { return false }
        }
        guard let image = try? decode(bytes, keepIndices: true) else { return false }
        var scan = TransparencyScan(format: image.palette.map(PixelFormat.indexed) ?? .rgba)
        image.pixels.withUnsafeBytes { pixels in
            guard let start = pixels.baseAddress else { return }
            scan.look(rows: start, count: image.height, stride: image.width * image.bytesPerPixel, width: image.width)
        }
        return !scan.sawVisible
    }
}
