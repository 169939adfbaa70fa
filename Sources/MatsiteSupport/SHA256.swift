import CLibCrypto

/// SHA-256, for content-hashed file names, manifest checksums and cache keys.
///
/// OpenSSL's implementation (libcrypto, through the `CLibCrypto` system library): a kept,
/// hardware-accelerated hash instead of a hand-written one, at the cost of one library the
/// system already has (Debian's libssl-dev to build). The digests are the standard ones, so
/// cache indexes, input hashes and frame names written by earlier versions still match.
package struct SHA256: @unchecked Sendable {
    // A plain C struct: a copy of the value is a copy of the hash state.
    private var context = SHA256_CTX()

    /// A fresh hash.
    package init() {
        matsite_sha256_init(&context)
    }

    /// Adds raw bytes.
    package mutating func update(_ raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        matsite_sha256_update(&context, base, raw.count)
    }

    /// Adds an array of bytes.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest (32 bytes). Does not consume the hash: more data may follow.
    package func finalize() -> [UInt8] {
        var copy = context
        return [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            matsite_sha256_final(&copy, out.baseAddress)
            count = 32
        }
    }

    /// The digest as lowercase hex.
    package func hexDigest() -> String { Self.hex(finalize()) }

    /// Hex of any bytes.
    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes(Hex.encode)
    }

    /// The hex digest of `bytes`.
    package static func hex(of bytes: [UInt8]) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest()
    }

    /// The hex digest of a string's UTF-8.
    package static func hex(of text: String) -> String { hex(of: Array(text.utf8)) }
}
