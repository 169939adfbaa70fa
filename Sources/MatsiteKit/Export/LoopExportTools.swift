import Foundation

/// Where the exports' outside tools are: the `ffmpeg` executable (MP4) and the label font.
enum LoopExportTools {
    /// DejaVu Sans, from Debian's fonts-dejavu-core.
    static let defaultFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// The process's environment, where the tools are looked up by default.
    static var processEnvironment: [String: String] { ProcessInfo.processInfo.environment }

    /// The label font: `MATSITE_EXPORT_FONT`, else DejaVu Sans.
    static func fontPath(_ environment: [String: String] = processEnvironment) -> String {
        environment["MATSITE_EXPORT_FONT"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultFont
    }

    /// The `ffmpeg` to run: `MATSITE_FFMPEG` when set, else the first on `PATH`; nil when none.
    static func ffmpegPath(_ environment: [String: String] = processEnvironment) -> String? {
        if let given = environment["MATSITE_FFMPEG"], !given.isEmpty {
            return FileManager.default.isExecutableFile(atPath: given) ? given : nil
        }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Why the label font cannot be used, or nil.
    static func fontProblem(_ environment: [String: String] = processEnvironment) -> String? {
        let fontPath = fontPath(environment)
        return FileManager.default.isReadableFile(atPath: fontPath)
            ? nil
            : "the label font \(fontPath) is missing: install fonts-dejavu-core (scripts/install-deps.sh) or set MATSITE_EXPORT_FONT to a TrueType file"
    }

    /// Why MP4 cannot be written (no ffmpeg, or one without libx264), or nil. The answer is
    /// remembered per executable: a build asks once.
    static func ffmpegProblem(_ environment: [String: String] = processEnvironment) -> String? {
        let given = environment["MATSITE_FFMPEG"].flatMap { $0.isEmpty ? nil : $0 }
        guard let ffmpeg = ffmpegPath(environment) else {
            return given.map { "mp4 needs ffmpeg, but MATSITE_FFMPEG names \($0), which is not an executable file" }
                ?? "mp4 needs the ffmpeg executable, and there is none on PATH: install ffmpeg (scripts/install-deps.sh) or remove mp4 from export"
        }
        return probed.withLock { cache in
            if let known = cache[ffmpeg] { return known }
            let answer = probe(ffmpeg)
            cache[ffmpeg] = .some(answer)
            return answer
        }
    }

    private static let probed = LockedBox<[String: String?]>([:])

    /// Runs `ffmpeg -encoders` (given 30 s: it answers in a fraction of one) and looks for libx264.
    private static func probe(_ ffmpeg: String) -> String? {
        let output: Subprocess.Output
        do { output = try Subprocess.run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-encoders"], timeLimit: .seconds(30)) } catch {
            return "mp4 needs ffmpeg, but \(ffmpeg) -encoders did not answer: \(error)"
        }
        guard output.termination == .exited(0) else { return "mp4 needs ffmpeg, but \(ffmpeg) -encoders failed (\(output.termination))" }
        guard String(decoding: output.stdout, as: UTF8.self).contains(" libx264 ") else {
            return "mp4 needs ffmpeg with the libx264 encoder, and \(ffmpeg) has none (Debian's ffmpeg package has it)"
        }
        return nil
    }
}
