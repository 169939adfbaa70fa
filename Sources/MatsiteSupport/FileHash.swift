import Foundation

/// Hashes files without holding them whole.
package enum FileHash {
    /// SHA-256 (hex) and size of the file at `url`.
    package static func sha256(of url: URL) throws -> (hex: String, size: Int) {
        let path = url.path
        let fd = try systemCall("open", "cannot read back \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        var hash = SHA256()
        var size = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = try buffer.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) throws -> Int in
                try systemCall("read", "cannot read back \(path)") { read(fd, raw.baseAddress!, raw.count) }
            }
            if count == 0 { break }
            size += count
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return (hash.hexDigest(), size)
    }
}
