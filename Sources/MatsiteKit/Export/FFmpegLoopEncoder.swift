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
    private let ffmpeg: Subprocess
    private let output: URL
    private let tickMs: Int
    /// Frames sent, counting repeats.
    private(set) var ticks = 0

    /// Starts ffmpeg writing `output`, for frames lasting `durations` (ms, all of them);
    /// ffmpeg is stopped if the loop is not written within `timeLimit`.
    init(ffmpeg: String, width: Int, height: Int, durations: [Int], output: URL, timeLimit: Duration) throws {
        tickMs = Self.tick(durations)
        self.output = output
        let arguments = [
            "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
            "-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", "\(width)x\(height)", "-framerate", "1000/\(tickMs)",
            "-i", "pipe:0",
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-pix_fmt", "yuv420p",
            "-movflags", "+faststart", "-threads", "2", "-f", "mp4", output.path,
        ]
        do { self.ffmpeg = try Subprocess(ffmpeg, arguments, stdin: .pipe, timeLimit: timeLimit) } catch {
            throw ExportError.ffmpeg(output: output.lastPathComponent, error)
        }
    }

    deinit {
        // Dropped before finish (another encoder failed): ffmpeg is not left waiting.
        ffmpeg.terminate()
    }

    /// Sends a frame shown for `durationMs`.
    func add(_ canvas: LoopCanvas, durationMs: Int) throws {
        for _ in 0..<max(1, (durationMs + tickMs / 2) / tickMs) {
            do { try ffmpeg.write(canvas.rgb) } catch { throw ExportError.ffmpeg(output: output.lastPathComponent, error) }
            ticks += 1
        }
    }

    /// Closes the input and waits for the file.
    func finish() throws {
        let result: Subprocess.Output
        do { result = try ffmpeg.finish() } catch { throw ExportError.ffmpeg(output: output.lastPathComponent, error) }
        guard result.termination == .exited(0) else {
            throw ExportError.ffmpegFailed(output: output.lastPathComponent, termination: result.termination, said: result.stderrText)
        }
    }

    /// The tick: the durations' greatest common divisor, at least 40 ms (25 frames a second).
    static func tick(_ durations: [Int]) -> Int {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let divisor = durations.reduce(0) { gcd($0, max(1, $1)) }
        return max(40, divisor)
    }
}

/// An exported loop that could not be written.
enum ExportError: ClassifiedError, CustomStringConvertible {
    /// `export: [mp4]` and no usable ffmpeg (it was there when the config was read).
    case ffmpegMissing(keyPath: String)
    /// ffmpeg could not be run to its end (it could not start, stopped reading, or ran
    /// past its time limit).
    case ffmpeg(output: String, SubprocessError)
    /// ffmpeg ended with an error: its words.
    case ffmpegFailed(output: String, termination: Subprocess.Termination, said: String)
    /// A GIF or WebP frame was neither encoded nor in the cache when the loop was assembled.
    case notEncoded(animation: String, format: ExportConfig.Format, frame: Int)

    var exitClass: ExitClass {
        if case .ffmpegMissing = self { return .config }
        return .failed
    }

    var description: String {
        switch self {
        case .ffmpegMissing(let keyPath):
            "\(keyPath).export: mp4 needs ffmpeg, and it is gone since the config was checked"
        case .ffmpeg(let output, let error):
            "writing \(output): \(error)"
        case .ffmpegFailed(let output, let termination, let said):
            "ffmpeg ended with \(termination) writing \(output)" + SubprocessError.said(said)
        case .notEncoded(let animation, let format, let frame):
            "\(animation): frame \(frame) of the \(format.rawValue) export was not encoded (a matsite bug: please report it)"
        }
    }
}
