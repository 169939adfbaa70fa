import Foundation
import Testing

/// `matsite check` end to end: the real binary against a TestServer on 127.0.0.1.
@Suite("matsite check")
struct CheckCommandTests {
    static func config(_ template: String) -> String {
        """
        title: Check test
        output: site
        cache: cache
        http: { retry_delay_ms: 10, retries: 1, timeout_s: 5 }
        animations:
          - id: loop
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            source: { url: "\(template)" }
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
            #expect(result.out.contains("problem: frame 0"), "stdout: \(result.out)")
            #expect(result.out.contains("404"), "stdout: \(result.out)")
            #expect(result.err.contains("some sources could not be probed"))
            #expect(server.requestCount(prefix: "/missing/") >= 1)
            #expect(CLI.tree(project) == ["matsite.yml"], "no output folder, no cache folder, no lock")
        }
    }

    @Test("check on a good config exits 0, prints frames, size and probe lines, and writes nothing")
    func goodSource() async throws {
        try await withTestServer { server in
            let png = CacheBench.solidTile(seed: "check")
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
            #expect(result.out.contains("-> PNG, \(png.count) bytes"), "stdout: \(result.out)")
            #expect(result.out.contains("probed 2 tile(s), one per frame: 2 ok"), "stdout: \(result.out)")
            #expect(!result.out.contains("problem"))
            // One tile per frame, one frame each: two requests, at the two times.
            let paths = server.allRequests.map(\.path)
            #expect(paths.count == 2)
            #expect(paths.contains { $0.hasPrefix("/t/1000/4/") } && paths.contains { $0.hasPrefix("/t/1010/4/") })
            #expect(CLI.tree(project) == ["matsite.yml"], "no output folder, no cache folder, no lock")
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
}
