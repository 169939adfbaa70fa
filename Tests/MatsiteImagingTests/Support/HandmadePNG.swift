// PNGs built byte by byte, without libpng: chunks with their CRC-32, image data in zlib
// "stored" (uncompressed) deflate blocks with an Adler-32, rows unfiltered, Adam7 when
// asked. They cover what PNGWriter cannot write (gray, gray+alpha, RGB, 16-bit, low bit
// depths, interlacing), and because nothing here shares code with the decoder, a test's
// expectation is independent of the code under test.

/// One image as samples per pixel, before it is packed into PNG bytes.
struct HandmadePNG {
    /// PNG colour types.
    enum ColorType: UInt8 {
        case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6

        var channels: Int {
            switch self {
            case .gray, .palette: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }
    }

    var width: Int
    var height: Int
    var colorType: ColorType
    var bitDepth: Int
    /// `samples[y][x]` holds the pixel's samples (channels of them), each below 2^bitDepth.
    var samples: [[[Int]]]
    /// PLTE entries as RGB triples.
    var palette: [(UInt8, UInt8, UInt8)] = []
    /// Raw tRNS chunk data, when wanted.
    var transparency: [UInt8]?
    var interlaced = false

    /// The PNG file's bytes.
    func encode() -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr = Self.be32(width) + Self.be32(height)
        ihdr += [UInt8(bitDepth), colorType.rawValue, 0, 0, interlaced ? 1 : 0]
        out += Self.chunk("IHDR", ihdr)
        if !palette.isEmpty { out += Self.chunk("PLTE", palette.flatMap { [$0.0, $0.1, $0.2] }) }
        if let transparency { out += Self.chunk("tRNS", transparency) }
        out += Self.chunk("IDAT", Self.zlibStored(rawImageData()))
        out += Self.chunk("IEND", [])
        return out
    }

    /// Filter-type-0 scanlines, pass by pass when interlaced.
    func rawImageData() -> [UInt8] {
        guard interlaced else { return scanlines(xs: Array(0..<width), ys: Array(0..<height)) }
        var data: [UInt8] = []
        for (x0, y0, dx, dy) in Self.adam7 {
            let xs = Array(stride(from: x0, to: width, by: dx))
            let ys = Array(stride(from: y0, to: height, by: dy))
            guard !xs.isEmpty, !ys.isEmpty else { continue } // empty passes have no rows at all
            data += scanlines(xs: xs, ys: ys)
        }
        return data
    }

    /// Adam7's passes: first column, first row, column step, row step.
    static let adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

    private func scanlines(xs: [Int], ys: [Int]) -> [UInt8] {
        var data: [UInt8] = []
        for y in ys {
            data.append(0)
            if bitDepth < 8 {
                var byte = 0, used = 0
                for x in xs {
                    byte = byte << bitDepth | samples[y][x][0]
                    used += bitDepth
                    if used == 8 { data.append(UInt8(byte)); byte = 0; used = 0 }
                }
                if used > 0 { data.append(UInt8(byte << (8 - used))) }
            } else {
                for x in xs {
                    for sample in samples[y][x] {
                        if bitDepth == 16 { data += [UInt8(sample >> 8), UInt8(sample & 0xFF)] } else { data.append(UInt8(sample)) }
                    }
                }
            }
        }
        return data
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(data.count) + typed + be32(Int(crc32(typed)))
    }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    /// A zlib stream of stored blocks (at most 65535 bytes each).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(Int(b << 16 | a))
    }
}

extension [UInt8] {
    /// The offset of the first chunk of `type` (its length field), if any.
    func chunkOffset(_ type: String) -> Int? {
        var offset = 8
        while offset + 8 <= count {
            let length = self[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: self[(offset + 4)..<(offset + 8)], as: UTF8.self) == type { return offset }
            offset += 12 + length
        }
        return nil
    }
}
