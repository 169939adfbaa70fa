import Foundation
import Testing

/// `matsite serve` end to end: the real binary on a free port of 127.0.0.1, asked with a
/// raw HTTP client.
@Suite("matsite serve")
struct ServeCommandTests {
    static func config(title: String) -> String {
        """
        title: \(title)
        output: site
        cache: cache
        leaflet: /usr/share/javascript/leaflet
        animations:
          - id: demo
            title: Demo
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            source: { demo: radar }
            frames: { count: 2 }
        """
    }

    /// Starts `matsite serve --port 0 ...` in `project` and returns it with its port.
    static func start(_ extra: [String], in project: URL) async throws -> (CLI.Background, Int) {
        let serve = try CLI.Background(["serve", "--port", "0"] + extra, in: project)
        guard let match = await serve.waitForError(matching: #"serving .* on http://127\.0\.0\.1:([0-9]+)/"#),
            let port = Int(match[1]), port > 0
        else {
            serve.stop(signal: SIGKILL)
            Issue.record("no serving line; stderr: \(serve.err)")
            throw CancellationError()
        }
        return (serve, port)
    }

    @Test("serve --port 0 builds, says its port, and serves pages no-cache, frames immutable, 404 for missing files")
    func serveEndToEnd() async throws {
        let project = try CLI.scratch("serve")
        defer { try? FileManager.default.removeItem(at: project) }
        try Data(Self.config(title: "Serve test").utf8).write(to: project.appendingPathComponent("matsite.yml"))
        let (serve, port) = try await Self.start([], in: project)
        defer { serve.stop(signal: SIGKILL) }

        #expect(serve.err.contains("serving \(project.path)/site on http://127.0.0.1:\(port)/ (Ctrl-C to stop)\n"))
        let index = try await RawHTTP.request(port: port, "/index.html")
        #expect(index.status == 200)
        #expect(index.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(index.header("Cache-Control")?.contains("no-cache") == true)
        #expect(index.text.contains("Serve test"))

        let root = try await RawHTTP.request(port: port, "/")
        #expect(root.status == 200 && root.body == index.body)

        let manifest = try await RawHTTP.request(port: port, "/demo/manifest.json")
        #expect(manifest.status == 200)
        #expect(manifest.header("Cache-Control")?.contains("no-cache") == true)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(manifest.body)) as? [String: Any])
        let frames = try #require(json["frames"] as? [[String: Any]])
        let url = try #require(frames.first?["url"] as? String)
        let frame = try await RawHTTP.request(port: port, "/demo/" + url)
        #expect(frame.status == 200)
        #expect(frame.header("Content-Type") == "image/png")
        #expect(frame.header("Cache-Control")?.contains("immutable") == true)
        #expect(frame.body.count == frames.first?["bytes"] as? Int)

        let missing = try await RawHTTP.request(port: port, "/demo/frames/9999-00000000.png")
        #expect(missing.status == 404)
        let outside = try await RawHTTP.request(port: port, "/../matsite.yml")
        #expect(outside.status == 400 || outside.status == 403 || outside.status == 404)
        #expect(!outside.text.contains("title:"))

        serve.stop(signal: SIGTERM)
        #expect(!serve.isRunning)
        #expect(!serve.err.contains("error"), "stderr: \(serve.err)")
    }

    @Test("serve --watch rebuilds when the config's title changes, and serves the new index page")
    func watchRebuilds() async throws {
        let project = try CLI.scratch("watch")
        defer { try? FileManager.default.removeItem(at: project) }
        let file = project.appendingPathComponent("matsite.yml")
        try Data(Self.config(title: "Before the change").utf8).write(to: file)
        let (serve, port) = try await Self.start(["--watch"], in: project)
        defer { serve.stop(signal: SIGKILL) }
        let before = try await RawHTTP.request(port: port, "/index.html")
        #expect(before.status == 200 && before.text.contains("Before the change"))

        // Replaced at once (as editors save), so the watcher never reads half a file.
        try Data(Self.config(title: "After the change").utf8).write(to: file, options: .atomic)
        // Waits for the event (the rebuild's summary after the change was seen), not for a
        // number of seconds that a loaded machine could outlast.
        let rebuilt = await serve.waitForError(matching: #"change seen: rebuilding\n(?:.*\n)*?(built .*|error: .*)\n"#)
        #expect(rebuilt?.last?.hasPrefix("built ") == true, "stderr: \(serve.err)")
        let page = try await RawHTTP.request(port: port, "/index.html").text
        #expect(page.contains("After the change"), "stderr: \(serve.err)")
        #expect(serve.err.contains("change seen: rebuilding"))
        serve.stop(signal: SIGTERM)
    }
}
