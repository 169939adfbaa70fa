import Foundation

/// Writes whole files with plain POSIX calls.
///
/// Foundation's `Data.write(to:)` calls `fsync` on every file on Linux: 1,500 tile cache
/// entries then cost 1,500 disk flushes. matsite flushes once instead, where durability
/// matters: the staged site is synced (`syncfs`) just before it replaces the old one
/// (`Staging.publish`); cache entries need no flush at all, since each carries a checksum
/// and a damaged one is fetched again.
enum FileWrite {
    /// Creates or truncates `path` and writes `bytes`; throws a `SystemCallError` naming
    /// the path, the call and errno.
    static func write(_ bytes: some ContiguousBytes, to path: String) throws {
        let fd = try systemCall("open", "cannot write \(path)") { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws in
            var offset = 0
            while offset < buffer.count {
                offset += try systemCall("write", "cannot write \(path)") {
                    Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                }
            }
        }
    }

    /// `write(_:to:)` for a file URL.
    static func write(_ bytes: some ContiguousBytes, to url: URL) throws {
        try write(bytes, to: url.path)
    }
}
