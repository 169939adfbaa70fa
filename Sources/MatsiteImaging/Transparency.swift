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
    /// The palette's one transparent entry, when it has exactly one.
    private let onlyClearIndex: UInt8?
    /// True once a pixel with some opacity was seen.
    private(set) var sawVisible = false

    /// A scan of pixels in `format`.
    init(format: PixelFormat) {
        let table: [Bool]? =
            switch format {
            case .indexed(let palette): Self.clearEntries(palette)
            case .rgba: nil
            }
        clearIndex = table
        let clear = table.map { entries in entries.indices.filter { entries[$0] } } ?? []
        onlyClearIndex = clear.count == 1 ? UInt8(clear[0]) : nil
        // A palette without a transparent entry shows something on every pixel.
        if table != nil, clear.isEmpty { sawVisible = true }
    }

    /// Looks at `count` rows of `width` pixels, `stride` bytes apart, until something shows.
    mutating func look(rows: UnsafeRawPointer, count: Int, stride: Int, width: Int) {
        guard !sawVisible else { return }
        for y in 0..<count {
            let row = rows + y * stride
            let clear = clearIndex == nil ? Self.alphaIsZero(row, pixels: width) : indicesAreClear(row, pixels: width)
            guard clear else {
                sawVisible = true
                return
            }
        }
    }

    /// True when every RGBA pixel's alpha is 0: two pixels' alphas tested per 8-byte word.
    static func alphaIsZero(_ row: UnsafeRawPointer, pixels: Int) -> Bool {
        let alphas: UInt64 = 0xFF00_0000_FF00_0000
        var x = 0
        while x + 2 <= pixels {
            // Little- or big-endian, the mask covers bytes 3 and 7 read as one word.
            if row.loadUnaligned(fromByteOffset: x * 4, as: UInt64.self) & alphas.littleEndian != 0 { return false }
            x += 2
        }
        return x == pixels || row.load(fromByteOffset: x * 4 + 3, as: UInt8.self) == 0
    }

    /// True when every index is a transparent entry: eight at a time when the palette has
    /// one such entry (the usual case), else one by one through the table.
    func indicesAreClear(_ row: UnsafeRawPointer, pixels: Int) -> Bool {
        guard let clearIndex else { return false }
        var x = 0
        if let only = onlyClearIndex {
            let eight = UInt64(only) &* 0x0101_0101_0101_0101
            while x + 8 <= pixels {
                if row.loadUnaligned(fromByteOffset: x, as: UInt64.self) != eight { return false }
                x += 8
            }
        }
        while x < pixels {
            if !clearIndex[Int(row.load(fromByteOffset: x, as: UInt8.self))] { return false }
            x += 1
        }
        return true
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
