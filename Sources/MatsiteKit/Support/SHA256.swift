/// SHA-256 (FIPS 180-4), for content-hashed file names, manifest checksums and cache keys.
///
/// Written here rather than pulled from a crypto package: it is the only primitive
/// matsite needs, and a crypto package would double the first build on a 2-core CI.
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    /// A fresh hash.
    public init() { buffer.reserveCapacity(64) }

    /// Adds raw bytes quickly, block by block.
    public mutating func update(_ raw: UnsafeRawBufferPointer) {
        length &+= UInt64(raw.count)
        var offset = 0
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, raw.count)
            buffer.append(contentsOf: raw[0..<take])
            offset = take
            if buffer.count == 64 {
                compress(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        while raw.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + 64]))
            offset += 64
        }
        buffer.append(contentsOf: raw[offset...])
    }

    /// Adds an array of bytes.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest (32 bytes).
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = copy.length &* 8
        // Padding: 0x80, zeros, the bit length; one or two blocks, on the stack.
        let blocks = copy.buffer.count < 56 ? 1 : 2
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
            tail.initialize(repeating: 0)
            for (i, byte) in copy.buffer.enumerated() { tail[i] = byte }
            tail[copy.buffer.count] = 0x80
            for i in 0..<8 { tail[blocks * 64 - 1 - i] = UInt8(truncatingIfNeeded: bitLength >> UInt64(8 * i)) }
            for block in 0..<blocks { copy.compress(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(tail)[block * 64..<block * 64 + 64])) }
        }
        let words = [copy.state.0, copy.state.1, copy.state.2, copy.state.3, copy.state.4, copy.state.5, copy.state.6, copy.state.7]
        return [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
            for (i, word) in words.enumerated() {
                digest[4 * i] = UInt8(word >> 24)
                digest[4 * i + 1] = UInt8(truncatingIfNeeded: word >> 16)
                digest[4 * i + 2] = UInt8(truncatingIfNeeded: word >> 8)
                digest[4 * i + 3] = UInt8(truncatingIfNeeded: word)
            }
            count = 32
        }
    }

    /// The digest as lowercase hex.
    public func hexDigest() -> String { Self.hex(finalize()) }

    /// Hex of any bytes.
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes(Hex.encode)
    }

    /// The hex digest of `bytes`.
    public static func hex(of bytes: [UInt8]) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest()
    }

    /// The hex digest of a string's UTF-8.
    public static func hex(of text: String) -> String { hex(of: Array(text.utf8)) }
}

private extension SHA256 {
    static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    mutating func compress(_ block: [UInt8]) {
        block.withUnsafeBytes { compress($0) }
    }

    mutating func compress(_ block: UnsafeRawBufferPointer) {
        // The message schedule lives on the stack: no allocation per 64-byte block.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
            }
            for i in 16..<64 {
                let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}

private extension UInt32 {
    func rotatedRight(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
