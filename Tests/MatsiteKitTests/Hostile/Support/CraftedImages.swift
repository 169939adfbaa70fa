// Hostile image bytes made by hand (no libpng): PNGs with any header, zlib streams that
// inflate far past what they claim, and the first bytes of other formats.

enum Crafted {
    /// A PNG with the given IHDR fields and raw (already filtered) image data, deflated in
    /// stored blocks, or with `idat` given verbatim as the zlib stream.
    static func png(
        width: Int, height: Int, bitDepth: Int, colorType: Int,
        raw: [UInt8] = [], idat: [UInt8]? = nil, palette: Int = 0
    ) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", be32(width) + be32(height) + [UInt8(bitDepth), UInt8(colorType), 0, 0, 0])
        if palette > 0 {
            out += chunk("PLTE", (0..<palette).flatMap { [UInt8($0 & 0xFF), UInt8(255 - $0 & 0xFF), 128] })
        }
        out += chunk("IDAT", idat ?? zlibStored(raw))
        out += chunk("IEND", [])
        return out
    }

    /// A zlib stream whose deflate data is `count` zero bytes, written as runs of 258
    /// (fixed Huffman: a literal 0, then length-258/distance-1 matches): about 1000:1.
    static func zlibZeros(_ count: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1) // BFINAL
        bits.write(1, count: 2) // BTYPE 01: fixed Huffman
        bits.writeCode(0b0011_0000, length: 8) // literal 0
        var left = count - 1
        while left >= 258 {
            bits.writeCode(0b1100_0101, length: 8) // length code 285: 258 bytes
            bits.writeCode(0, length: 5) // distance code 0: distance 1
            left -= 258
        }
        for _ in 0..<left { bits.writeCode(0b0011_0000, length: 8) }
        bits.writeCode(0, length: 7) // end of block (256)
        let adler = adler32(zeros: count)
        return [0x78, 0x01] + bits.bytes + be32(Int(adler))
    }

    /// JPEG, WebP and GIF headers with a little body: what a server may send instead of a PNG.
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xFF, 0xD9]
    static let webp: [UInt8] = Array("RIFF".utf8) + [26, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [14, 0, 0, 0] + [UInt8](repeating: 0, count: 14)
    static let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B]

    // MARK: - Pieces

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(data.count) + typed + be32(Int(crc32(typed)))
    }

    static func be32(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let last: UInt8 = offset + n >= data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<(offset + n)]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(Int(b << 16 | a))
    }

    static func adler32(zeros count: Int) -> UInt32 {
        // a stays 1; b grows by 1 per byte.
        let b = UInt32(count % 65521)
        return b << 16 | 1
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    /// Deflate's bit order: fields LSB first, Huffman codes MSB first.
    struct BitWriter {
        var bytes: [UInt8] = []
        var used = 8

        mutating func write(_ value: Int, count: Int) {
            for i in 0..<count { push((value >> i) & 1) }
        }

        mutating func writeCode(_ code: Int, length: Int) {
            for i in stride(from: length - 1, through: 0, by: -1) { push((code >> i) & 1) }
        }

        private mutating func push(_ bit: Int) {
            if used == 8 { bytes.append(0); used = 0 }
            if bit != 0 { bytes[bytes.count - 1] |= UInt8(1 << used) }
            used += 1
        }
    }
}
