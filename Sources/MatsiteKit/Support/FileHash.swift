import Foundation

/// Hashes files without holding them whole.
enum FileHash {
    /// SHA-256 (hex) and size of the file at `url`.
    static func sha256(of url: URL) throws -> (hex: String, size: Int) {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw BuildError.stage("stitch", "cannot read back \(url.path)")
        }
        defer { try? handle.close() }
        var hash = SHA256()
        var size = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            size += chunk.count
            chunk.withUnsafeBytes { hash.update($0) }
        }
        return (hash.hexDigest(), size)
    }
}
