import Foundation

/// rclone as a subprocess: the transfer engine that speaks S3, GCS, Azure, SFTP, WebDAV
/// and more, and holds the credentials (its config file, `RCLONE_CONFIG_*`). matsite only
/// tells it which files to send where, with which headers, and reads its answers.
struct Rclone: Sendable {
    /// The binary found on PATH or given as a path.
    let executable: URL
    /// Flags for every call (`deploy.rclone_flags`).
    let flags: [String]
    /// How long one call may run before it is stopped (`deploy.timeout_s`).
    var timeLimit: Duration = .seconds(3600)
    /// Replaces secrets of an inline remote (`:s3,secret_access_key=...:bucket`) in
    /// anything shown.
    let redact: @Sendable (String) -> String

    /// What a finished call said.
    struct Result: Sendable {
        var status: Int32
        var output: Data
        var errors: [String]
    }

    /// Finds `name` (a path, or a command on PATH); nil when there is none.
    static func locate(_ name: String) -> URL? {
        let manager = FileManager.default
        if name.contains("/") {
            return manager.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if manager.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
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
                let shown = redact(text)
                errors.withLock { $0.append(shown) }
                line?(shown)
            }
        } catch {
            throw DeployError.rcloneDidNotFinish(reason: redact("\(error)"))
        }
        return Result(status: output.status, output: Data(output.stdout), errors: errors.withLock { $0 })
    }
}

extension Rclone {
    /// Redacts the values of an rclone connection string's parameters
    /// (`remote,key=value:path` or `:backend,key=value:path`): they may be passwords or keys.
    static func redactor(for target: String) -> @Sendable (String) -> String {
        let secrets = parameterValues(target).filter { $0.count >= 3 }
        let shown = redactedTarget(target)
        return { text in
            var text = text.replacingOccurrences(of: target, with: shown)
            for secret in secrets { text = text.replacingOccurrences(of: secret, with: "***") }
            return text
        }
    }

    /// The target with every connection-string parameter's value replaced by `***`.
    static func redactedTarget(_ target: String) -> String {
        guard let colon = remoteEnd(target) else { return target }
        let parts = splitParameters(target[..<colon])
        guard parts.count > 1 else { return target }
        let hidden =
            [String(parts[0])]
            + parts.dropFirst().map { part -> String in
                guard let eq = part.firstIndex(of: "=") else { return String(part) }
                return part[..<eq] + "=***"
            }
        return hidden.joined(separator: ",") + target[colon...]
    }

    /// The values of the target's connection-string parameters.
    static func parameterValues(_ target: String) -> [String] {
        guard let colon = remoteEnd(target) else { return [] }
        return splitParameters(target[..<colon]).dropFirst().compactMap { part in
            guard let eq = part.firstIndex(of: "=") else { return nil }
            return part[part.index(after: eq)...].trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
    }

    /// `remote,key=value,key="a,b"` split at the commas outside quotes.
    static func splitParameters(_ remote: Substring) -> [Substring] {
        var parts: [Substring] = []
        var start = remote.startIndex
        for index in unquoted(remote, from: remote.startIndex) where remote[index] == "," {
            parts.append(remote[start..<index])
            start = remote.index(after: index)
        }
        parts.append(remote[start...])
        return parts
    }

    /// Where the remote part of `remote:path` ends (its colon), skipping quoted values.
    static func remoteEnd(_ target: String) -> String.Index? {
        let text = Substring(target)
        // `:backend,...:path` starts with the colon that marks an inline backend.
        let start = target.first == ":" ? target.index(after: target.startIndex) : target.startIndex
        return unquoted(text, from: start).first { text[$0] == ":" }
    }

    /// The indices of `text` from `start` that lie outside single or double quotes.
    static func unquoted(_ text: Substring, from start: String.Index) -> [String.Index] {
        var quote: Character?
        var found: [String.Index] = []
        for index in text[start...].indices {
            let c = text[index]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else {
                found.append(index)
            }
        }
        return found
    }

    /// `target` joined with a path below it.
    static func join(_ target: String, _ path: String) -> String {
        target.hasSuffix("/") || target.hasSuffix(":") ? target + path : target + "/" + path
    }
}
