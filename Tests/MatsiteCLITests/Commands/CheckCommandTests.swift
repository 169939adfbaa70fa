import Foundation
import Testing

/// `matsite check` end to end: the real binary against a TestServer on 127.0.0.1.
@Suite("matsite check")
struct CheckCommandTests {
    static func config(_ template: String, sourceExtra: String = "") -> String {
        """
        title: Check test
        output: site
        cache: cache
        http: { retry_delay_ms: 10, retries: 1, timeout_s: \(TestSite.patientTimeout) }
        animations:
          - id: loop
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            source: { url: "\(template)"\(sourceExtra) }
            frames: { times: [2026-11-21T10:00:00Z, 2026-11-21T10:10:00Z] }
            time_format: "%H%M"
        """
    }

    @Test("check on a config whose source 404s names the broken source, exits 1 and writes nothing")
    func brokenSource() async throws {
        try await withTestServer { server in
            let project = try CLI.scratch("check-404")
            defer { try? FileManager.default.removeItem(at: project) }
            try Data(Self.config(server.url("/missing/{time}/{z}/{x}/{y}.png")).utf8).write(to: project.appendingPathComponent("matsite.yml"))
            let result = try CLI.run(["check"], in: project)
            #expect(result.status == 1, "stdout: \(result.out)\nstderr: \(result.err)")
            #expect(result.out.contains("loop:"))
            // Both frames' probes failed alike: one grouped problem with its hint.
            #expect(result.out.contains("problem: 2 probes (2 frames): HTTP 404 (no tile here); e.g. frame 0: "), "stdout: \(result.out)")
            #expect(result.out.contains("    hint: the source has no tile there"), "stdout: \(result.out)")
            #expect(result.out.contains("404"), "stdout: \(result.out)")
            #expect(result.err.contains("error: a build of this config would fail (see problems above)"))
            #expect(server.requestCount(prefix: "/missing/") >= 1)
            #expect(CLI.tree(project) == ["matsite.yml"], "no output folder, no cache folder, no lock")
        }
    }

    @Test("check on a good config exits 0, prints frames, size and probe lines, and writes nothing")
    func goodSource() async throws {
        try await withTestServer { server in
            let png = TestTiles.solid(seed: "check")
            server.route(prefix: "/t/", .ok(png, contentType: "image/png", etag: "\"a\"", cacheControl: "max-age=600"))
            let project = try CLI.scratch("check-ok")
            defer { try? FileManager.default.removeItem(at: project) }
            try Data(Self.config(server.url("/t/{time}/{z}/{x}/{y}.png")).utf8).write(to: project.appendingPathComponent("matsite.yml"))
            let result = try CLI.run(["check"], in: project)
            #expect(result.status == 0, "stdout: \(result.out)\nstderr: \(result.err)")
            #expect(result.out.contains("matsite.yml: ok, 1 animation(s)"))
            #expect(result.out.contains("frames: 2, "), "stdout: \(result.out)")
            #expect(result.out.contains("px at zoom 4, 4 tiles each"), "stdout: \(result.out)")
            #expect(result.out.contains("times: 2026-11-21T10:00:00Z .. 2026-11-21T10:10:00Z"), "stdout: \(result.out)")
            #expect(result.out.contains("-> PNG, \(png.count) bytes, 256x256 px"), "stdout: \(result.out)")
            #expect(result.out.contains("probed 2 tile(s), one per frame: 2 ok"), "stdout: \(result.out)")
            #expect(!result.out.contains("problem"))
            // One tile per frame, one frame each: two requests, at the two times.
            let paths = server.allRequests.map(\.path)
            #expect(paths.count == 2)
            #expect(paths.contains { $0.hasPrefix("/t/1000/4/") } && paths.contains { $0.hasPrefix("/t/1010/4/") })
            #expect(CLI.tree(project) == ["matsite.yml"], "no output folder, no cache folder, no lock")
        }
    }

    @Test("check reads each point layer as a build would: a count when good, the row and column when not")
    func pointLayers() async throws {
        try await withTestServer { server in
            server.route(prefix: "/t/", .ok(TestTiles.solid(seed: "points"), contentType: "image/png"))
            let project = try CLI.scratch("check-points")
            defer { try? FileManager.default.removeItem(at: project) }
            let yaml =
                Self.config(server.url("/t/{time}/{z}/{x}/{y}.png"))
                + "\n    points:\n      - id: reports\n        csv: reports.csv\n"
            try Data(yaml.utf8).write(to: project.appendingPathComponent("matsite.yml"))
            try Data("lat,lon\n45.0,2.0\n46.5,-3.25\n".utf8).write(to: project.appendingPathComponent("reports.csv"))
            let good = try CLI.run(["check"], in: project)
            #expect(good.status == 0, "stdout: \(good.out)\nstderr: \(good.err)")
            #expect(good.out.contains("points reports: 2 points"), "stdout: \(good.out)")

            try Data("lat,lon\n45.0,2.0\n95.5,-3.25\n".utf8).write(to: project.appendingPathComponent("reports.csv"))
            let bad = try CLI.run(["check"], in: project)
            #expect(bad.status == 1, "stdout: \(bad.out)\nstderr: \(bad.err)")
            #expect(bad.out.contains("problem:") && bad.out.contains("reports.csv") && bad.out.contains("row 3"), "stdout: \(bad.out)")
            #expect(CLI.tree(project) == ["matsite.yml", "reports.csv"], "check writes nothing")
        }
    }

    @Test("check on a bad config exits 2 naming the key and line")
    func badConfig() throws {
        let project = try CLI.scratch("check-bad")
        defer { try? FileManager.default.removeItem(at: project) }
        try Data("title: x\nanimations:\n  - id: Bad Id\n".utf8).write(to: project.appendingPathComponent("matsite.yml"))
        let result = try CLI.run(["check"], in: project)
        #expect(result.status == 2)
        #expect(result.err.contains("matsite.yml"), "stderr: \(result.err)")
        #expect(CLI.tree(project) == ["matsite.yml"])
    }

    @Test("check probes the tiles' size: 512-pixel tiles under tile_size 256 are a problem naming tile_size: 512")
    func tileSizeProbe() async throws {
        // A TiTiler-like server: 512-pixel JPEG tiles (TiTiler's default size), made by Pillow.
        let jpeg = try Self.fixture512()
        try await withTestServer { server in
            server.route(prefix: "/t/", .ok(jpeg, contentType: "image/jpeg"))
            let project = try CLI.scratch("check-512")
            defer { try? FileManager.default.removeItem(at: project) }
            let file = project.appendingPathComponent("matsite.yml")
            try Data(Self.config(server.url("/t/{time}/{z}/{x}/{y}.jpg")).utf8).write(to: file)
            let wrong = try CLI.run(["check"], in: project)
            #expect(wrong.status == 1, "stdout: \(wrong.out)\nstderr: \(wrong.err)")
            #expect(wrong.out.contains("tile is 512x512 pixels, expected 256x256"), "stdout: \(wrong.out)")
            #expect(wrong.out.contains("set tile_size: 512"), "stdout: \(wrong.out)")

            try Data(Self.config(server.url("/t/{time}/{z}/{x}/{y}.jpg"), sourceExtra: ", tile_size: 512").utf8).write(to: file)
            let right = try CLI.run(["check"], in: project)
            #expect(right.status == 0, "stdout: \(right.out)\nstderr: \(right.err)")
            #expect(right.out.contains("-> JPEG, \(jpeg.count) bytes, 512x512 px"), "stdout: \(right.out)")
            #expect(right.out.contains("probed 2 tile(s), one per frame: 2 ok"), "stdout: \(right.out)")
        }
    }

    @Test("check prints its problems before its verdict when stdout and stderr share one pipe")
    func problemsBeforeVerdict() async throws {
        try await withTestServer { server in
            let project = try CLI.scratch("check-order")
            defer { try? FileManager.default.removeItem(at: project) }
            try Data(Self.config(server.url("/missing/{time}/{z}/{x}/{y}.png")).utf8).write(to: project.appendingPathComponent("matsite.yml"))
            let process = Process()
            process.executableURL = try CLI.binary()
            process.arguments = ["check"]
            process.currentDirectoryURL = project
            process.standardInput = FileHandle.nullDevice
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            // Read to the end first: the pipe must never fill while we wait.
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            #expect(process.terminationStatus == 1)
            let problem = try #require(text.range(of: "problem: "), "\(text)")
            let verdict = try #require(text.range(of: "error: a build of this config would fail"), "\(text)")
            #expect(problem.lowerBound < verdict.lowerBound, "\(text)")
        }
    }

    /// A 512-pixel JPEG tile written by Pillow (Tests/MatsiteImagingTests/Fixtures/make_fixtures.py).
    static func fixture512() throws -> [UInt8] {
        let url = CLI.packageRoot.appendingPathComponent("Tests/MatsiteImagingTests/Fixtures/pillow-jpeg-512/tile.jpg")
        return [UInt8](try Data(contentsOf: url))
    }
}
