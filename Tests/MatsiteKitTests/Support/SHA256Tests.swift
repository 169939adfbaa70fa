import Testing

@testable import MatsiteKit

/// FIPS 180-4 / NIST CAVP example vectors.
@Suite("SHA256")
struct SHA256Tests {
    @Test("\"abc\"")
    func abc() {
        #expect(SHA256.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("the empty message")
    func empty() {
        #expect(SHA256.hex(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("the 448-bit message (padding spills into a second block)")
    func twoBlocks() {
        #expect(
            SHA256.hex(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("the 896-bit message")
    func longer() {
        let message = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
        #expect(SHA256.hex(of: message) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test("a million 'a', fed in uneven pieces")
    func millionA() {
        var hash = SHA256()
        let piece = [UInt8](repeating: 0x61, count: 999)
        var left = 1_000_000
        while left > 0 {
            let n = min(left, piece.count - left % 7)
            hash.update(Array(piece.prefix(n)))
            left -= n
        }
        #expect(hash.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("updating byte by byte equals hashing at once, at every length around the block size")
    func incremental() {
        let bytes = (0..<130).map { UInt8($0 * 7 % 256) }
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 130] {
            var pieces = SHA256()
            for byte in bytes.prefix(length) { pieces.update([byte]) }
            #expect(pieces.hexDigest() == SHA256.hex(of: Array(bytes.prefix(length))), "length \(length)")
        }
    }

    @Test("finalizing does not consume the hash: more data can follow")
    func finalizeIsPure() {
        var hash = SHA256()
        hash.update(Array("ab".utf8))
        _ = hash.finalize()
        hash.update(Array("c".utf8))
        #expect(hash.hexDigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("16 MiB hash to the reference digest; prints the throughput (a figure, not a limit)")
    func throughput() {
        let bytes = [UInt8](unsafeUninitializedCapacity: 16 << 20) { out, count in
            for i in 0..<out.count { out[i] = UInt8(truncatingIfNeeded: i &* 31 &+ (i >> 11)) }
            count = out.count
        }
        let clock = ContinuousClock()
        var hex = ""
        let elapsed = clock.measure { hex = SHA256.hex(of: bytes) }
        #expect(hex == "6027b5bbeb7704477c7cdb74d484a7ce6491512887f6385b1f3eb6550c75858b")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("SHA256: 16 MiB in \(String(format: "%.3f", seconds)) s, \(Int(Double(bytes.count) / 1e6 / max(seconds, 1e-9))) MB/s")
    }
}
