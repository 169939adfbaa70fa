import Foundation
import Testing

@testable import MatsiteKit

/// Offline build sandboxes run in a network namespace without loopback (`unshare -n`).
/// Foundation's `Process` could not start there (its run loop needs a socket pair) and an
/// MP4 export hung; ffmpeg now runs through `Subprocess` (posix_spawn, poll, no run loop).
@Suite("Exports in a network namespace without loopback", .enabled(if: Unshare.available, "unshare -n needs root or unprivileged user namespaces"))
struct OfflineExportTests {
    @Test("a build with export: [mp4, gif, webp] completes under unshare -n and writes all three loops")
    func mp4UnderUnshare() throws {
        let project = try CLI.scratch("unshare")
        defer { try? FileManager.default.removeItem(at: project) }
        try Data(
            """
            title: Offline
            output: site
            animations:
              - id: demo
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                source: { demo: radar }
                frames: { count: 4 }
                export: [mp4, gif, webp]
            """.utf8
        ).write(to: project.appendingPathComponent("matsite.yml"))
        let started = ContinuousClock.now
        // The binary runs in a new network namespace: no network, not even loopback.
        let output = try Subprocess.run(
            "/usr/bin/unshare", ["-n", "--wd", project.path, try CLI.binary().path, "build"], timeLimit: .seconds(600))
        let said = output.stderrText
        #expect(output.termination == .exited(0), "\(said)")
        #expect(!said.contains("CFSocket"), "\(said)")
        #expect(started.duration(to: .now) < .seconds(300), "a hang is a failure, not a slow pass")
        let files = CLI.tree(project.appendingPathComponent("site/demo"))
        for ext in ["mp4", "gif", "webp"] {
            #expect(files.contains { $0.hasPrefix("loop-") && $0.hasSuffix(".\(ext)") }, "\(ext): \(files)")
        }
        let mp4 = try #require(files.first { $0.hasSuffix(".mp4") })
        let bytes = try Data(contentsOf: project.appendingPathComponent("site/demo/\(mp4)"))
        #expect(bytes.count > 1000 && bytes[4..<8] == Data("ftyp".utf8), "an MP4 file")
    }
}

/// Whether this machine lets a test make a network namespace (`unshare -n`).
enum Unshare {
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
            let output = try? Subprocess.run("/usr/bin/unshare", ["-n", "/bin/true"], timeLimit: .seconds(60))
        else { return false }
        return output.termination == .exited(0)
    }()
}
