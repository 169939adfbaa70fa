// Runs the real `matsite` binary for the command tests: to its end with its exit status and
// output, or in the background (serve) with its stderr readable while it runs.

import Foundation
import MatsiteSupport
import Testing

package enum CLI {
    /// The package root, from this file's path (`Sources/MatsiteTestSupport/CLI.swift`).
    package static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `.build/debug/matsite`, which `swift build --build-tests` leaves behind.
    package static func binary() throws -> URL {
        let url = packageRoot.appendingPathComponent(".build/debug/matsite")
        try #require(FileManager.default.isExecutableFile(atPath: url.path), "build the CLI first: swift build --build-tests")
        return url
    }

    package struct Result {
        package let status: Int32
        package let out: String
        package let err: String
    }

    /// Runs `matsite arguments...` in `directory` to its end (killed after `timeout` s: a
    /// bound for a hang, far beyond a build on a loaded machine).
    package static func run(_ arguments: [String], in directory: URL, timeout: Double = 600) throws -> Result {
        let process = try Background(arguments, in: directory)
        process.wait(timeout: timeout)
        return Result(status: process.status, out: process.out, err: process.err)
    }

    /// A scratch folder under the temporary folder.
    package static func scratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-cli-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The folder's entries, recursively, relative to it.
    package static func tree(_ folder: URL) -> [String] {
        (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).sorted()
    }

    /// `matsite` running in the background; output collected as it comes.
    package final class Background: @unchecked Sendable {
        private let process = Process()
        private let output = LockedBox((out: Data(), err: Data()))
        private let readers = DispatchGroup()

        package init(_ arguments: [String], in directory: URL) throws {
            process.executableURL = try CLI.binary()
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardInput = FileHandle.nullDevice
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            for (pipe, isOut) in [(out, true), (err, false)] {
                readers.enter()
                let handle = pipe.fileHandleForReading
                DispatchQueue.global().async { [self] in
                    while true {
                        let chunk = handle.availableData
                        if chunk.isEmpty { break }
                        output.withLock { if isOut { $0.out += chunk } else { $0.err += chunk } }
                    }
                    readers.leave()
                }
            }
        }

        package var isRunning: Bool { process.isRunning }
        package var pid: Int32 { process.processIdentifier }
        package var out: String { output.withLock { String(decoding: $0.out, as: UTF8.self) } }
        package var err: String { output.withLock { String(decoding: $0.err, as: UTF8.self) } }
        /// Exit status (after `stop` or once it ended).
        package var status: Int32 { process.terminationStatus }
        /// True when it ended by a signal rather than an exit.
        package var signalled: Bool { process.terminationReason == .uncaughtSignal }

        /// Waits until stderr matches `pattern` (a regular expression) and returns the first
        /// match's captures, or nil once the process ended without it or after `idle` s in
        /// which it wrote nothing. A process that goes on writing (progress lines) is waited
        /// for however loaded the machine: only silence counts, not the clock.
        package func waitForError(matching pattern: String, idle: Double = 300) async -> [String]? {
            let regex = try? NSRegularExpression(pattern: pattern)
            return await waitFor(idle: idle) {
                let text = self.err
                guard let regex, let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else {
                    return nil
                }
                return (0..<match.numberOfRanges).map { i in
                    Range(match.range(at: i), in: text).map { String(text[$0]) } ?? ""
                }
            }
        }

        /// Waits until stdout holds `text` and returns it, or nil once the process ended
        /// without it or after `idle` s in which it wrote nothing.
        package func waitForOutput(containing text: String, idle: Double = 300) async -> String? {
            await waitFor(idle: idle) {
                let now = self.out
                return now.contains(text) ? now : nil
            }
        }

        /// Polls `found` until it gives a value; gives up once the process ended (after one
        /// last look) or wrote nothing to either stream for `idle` s.
        private func waitFor<T>(idle: Double, _ found: () -> T?) async -> T? {
            var written = output.withLock { $0.out.count + $0.err.count }
            var quietSince = Date()
            while Date().timeIntervalSince(quietSince) < idle {
                if let value = found() { return value }
                if !isRunning { return found() }
                try? await Task.sleep(for: .milliseconds(50))
                let now = output.withLock { $0.out.count + $0.err.count }
                if now != written { (written, quietSince) = (now, Date()) }
            }
            return nil
        }

        /// Waits for the end (killing it after `timeout` s) and for the output.
        package func wait(timeout: Double = 600) {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            stop(signal: SIGKILL)
        }

        /// Sends `signal` if still running, waits for the end and for the output.
        package func stop(signal: Int32 = SIGTERM) {
            if process.isRunning { kill(process.processIdentifier, signal) }
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            readers.wait()
        }
    }
}
