import Foundation
import MatsiteImaging

/// Writes an exported loop as H.264 MP4 through the `ffmpeg` executable: raw RGB frames on
/// its stdin, `yuv420p` (what every browser and phone plays) and `+faststart` (the index
/// first, so playback starts before the download ends).
///
/// The video has a constant frame rate: one tick is the greatest common divisor of the
/// frames' durations (at least 40 ms), and each frame is sent as many ticks as it lasts,
/// so the last frame's hold survives. H.264 codes a repeated frame in a few bytes.
final class FFmpegLoopEncoder {
    private let process = Process()
    private let input: FileHandle
    private let errors: URL
    private let output: URL
    private let tickMs: Int
    /// Frames sent, counting repeats.
    private(set) var ticks = 0

    /// Starts ffmpeg writing `output`, for frames lasting `durations` (ms, all of them).
    init(ffmpeg: String, width: Int, height: Int, durations: [Int], output: URL) throws {
        // A dead ffmpeg must be an error from write, not a signal that kills matsite.
        signal(SIGPIPE, SIG_IGN)
        tickMs = Self.tick(durations)
        self.output = output
        errors = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = [
            "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
            "-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", "\(width)x\(height)", "-framerate", "1000/\(tickMs)",
            "-i", "pipe:0",
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-pix_fmt", "yuv420p",
            "-movflags", "+faststart", "-threads", "2", "-f", "mp4", output.path,
        ]
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        input = pipe.fileHandleForWriting
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: errors)
    }

    /// Sends a frame shown for `durationMs`.
    func add(_ canvas: LoopCanvas, durationMs: Int) throws {
        let data = Data(canvas.rgb)
        for _ in 0..<max(1, (durationMs + tickMs / 2) / tickMs) {
            do { try input.write(contentsOf: data) } catch { throw failure("stopped reading frames") }
            ticks += 1
        }
    }

    /// Closes the input and waits for the file.
    func finish() throws {
        try? input.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw failure("exited with status \(process.terminationStatus)") }
    }

    /// The tick: the durations' greatest common divisor, at least 40 ms (25 frames a second).
    static func tick(_ durations: [Int]) -> Int {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let divisor = durations.reduce(0) { gcd($0, max(1, $1)) }
        return max(40, divisor)
    }

    private func failure(_ what: String) -> StepFailure {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let log = (try? String(contentsOf: errors, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return StepFailure("ffmpeg \(what) writing \(output.lastPathComponent)\(log.isEmpty ? "" : ": " + String(log.suffix(600)))")
    }
}
