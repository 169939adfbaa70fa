import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Whole builds over TestServer: how failing tiles are reported, and what `missing:
/// transparent` publishes.
@Suite("Builder")
struct BuilderTests {
    /// z1 is the whole world in 2x2 tiles: this box needs all four.
    static func world(_ url: String, missing: String = "fail", frames: String = "{ count: 1 }") -> String {
        """
          - id: world
            bbox: [-170, -60, 170, 60]
            zoom: 1
            missing: \(missing)
            fallback: { levels: 0 }
            source: { url: "\(url)" }
            frames: \(frames)
        """
    }

    func tilesFailed(_ build: () async throws -> Void) async throws -> [FailedTile] {
        do {
            try await build()
        } catch BuildError.tilesFailed(let tiles) {
            return tiles
        }
        Issue.record("the build did not fail with tilesFailed")
        return []
    }

    @Test("permanent failures are all listed with their URL and cause: 404, a 500 the host repeats, an HTML page with status 200")
    func permanentFailuresListed() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            server.route("/t/0/1/0/0.png", .status(404))
            server.route("/t/0/1/1/0.png", .status(500, body: "backend exploded\n"))
            server.route("/t/0/1/0/1.png", .htmlErrorPage())
            let failed = try await tilesFailed {
                try await site.build(site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"))))
            }
            let byURL = Dictionary(uniqueKeysWithValues: failed.map { ($0.locator, $0) })
            #expect(failed.count == 3)
            #expect(byURL[server.url("/t/0/1/0/0.png")]?.reason.contains("404") == true)
            let fiveHundred = byURL[server.url("/t/0/1/1/0.png")]?.reason ?? ""
            // The server's own words come with its status: they often name the cause. Said
            // twice, they are its answer, not a hiccup: not asked a third time.
            #expect(fiveHundred == "HTTP 500: \"backend exploded\" (the host repeats this answer: not retried)", "\(fiveHundred)")
            let html = byURL[server.url("/t/0/1/0/1.png")]?.reason ?? ""
            #expect(html.contains("HTML") && html.contains("Service unavailable Try again later."), "\(html)")
            #expect(failed.allSatisfy { $0.animation == "world" && $0.frame == 0 })
            // One failing tile never stops the others: the good one was fetched too.
            #expect(server.requestCount("/t/0/1/1/1.png") == 1)
            #expect(server.requestCount("/t/0/1/1/0.png") == 2)
            #expect(server.requestCount("/t/0/1/0/0.png") == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: site.output.path))
    }

    @Test("the failure's text groups the tiles by cause: a count, examples, one hint saying how to draw them empty")
    func failureText() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            server.route(prefix: "/t/", .status(404))
            let error = await #expect(throws: BuildError.self) {
                try await site.build(site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), frames: "{ count: 2 }")))
            }
            let text = error?.description ?? ""
            #expect(text.contains("8 tile(s)"))
            #expect(text.contains("\n  world: 8 tiles in 2 frames: HTTP 404 (no tile here)\n"), "\(text)")
            #expect(text.components(separatedBy: "missing: transparent").count == 2, "the hint once: \(text)")
            // First two and last as examples; the error still carries every tile.
            #expect(
                text.contains(
                    "e.g. frame 0: \(server.url("/t/0/1/0/0.png")), frame 0: \(server.url("/t/0/1/1/0.png")), ... frame 1: \(server.url("/t/1/1/1/1.png"))"),
                "\(text)")
            #expect(error?.failedTiles?.count == 8)
        }
    }

    @Test("403 stops the source with a message saying access was refused")
    func accessRefused() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            server.route(prefix: "/t/", .status(403, body: "Forbidden\n"))
            let failed = try await tilesFailed {
                try await site.build(site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"))))
            }
            #expect(failed.count == 4)
            #expect(failed.allSatisfy { $0.reason.contains("access refused") && $0.reason.contains("403") })
            #expect(server.totalRequestCount <= 4)
        }
    }

    @Test("missing: transparent publishes the frame, transparent where the tile was, listed in missing_tiles, with a warning")
    func missingTransparent() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let reporter = RecordingReporter()
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            server.route("/t/0/1/1/0.png", .status(404))
            try await site.build(
                site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), missing: "transparent")),
                reporter: reporter)
        }
        let window = FormulaTiles.window(west: -170, south: -60, east: 170, north: 60, zoom: 1)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 1, sourceZoom: 1) { x, y, frame in
            x / 256 == 1 && y / 256 == 0 ? [0, 0, 0, 0] : FormulaTiles.rgba(x, y, frame: frame)
        }
        let image = try site.frameRGBA("world", index: 0)
        let difference = FormulaTiles.firstDifference(image.pixels, expected, width: window.width)
        #expect(difference == nil, "\(difference ?? "")")

        let missing = try #require(try site.frames("world")[0]["missing_tiles"] as? [[String: Any]])
        #expect(missing.count == 1)
        #expect(missing.first?["z"] as? Int == 1 && missing.first?["x"] as? Int == 1 && missing.first?["y"] as? Int == 0)
        #expect((missing.first?["reason"] as? String)?.contains("404") == true)
        let bounds = try #require(missing.first?["bounds"] as? [String: Double])
        #expect(bounds["west"] == 0 && bounds["east"] == 180)
        #expect(reporter.warnings.contains { $0.contains("/t/0/1/1/0.png") }, "\(reporter.warnings)")
    }

    @Test("40 tiles missing over 10 frames make one warning (count, examples), not 40 lines")
    func groupedWarning() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let reporter = RecordingReporter()
        try await withTestServer { server in
            server.route(prefix: "/t/", .status(404))
            // The 11th frame has its tiles: a loop with gaps, not an empty one.
            for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                server.route("/t/10/1/\(x)/\(y).png", .ok(try FormulaTiles.tile(z: 1, x: x, y: y, frame: 10), contentType: "image/png"))
            }
            try await site.build(
                site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), missing: "transparent", frames: "{ count: 11 }")),
                reporter: reporter)
        }
        let about = reporter.warnings.filter { $0.contains("HTTP 404") }
        #expect(about.count == 1, "\(reporter.warnings)")
        #expect(about.first?.hasPrefix("world: 40 tiles in 10 frames drawn transparent (missing: transparent)") == true)
        #expect(about.first?.contains("/t/0/1/0/0.png") == true && about.first?.contains("/t/9/1/1/1.png") == true)
        // The manifest still lists every one of them.
        let frames = try site.frames("world")
        #expect(frames.map { ($0["missing_tiles"] as? [[String: Any]])?.count ?? 0 } == Array(repeating: 4, count: 10) + [0])
    }

    @Test("frames with nothing missing carry no missing_tiles key")
    func nothingMissing() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), missing: "transparent")))
        }
        #expect(try site.frames("world")[0]["missing_tiles"] == nil)
    }

    @Test("a damaged PNG with status 200 fails its tile (missing: fail) and is drawn transparent (missing: transparent)")
    func damagedTile() async throws {
        let good = try FormulaTiles.tile(z: 1, x: 0, y: 1)
        for policy in ["fail", "transparent"] {
            let site = try TestSite()
            defer { site.remove() }
            try await withTestServer { server in
                FormulaTiles.serve(on: server)
                server.route("/t/0/1/0/1.png", .pngWithTruncatedIDAT(good))
                let yaml = site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), missing: policy))
                if policy == "fail" {
                    let failed = try await tilesFailed { try await site.build(yaml) }
                    #expect(failed.map(\.locator) == [server.url("/t/0/1/0/1.png")])
                } else {
                    try await site.build(yaml)
                    let missing = try site.frames("world")[0]["missing_tiles"] as? [[String: Any]]
                    #expect(missing?.count == 1 && missing?.first?["x"] as? Int == 0 && missing?.first?["y"] as? Int == 1)
                }
            }
        }
    }

    @Test("frames.templates fetches each frame from its own template")
    func perFrameTemplates() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server, prefix: "/a/")
            FormulaTiles.serve(on: server, prefix: "/b/")
            try await site.build(
                site.yaml(
                    """
                      - id: two
                        bbox: [-170, -60, 170, 60]
                        zoom: 1
                        fallback: { levels: 0 }
                        source: { tile_size: 256 }
                        frames:
                          templates: ["\(server.url("/a/3/{z}/{x}/{y}.png"))", "\(server.url("/b/5/{z}/{x}/{y}.png"))"]
                    """))
            #expect(server.requestCount(prefix: "/a/3/1/") == 4)
            #expect(server.requestCount(prefix: "/b/5/1/") == 4)
        }
        let window = FormulaTiles.window(west: -170, south: -60, east: 170, north: 60, zoom: 1)
        for (index, formulaFrame) in [(0, 3), (1, 5)] {
            let image = try site.frameRGBA("two", index: index)
            let expected = FormulaTiles.expectedFrame(window: window, zoom: 1, sourceZoom: 1, frame: formulaFrame)
            #expect(FormulaTiles.firstDifference(image.pixels, expected, width: window.width) == nil)
        }
    }

    @Test("the site index and the animation manifest follow the contract's schema")
    func manifests() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(
                site.yaml(
                    """
                      - id: timed
                        title: Timed loop
                        bbox: [-170, -60, 170, 60]
                        zoom: 1
                        attribution: "Tiles: test"
                        frame_duration_ms: 300
                        last_frame_duration_ms: 900
                        fallback: { levels: 0 }
                        time_format: "%H%M"
                        source: { url: "\(server.url("/t/{time}/{z}/{x}/{y}.png"))" }
                        frames: { times: [2026-11-21T00:01:00Z, 2026-11-21T00:02:00Z] }
                    """))
        }
        let index = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: site.output.appendingPathComponent("manifest.json"))) as? [String: Any])
        #expect(index["version"] as? Int == 1)
        #expect(index["title"] as? String == "Test site")
        #expect(index["generator"] as? String == "matsite \(Matsite.version)")
        let entry = try #require((index["animations"] as? [[String: Any]])?.first)
        #expect(entry["id"] as? String == "timed" && entry["page"] as? String == "timed/index.html")
        #expect(entry["embed"] as? String == "timed/embed.html" && entry["manifest"] as? String == "timed/manifest.json")
        #expect(entry["poster"] as? String == "timed/poster.png")
        for file in ["index.html", "timed/index.html", "timed/embed.html", "timed/poster.png"] {
            #expect(FileManager.default.fileExists(atPath: site.output.appendingPathComponent(file).path), "\(file)")
        }

        let manifest = try site.manifest("timed")
        #expect(manifest["version"] as? Int == 1 && manifest["id"] as? String == "timed" && manifest["title"] as? String == "Timed loop")
        #expect(manifest["zoom"] as? Int == 1 && manifest["tile_size"] as? Int == 256)
        #expect(manifest["attribution"] as? String == "Tiles: test")
        #expect(manifest["bounds"] as? [String: Double] == ["west": -170, "south": -60, "east": 170, "north": 60])
        let frames = try site.frames("timed")
        #expect(frames.map { $0["index"] as? Int } == [0, 1])
        #expect(frames.map { $0["time"] as? String } == ["2026-11-21T00:01:00Z", "2026-11-21T00:02:00Z"])
        #expect(frames.map { $0["duration_ms"] as? Int } == [300, 900])
    }

    @Test("a build sends the configured headers and the default User-Agent naming matsite with every tile request")
    func headersDuringBuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(
                site.yaml(
                    Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png")),
                    http: "{ retry_delay_ms: 10, headers: { Referer: \"https://example.org/\", X-Key: abc } }"))
            let requests = server.allRequests
            #expect(requests.count == 4)
            #expect(requests.allSatisfy { $0.header("User-Agent")?.hasPrefix("matsite/\(Matsite.version)") == true })
            #expect(requests.allSatisfy { $0.header("Referer") == "https://example.org/" && $0.header("X-Key") == "abc" })
        }
    }

    @Test("palette tiles with differing palettes give one merged palette frame with each tile's colours")
    func mixedPalettes() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let other = Palette(rgba: FormulaTiles.palette.rgba.enumerated().map { $0.offset % 4 == 0 ? 255 - $0.element : $0.element })
        let tile = { (x: Int, y: Int, palette: Palette) throws -> [UInt8] in
            var pixels: [UInt8] = []
            for row in 0..<256 { for column in 0..<256 { pixels.append(FormulaTiles.index(x * 256 + column, y * 256 + row)) } }
            return try PNGWriter.encode(width: 256, height: 256, format: .indexed(palette), pixels: pixels, level: 1)
        }
        try await withTestServer { server in
            FormulaTiles.serve(on: server, indexed: true)
            server.route("/t/0/1/1/1.png", .ok(try tile(1, 1, other), contentType: "image/png"))
            try await site.build(site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"))))
        }
        let bytes = try site.frameBytes("world", index: 0)
        // Few colours in all: one merged palette (issue 14's lighter frames), each tile's own colours.
        #expect(try PNGDecoder().info(of: bytes).colorType == 3)
        let window = FormulaTiles.window(west: -170, south: -60, east: 170, north: 60, zoom: 1)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 1, sourceZoom: 1) { x, y, _ in
            let c = (x / 256 == 1 && y / 256 == 1 ? other : FormulaTiles.palette).color(Int(FormulaTiles.index(x, y)))
            return [c.r, c.g, c.b, c.a]
        }
        let image = try site.frameRGBA("world", index: 0)
        #expect(FormulaTiles.firstDifference(image.pixels, expected, width: window.width) == nil)
    }

    @Test("with no tile at all, missing: transparent publishes no empty loop: the build fails naming the cause, the old site stays")
    func nothingAtAll() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), missing: "transparent", frames: "{ count: 2 }")))
        }
        let before = Hostile.snapshot(site.output)
        try await withTestServer { server in
            server.route(prefix: "/t/", .status(404))
            await #expect {
                try await site.build(site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), missing: "transparent", frames: "{ count: 2 }")))
            } throws: { error in
                let text = "\(error)"
                return ExitClass.of(error) == .failed && text.hasPrefix("fetch: world: not one tile of any frame could be had")
                    && text.contains("world: 8 tiles in 2 frames: HTTP 404 (no tile here)") && text.contains("hint: check the source's URL")
            }
        }
        #expect(!before.isEmpty && Hostile.snapshot(site.output) == before, "the published site is byte-for-byte as it was")
    }

    @Test("under overzoom a missing tile is listed at the source zoom, and its whole 2x2-scaled area is transparent")
    func missingUnderOverzoom() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            server.route("/t/0/1/0/0.png", .status(404))
            try await site.build(
                site.yaml(
                    """
                      - id: deep
                        bbox: [-170, -60, 170, 60]
                        zoom: 2
                        missing: transparent
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))", max_zoom: 1 }
                        frames: { count: 1 }
                    """))
        }
        let missing = try #require(try site.frames("deep")[0]["missing_tiles"] as? [[String: Any]])
        #expect(missing.count == 1 && missing.first?["z"] as? Int == 1 && missing.first?["x"] as? Int == 0 && missing.first?["y"] as? Int == 0)
        let window = FormulaTiles.window(west: -170, south: -60, east: 170, north: 60, zoom: 2)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 2, sourceZoom: 1) { x, y, frame in
            x < 256 && y < 256 ? [0, 0, 0, 0] : FormulaTiles.rgba(x, y, frame: frame)
        }
        #expect(FormulaTiles.firstDifference(try site.frameRGBA("deep", index: 0).pixels, expected, width: window.width) == nil)
    }

    @Test("the poster is the last frame scaled to at most 480 px by nearest neighbour, in the frame's format")
    func poster() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(site.yaml(Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), frames: "{ count: 2 }")))
        }
        let frame = try site.frameRGBA("world", index: 1)
        let bytes = [UInt8](try Data(contentsOf: site.output.appendingPathComponent("world/poster.png")))
        let poster = try PNGDecoder().decode(bytes, keepIndices: false)
        #expect(max(poster.width, poster.height) == 480)
        #expect(abs(Double(poster.width) / Double(poster.height) - Double(frame.width) / Double(frame.height)) < 0.01)
        var expected: [UInt8] = []
        for py in 0..<poster.height {
            let fy = ((2 * py + 1) * frame.height) / (2 * poster.height)
            for px in 0..<poster.width {
                let fx = ((2 * px + 1) * frame.width) / (2 * poster.width)
                let at = (fy * frame.width + fx) * 4
                expected += frame.pixels[at..<(at + 4)]
            }
        }
        #expect(poster.pixels == expected)
    }

    @Test("a path: source reads tiles from disk relative to the config's folder; a missing file is a missing tile")
    func localPath() async throws {
        let site = try TestSite()
        defer { site.remove() }
        for frame in 0..<2 {
            for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] where !(frame == 1 && x == 0 && y == 1) {
                let folder = site.root.appendingPathComponent("tiles/\(frame)/1/\(x)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(FormulaTiles.tile(z: 1, x: x, y: y, frame: frame)).write(to: folder.appendingPathComponent("\(y).png"))
            }
        }
        try await site.build(
            site.yaml(
                Self.world("tiles/{frame}/{z}/{x}/{y}.png", missing: "transparent", frames: "{ count: 2 }")
                    .replacingOccurrences(of: "source: { url:", with: "source: { path:")))
        let window = FormulaTiles.window(west: -170, south: -60, east: 170, north: 60, zoom: 1)
        let manifest = try site.manifest("world")
        try #require((manifest["frames"] as? [Any])?.count == 2, "\(manifest)")
        #expect(
            FormulaTiles.firstDifference(
                try site.frameRGBA("world", index: 0).pixels,
                FormulaTiles.expectedFrame(window: window, zoom: 1, sourceZoom: 1), width: window.width) == nil)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 1, sourceZoom: 1, frame: 1) { x, y, frame in
            x < 256 && y >= 256 ? [0, 0, 0, 0] : FormulaTiles.rgba(x, y, frame: frame)
        }
        #expect(FormulaTiles.firstDifference(try site.frameRGBA("world", index: 1).pixels, expected, width: window.width) == nil)
        let entries = try site.frames("world")
        try #require(entries.count == 2, "\(entries)")
        let missing = entries[1]["missing_tiles"] as? [[String: Any]]
        #expect(missing?.count == 1 && missing?.first?["x"] as? Int == 0 && missing?.first?["y"] as? Int == 1)
    }

    @Test("a whole build keeps at most http.concurrency requests in flight to the tile host")
    func concurrencyDuringBuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            let tiles = LockedBox([String: [UInt8]]())
            server.route(
                prefix: "/t/",
                .delayed(
                    .milliseconds(40),
                    .custom { request, writer in
                        let parts = request.path.dropFirst(3).replacingOccurrences(of: ".png", with: "").split(separator: "/").compactMap { Int($0) }
                        let body = try tiles.withLock { cache in
                            if let hit = cache[request.path] { return hit }
                            let png = try FormulaTiles.tile(z: parts[1], x: parts[2], y: parts[3], frame: parts[0])
                            cache[request.path] = png
                            return png
                        }
                        try await TestServer.Behaviour.ok(body, contentType: "image/png").run(request, writer)
                    }))
            try await site.build(
                site.yaml(
                    Self.world(server.url("/t/{frame}/{z}/{x}/{y}.png"), frames: "{ count: 4 }"),
                    http: "{ retry_delay_ms: 10, concurrency: 3 }"))
            #expect(server.totalRequestCount == 16)
            #expect(server.peakRequestsInFlight <= 3)
            #expect(server.peakRequestsInFlight >= 2, "requests were not overlapped at all")
        }
    }
}
