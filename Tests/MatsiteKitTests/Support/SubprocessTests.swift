import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// The subprocess helper with real programs (/bin/sh, cat, ffmpeg): output in full on both
/// streams at once, exit statuses, and a child that hangs meeting its time limit.
@Suite("Subprocess")
struct SubprocessTests {
    @Test("stdout and stderr are both read in full while the child writes them at once (no pipe fills and stalls it)")
    func bothStreams() throws {
        // 2 MB on each stream, interleaved: far past a pipe's 64 KB buffer.
        let script = "i=0; while [ $i -lt 2048 ]; do head -c 1024 /dev/zero; head -c 1024 /dev/zero >&2; i=$((i+1)); done"
        let output = try Subprocess.run("/bin/sh", ["-c", script], timeLimit: .seconds(600))
        #expect(output.termination == .exited(0))
        #expect(output.stdout.count == 2 << 20)
        // stderr keeps its end, bounded.
        #expect(output.stderr.count == Subprocess.stderrKept)
    }

    @Test("a non-zero exit status is returned, not thrown, with stderr's lines handed on as they come")
    func exitStatus() throws {
        let lines = LockedBox<[String]>([])
        let output = try Subprocess.run("/bin/sh", ["-c", "echo one >&2; echo two >&2; exit 3"], timeLimit: .seconds(600)) { line in
            lines.withLock { $0.append(line) }
        }
        #expect(output.termination == .exited(3) && output.status == 3)
        #expect(lines.withLock { $0 } == ["one", "two"])
        #expect(output.stderrText == "one\ntwo")
    }

    @Test("stdin fed by write reaches the child, and finish closes it")
    func stdinPipe() throws {
        let cat = try Subprocess("/bin/cat", [], stdin: .pipe, timeLimit: .seconds(600))
        try cat.write(Array("hello ".utf8))
        try cat.write(Array("world".utf8))
        let output = try cat.finish()
        #expect(String(decoding: output.stdout, as: UTF8.self) == "hello world")
    }

    @Test("lanes run every index once, a child each, at most width at a time, and return when all ended")
    func lanes() {
        let seen = LockedBox((statuses: [Int: Int32](), inFlight: 0, peak: 0))
        Subprocess.lanes(9, width: 3) { index in
            seen.withLock {
                $0.inFlight += 1
                $0.peak = max($0.peak, $0.inFlight)
            }
            let status = (try? Subprocess.run("/bin/sh", ["-c", "exit \(index)"], timeLimit: .seconds(600)))?.status ?? -1
            seen.withLock {
                $0.statuses[index] = status
                $0.inFlight -= 1
            }
        }
        let result = seen.withLock { $0 }
        #expect(result.statuses == Dictionary(uniqueKeysWithValues: (0..<9).map { ($0, Int32($0)) }))
        #expect(result.peak >= 1 && result.peak <= 3 && result.inFlight == 0)
        // No work: no lane, and no wait.
        let none = LockedBox(0)
        Subprocess.lanes(0, width: 4) { _ in none.withLock { $0 += 1 } }
        #expect(none.withLock { $0 } == 0)
    }

    @Test("lanes run at once: two lanes each wait for the other to have started")
    func lanesOverlap() {
        let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let met = LockedBox([Bool](repeating: false, count: 2))
        Subprocess.lanes(2, width: 2) { index in
            arrived[index].signal()
            // A bound for a hang only: run one after the other, a lane would wait here forever.
            let other = arrived[1 - index].wait(timeout: .now() + 600) == .success
            met.withLock { $0[index] = other }
        }
        #expect(met.withLock { $0 } == [true, true])
    }

    @Test("a program that is not there cannot start, and says which and why")
    func cannotStart() {
        #expect {
            _ = try Subprocess.run("/nonexistent/matsite-tool", [], timeLimit: .seconds(600))
        } throws: { error in
            guard case SubprocessError.cannotStart(let executable, let code) = error else { return false }
            return executable == "/nonexistent/matsite-tool" && code == ENOENT
                && "\(error)" == "cannot start /nonexistent/matsite-tool: No such file or directory"
        }
    }

    @Test("a hung child meets its time limit: stopped, and the call throws timedOut with what it said")
    func hungChild() throws {
        // The shell forks sleep, which keeps the pipes open after the shell is killed: the
        // helper must not wait for their end.
        let started = ContinuousClock.now
        #expect {
            _ = try Subprocess.run("/bin/sh", ["-c", "echo starting >&2; sleep 300; echo never"], timeLimit: .seconds(1))
        } throws: { error in
            guard case SubprocessError.timedOut(_, let limit, let stderr) = error else { return false }
            return limit == .seconds(1) && stderr == "starting"
                && "\(error)".contains("ran past its time limit of 1 s and was stopped: starting")
        }
        // 1 s limit + 2 s grace + 1 s drain; generous for a loaded machine, far below 300.
        #expect(started.duration(to: .now) < .seconds(60))
    }

    @Test("a child that stops reading its input fails the write with the child's words, not a SIGPIPE")
    func stoppedReading() throws {
        let child = try Subprocess("/bin/sh", ["-c", "echo bye >&2; exit 4"], stdin: .pipe, timeLimit: .seconds(600))
        let chunk = [UInt8](repeating: 7, count: 1 << 20)
        #expect {
            // More than a pipe holds, to a child that never reads: the write must fail.
            for _ in 0..<8 { try child.write(chunk) }
        } throws: { error in
            guard case SubprocessError.stoppedReading(_, let code, let output) = error else { return false }
            return code == EPIPE && output.termination == .exited(4) && output.stderrText == "bye"
        }
    }

    @Test("a hung ffmpeg meets the export's time limit: the MP4 encoder fails instead of holding the build")
    func hungEncoder() throws {
        // Stands in for an ffmpeg that never reads its frames (a hung encoder).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-hung-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fake = folder.appendingPathComponent("ffmpeg")
        try Data("#!/bin/sh\necho 'stuck' >&2\nexec sleep 300\n".utf8).write(to: fake)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let encoder = try FFmpegLoopEncoder(
            ffmpeg: fake.path, width: 256, height: 256, durations: [40], output: folder.appendingPathComponent("loop.mp4"),
            timeLimit: .seconds(1))
        let frame = LoopCanvas(width: 256, height: 256, color: RGB(0, 0, 0))
        let started = ContinuousClock.now
        #expect {
            // 196 KB a frame: the pipe fills at once and the write blocks until the limit stops it.
            for _ in 0..<64 { try encoder.add(frame, durationMs: 40) }
            try encoder.finish()
        } throws: { error in
            guard case ExportError.ffmpeg(let output, .timedOut) = error else { return false }
            return output == "loop.mp4" && "\(error)".contains("ran past its time limit of 1 s") && "\(error)".contains("stuck")
        }
        #expect(started.duration(to: .now) < .seconds(60))
    }
}
