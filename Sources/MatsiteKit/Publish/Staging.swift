import CMatsiteSystem
import Foundation

/// A build's private folder beside the output, swapped in only when complete.
///
/// The swap is one `renameat2(RENAME_EXCHANGE)`: at every instant the output path holds
/// either the old site or the new one. Where the file system cannot exchange, two
/// renames are used and a later build restores the old site if it finds it stranded.
struct Staging: Sendable {
    /// The staging folder.
    let url: URL
    /// The output it will replace.
    let output: URL
    /// Held while the folder is in use, so that another build's `recover` (a shard
    /// publishing while this one still renders) leaves it alone.
    let inUse: FolderLock?

    /// Creates an empty staging folder beside `output`.
    static func create(beside output: URL) throws -> Staging {
        let parent = output.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let url = parent.appendingPathComponent(".\(output.lastPathComponent).matsite-tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return Staging(url: url, output: output, inUse: FolderLock(url.path))
    }

    /// Removes leftovers of earlier builds that were killed (call while holding the lock),
    /// and brings back a site stranded between the two renames of the fallback swap. A
    /// staging folder another build still works in (its lock is held) is left alone.
    static func recover(output: URL) {
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        guard let siblings = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        let old = siblings.filter { $0.hasPrefix(".\(name).matsite-old-") }
        if !FileManager.default.fileExists(atPath: output.path), let stranded = old.first {
            _ = rename(parent.appendingPathComponent(stranded).path, output.path)
        }
        for sibling in siblings where sibling.hasPrefix(".\(name).matsite-tmp-") || sibling.hasPrefix(".\(name).matsite-old-") {
            let path = parent.appendingPathComponent(sibling)
            if sibling.hasPrefix(".\(name).matsite-tmp-") {
                // Taken: a live build's. Held here while removing: no build can start using it.
                guard let dead = FolderLock(path.path) else { continue }
                withExtendedLifetime(dead) { try? FileManager.default.removeItem(at: path) }
            } else {
                try? FileManager.default.removeItem(at: path)
            }
        }
    }

    /// Makes the staged site the output, atomically, and removes the old one. The staged
    /// files are flushed to disk first (one `syncfs`, not one `fsync` per file), so that a
    /// power cut after the swap cannot leave a published site with empty files.
    func publish() throws {
        _ = matsite_sync_filesystem(url.path)
        if !FileManager.default.fileExists(atPath: output.path) {
            try systemCall("rename", "cannot move the new site into place at \(output.path)") { rename(url.path, output.path) }
            _ = matsite_fsync_directory(output.deletingLastPathComponent().path)
            return
        }
        if matsite_exchange_paths(url.path, output.path) == 0 {
            _ = matsite_fsync_directory(output.deletingLastPathComponent().path)
            try? FileManager.default.removeItem(at: url)
            return
        }
        let old = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).matsite-old-\(getpid())")
        try systemCall("rename", "cannot move the old site aside at \(output.path)") { rename(output.path, old.path) }
        do {
            try systemCall("rename", "cannot move the new site into place at \(output.path)") { rename(url.path, output.path) }
        } catch {
            _ = rename(old.path, output.path)
            throw error
        }
        try? FileManager.default.removeItem(at: old)
    }

    /// Deletes the staging folder (a failed build).
    func discard() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// An exclusive `flock` on a folder, taken without waiting; nil when another open file
/// holds it (or the folder cannot be opened). Dropped on release or when the process dies.
final class FolderLock: Sendable {
    private let descriptor: Int32

    init?(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// An exclusive lock on an output folder, so overlapping builds (cron) never collide.
/// It is an `flock` on a file beside the output: the kernel drops it when a build dies,
/// so a killed build never leaves a stale lock behind. The holder writes who it is into the
/// file (`LockHolder`), so that a build kept waiting can say which build holds it.
package final class OutputLock: Sendable {
    private let descriptor: Int32
    /// The lock file.
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock, waiting up to `wait` seconds for another build to finish.
    package static func acquire(for output: URL, wait: Double) async throws -> OutputLock {
        let parent = output.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let path = parent.appendingPathComponent(".\(output.lastPathComponent).matsite-lock").path
        let fd = try systemCall("open", "cannot open the lock file \(path)") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        let start = Date()
        while true {
            do {
                try systemCall("flock", "cannot lock \(path)") { flock(fd, LOCK_EX | LOCK_NB) }
                break
            } catch  where error.errno != EAGAIN {
                close(fd)
                throw error
            } catch {
                // Held by another build: wait below.
            }
            guard Date().timeIntervalSince(start) < wait else {
                let holder = LockHolder(reading: fd).map { "another build (\($0.words(now: Date()))) holds \(path)" }
                close(fd)
                throw BuildError.locked(
                    "\(holder ?? "another matsite build holds \(path)"): it is writing \(output.path); waited \(Int(wait)) s. Try again when it has finished.")
            }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        LockHolder.current().write(to: fd)
        return OutputLock(descriptor: fd, path: path)
    }
}

/// Who holds an output's lock, as the holder wrote it into the lock file: one line of
/// JSON. Only words for a waiting build: the `flock` is the lock.
struct LockHolder: Codable, Equatable {
    /// The holder's process id.
    var pid: Int32
    /// When it took the lock, seconds since 1970.
    var since: Double
    /// Its command line (`matsite build --config X`).
    var command: String

    /// This process, now.
    static func current() -> LockHolder {
        var arguments = CommandLine.arguments
        if let first = arguments.first { arguments[0] = URL(fileURLWithPath: first).lastPathComponent }
        return LockHolder(pid: getpid(), since: Date().timeIntervalSince1970, command: arguments.joined(separator: " "))
    }

    /// What the lock file `fd` says; nil when it says nothing readable (a holder from
    /// before this was written, or another program).
    init?(reading fd: Int32) {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = pread(fd, &bytes, bytes.count, 0)
        guard count > 0, let holder = try? JSONDecoder().decode(LockHolder.self, from: Data(bytes[0..<count])) else { return nil }
        self = holder
    }

    init(pid: Int32, since: Double, command: String) {
        self.pid = pid
        self.since = since
        self.command = command
    }

    /// Replaces the lock file's content with this holder (best effort: the lock holds
    /// without it).
    func write(to fd: Int32) {
        guard var data = try? JSONEncoder().encode(self) else { return }
        data.append(0x0A)
        _ = ftruncate(fd, 0)
        _ = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// `pid 123, `matsite build`, running since 10:05:03 UTC, 4 min`.
    func words(now: Date) -> String {
        let started = Date(timeIntervalSince1970: since)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "HH:mm:ss"
        let seconds = max(0, Int(now.timeIntervalSince(started)))
        let running = seconds < 120 ? "\(seconds) s" : "\(seconds / 60) min"
        return "pid \(pid), `\(command)`, running since \(formatter.string(from: started)) UTC, \(running)"
    }
}
