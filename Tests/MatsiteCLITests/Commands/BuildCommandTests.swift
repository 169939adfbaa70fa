import Foundation
import Testing

@testable import MatsiteKit

/// `matsite build`, `--version` and `--help` through the real binary: exact output and exit codes.
///
/// `swift build --build-tests` and `swift test` build every product, so the binary is in
/// `.build/debug` next to the test bundle; if it is not, the tests fail saying so.
@Suite("matsite build, --version, --help")
struct BuildCommandTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary beside the test bundle (the products folder of this build, whatever its
    /// path or configuration), else the package's `.build/debug`.
    static let binary: URL = {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("matsite"),
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("matsite"),
            root.appendingPathComponent(".build/debug/matsite"),
        ].compactMap { $0 }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }()

    /// Runs the binary in `directory`, waiting without blocking a concurrency thread.
    func run(_ arguments: [String], in directory: URL? = nil) async throws -> Run {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.binary.path),
            "no matsite binary at \(Self.binary.path): run `swift build` (or `swift build --build-tests`) first")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? scratch
        let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try outHandle.close()
        try errHandle.close()
        return Run(status: status, stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8))
    }

    @Test("--version prints the name and version and exits 0")
    func version() async throws {
        let result = try await run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "matsite \(Matsite.version)\n")
    }

    @Test("--help shows the commands, the exit codes and examples")
    func help() async throws {
        let result = try await run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"))
        #expect(result.stdout.contains("\n  matsite build"))
        #expect(result.stdout.contains("Exit codes"))
        #expect(result.stdout.contains("build"))
    }

    @Test("a bad config exits 2 with file:line: key: message on stderr and writes nothing")
    func badConfig() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let config = site.root.appendingPathComponent("matsite.yml")
        try Data(
            site.yaml(
                """
                  - id: radar
                    bbox: [-95.5, 29.0, -74.5, 43.5]
                    zoom: 23
                    source: { url: "https://tiles.example.org/{z}/{x}/{y}.png" }
                    frames: { count: 2 }
                """
            ).utf8
        ).write(to: config)
        let result = try await run(["build"], in: site.root)
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(config.path):9: animations[0].zoom: must be from 0 to 22"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try site.entries() == ["matsite.yml"])
    }

    @Test("--config names the file in the error, relative paths resolved")
    func configOption() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try Data("titel: x\n".utf8).write(to: site.root.appendingPathComponent("other.yml"))
        let result = try await run(["build", "--config", "other.yml"], in: site.root)
        #expect(result.status == 2)
        #expect(result.stderr.contains("other.yml:1: titel: unknown key (did you mean \"title\"?)"), "\(result.stderr)")
    }

    @Test("an unknown option is a usage error: exit 2")
    func usage() async throws {
        let result = try await run(["build", "--no-such-option"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--no-such-option"))
    }

    @Test("a build whose tiles fail exits 1, lists the tiles on stderr and publishes nothing")
    func failingBuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let result = try await withTestServer { server in
            server.route(prefix: "/t/", .status(404))
            try Data(
                site.yaml(
                    """
                      - id: world
                        bbox: [-170, -60, 170, 60]
                        zoom: 1
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{z}/{x}/{y}.png"))" }
                        frames: { count: 1 }
                    """
                ).utf8
            ).write(to: site.root.appendingPathComponent("matsite.yml"))
            return try await run(["build", "--quiet"], in: site.root)
        }
        #expect(result.status == 1)
        #expect(result.stderr.contains("4 tile(s) could not be had"), "\(result.stderr)")
        #expect(result.stderr.contains("/t/1/0/0.png") && result.stderr.contains("/t/1/1/1.png"))
        #expect(!FileManager.default.fileExists(atPath: site.output.path))
    }

    @Test("one loop of two failing: the other publishes, exit 3, the failed loop said once even under --quiet, status.json says which")
    func partialBuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let result = try await withTestServer { server in
            server.route(prefix: "/t/", .status(500, body: "upstream database unavailable"))
            try Data(
                site.yaml(
                    """
                      - id: demo
                        bbox: [-10.0, 40.0, 10.0, 52.0]
                        zoom: 3
                        source: { demo: radar }
                        frames: { count: 2 }
                      - id: broken
                        bbox: [-170, -60, 170, 60]
                        zoom: 1
                        source: { url: "\(server.url("/t/{z}/{x}/{y}.png"))" }
                        frames: { count: 1 }
                    """
                ).utf8
            ).write(to: site.root.appendingPathComponent("matsite.yml"))
            return try await run(["build", "--quiet"], in: site.root)
        }
        #expect(result.status == 3, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("error: broken: not built, and never published, so not in the site index: fetch: 4 tile(s) could not be had"),
            "\(result.stderr)")
        #expect(result.stderr.contains("upstream database unavailable"), "\(result.stderr)")
        #expect(!result.stderr.contains("ExitCode"), "\(result.stderr)")
        #expect(try site.frames("demo").count == 2)
        let status = try #require(SiteStatus.read(output: site.output))
        #expect(status.animations.map(\.id) == ["demo", "broken"] && status.animations.map(\.state) == [.ok, .unpublished])
    }

    @Test("40 missing tiles fail the build with one grouped entry and one hint; --verbose lists each")
    func groupedFailure() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let (quiet, verbose) = try await withTestServer { server in
            server.route(prefix: "/t/", .status(404))
            try Data(
                site.yaml(
                    """
                      - id: world
                        bbox: [-170, -60, 170, 60]
                        zoom: 1
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))" }
                        frames: { count: 10 }
                    """
                ).utf8
            ).write(to: site.root.appendingPathComponent("matsite.yml"))
            return (try await run(["build", "--quiet"], in: site.root), try await run(["build", "--verbose"], in: site.root))
        }
        #expect(quiet.status == 1 && verbose.status == 1)
        #expect(quiet.stderr.contains("40 tile(s) could not be had"), "\(quiet.stderr)")
        #expect(quiet.stderr.contains("world: 40 tiles in 10 frames: HTTP 404 (no tile here)"), "\(quiet.stderr)")
        #expect(quiet.stderr.components(separatedBy: "hint:").count == 2, "one hint: \(quiet.stderr)")
        // Three examples, not forty URLs.
        #expect(quiet.stderr.components(separatedBy: "/t/").count - 1 == 3, "\(quiet.stderr)")
        #expect(verbose.stderr.components(separatedBy: "failed: world frame").count - 1 == 40, "\(verbose.stderr)")
        // --verbose has just listed them: its error does not send the reader to --verbose.
        #expect(!verbose.stderr.contains("--verbose"), "\(verbose.stderr)")
        let plain = try await withTestServer { server in
            server.route(prefix: "/t/", .status(404))
            let yaml = try String(contentsOf: site.root.appendingPathComponent("matsite.yml"), encoding: .utf8)
            let moved = yaml.replacing(#/http://127\.0\.0\.1:\d+/#, with: String(server.url("").dropLast()))
            try Data(moved.utf8).write(to: site.root.appendingPathComponent("matsite.yml"))
            return try await run(["build"], in: site.root)
        }
        #expect(plain.status == 1 && plain.stderr.contains("--verbose lists every tile"), "\(plain.stderr)")
    }

    @Test("a build that works exits 0, publishes the site and prints a summary")
    func workingBuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let result = try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try Data(
                site.yaml(
                    """
                      - id: world
                        bbox: [-170, -60, 170, 60]
                        zoom: 1
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))" }
                        frames: { count: 2 }
                    """
                ).utf8
            ).write(to: site.root.appendingPathComponent("matsite.yml"))
            return try await run(["build"], in: site.root)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("2 frames"), "\(result.stderr)")
        #expect(try site.frames("world").count == 2)
    }
}
