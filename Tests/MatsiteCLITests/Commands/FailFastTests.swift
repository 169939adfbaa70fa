import Foundation
import Testing

@testable import MatsiteKit

/// The day the feed is down: `matsite build` and `matsite check` against a port nothing
/// listens on (127.0.0.1) and a name that does not resolve (`.invalid`), with the default
/// `http:` settings, end soon with exit 1, naming the host (and port) and a hint that fits.
/// The time bound is generous (a loaded machine must pass); before, these ran for minutes.
@Suite("Failing fast on a dead host")
struct FailFastTests {
    static func config(url: String) -> String {
        """
        title: Down
        output: site
        cache: cache
        animations:
          - id: radar
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            source: { url: "\(url)" }
            frames: { last: PT1H, step: PT5M }
            time_format: "%Y%m%d%H%M"
        """
    }

    struct Target: Sendable, CustomStringConvertible {
        let name: String
        let url: @Sendable (Int) -> String
        let says: @Sendable (Int) -> [String]
        var description: String { name }
    }

    static let targets = [
        Target(
            name: "a closed port on 127.0.0.1", url: { "http://127.0.0.1:\($0)/radar/{time}/{z}/{x}/{y}.png" },
            says: { ["connection refused by 127.0.0.1:\($0)", "hint: nothing listens on 127.0.0.1:\($0): is the server up, the port right?"] }),
        Target(
            name: "a host name that does not resolve", url: { _ in "http://radar.example.invalid/radar/{time}/{z}/{x}/{y}.png" },
            says: { _ in ["the host name radar.example.invalid does not resolve", "hint: check the host name radar.example.invalid"] }),
    ]

    @Test("build and check end within 20 s with exit 1, naming the host and a fitting hint", arguments: targets)
    func deadHost(_ target: Target) async throws {
        let closed = try ClosedPort()
        let port = closed.port
        defer { withExtendedLifetime(closed) {} }
        let project = try CLI.scratch("down")
        defer { try? FileManager.default.removeItem(at: project) }
        try Data(Self.config(url: target.url(port)).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        for command in ["build", "check"] {
            let started = ContinuousClock.now
            let result = try CLI.run([command], in: project, timeout: 300)
            let elapsed = started.duration(to: .now)
            let text = result.out + result.err
            #expect(result.status == 1, "\(command): \(text)")
            #expect(elapsed < .seconds(20), "\(command) took \(elapsed)")
            for words in target.says(port) { #expect(text.contains(words), "\(command): \(text)") }
            #expect(!text.contains("set missing: transparent"), "hiding tiles does not mend a dead host: \(text)")
        }
        #expect(!FileManager.default.fileExists(atPath: project.appendingPathComponent("site").path))
    }

    @Test("check prints the config's verdict and each animation as it goes, before a slow probe answers")
    func checkStreams() async throws {
        try await withTestServer { server in
            server.route(prefix: "/radar/", .noResponse)
            let project = try CLI.scratch("stream")
            defer { try? FileManager.default.removeItem(at: project) }
            let yaml = Self.config(url: server.url("/radar/{time}/{z}/{x}/{y}.png")) + "\nhttp: { timeout_s: 600, stall_s: 600 }\n"
            try Data(yaml.utf8).write(to: project.appendingPathComponent("matsite.yml"))
            let check = try CLI.Background(["check"], in: project)
            defer { check.stop(signal: SIGKILL) }
            // The probes hang (the server never answers, for 600 s): the lines before them
            // must already be out, through a pipe.
            let lines = await check.waitForOutput(containing: "radar:")
            #expect(lines?.hasPrefix("config ") == true && lines?.contains("matsite.yml: ok, 1 animation(s)\n") == true, "\(lines ?? "")")
            #expect(check.isRunning)
        }
    }
}
