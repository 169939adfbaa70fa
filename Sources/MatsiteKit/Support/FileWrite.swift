import Foundation

/// Writes whole files with plain POSIX calls.
///
/// Foundation's `Data.write(to:)` calls `fsync` on every file on Linux: 1,500 tile cache
/// entries then cost 1,500 disk flushes. matsite flushes once instead, where durability
/// matters: the staged site is synced (`syncfs`) just before it replaces the old one
/// (`Staging.publish`); cache entries need no flush at all, since each carries a checksum
/// and a damaged one is fetched again.
enum FileWrite {
    /// Creates or truncates `path` and writes `bytes`; the error names the path and cause.
    static func write(_ bytes: some ContiguousBytes, to path: String, stage: String = "publish") throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(path, stage) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure(path, stage)
                }
                offset += written
            }
        }
    }

    /// `write(_:to:)` for a file URL.
    static func write(_ bytes: some ContiguousBytes, to url: URL, stage: String = "publish") throws {
        try write(bytes, to: url.path, stage: stage)
    }

    private static func failure(_ path: String, _ stage: String) -> BuildError {
        .stage(stage, "cannot write \(path): \(String(cString: strerror(errno)))")
    }
}
