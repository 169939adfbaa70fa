import Foundation

/// Lowercase hex, both ways: digests written (`SHA256`) and cache keys read back.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    package static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = digits[Int(byte >> 4)]
                out[2 * i + 1] = digits[Int(byte & 15)]
            }
            return bytes.count * 2
        }
    }

    package static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        for i in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = value(utf8[i]), let low = value(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
