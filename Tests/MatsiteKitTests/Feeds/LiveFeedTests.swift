import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Live feeds end to end over HTTP on 127.0.0.1: a feed whose published times follow the
/// test's `--at` clock and lag their nominal time; successive builds as cron would run them.
@Suite("Live feeds: rolling windows, frame indexes, frames not published yet")
struct LiveFeedTests {
    @Test(
        "a rolling window slides frame by frame with --at, fetches only the new frame's tiles, never ends on an unpublished frame, and matches a clean build byte for byte"
    )
    func rollingWindowSlides() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(
                Self.animation(
                    url: server.url("/radar/{time}/{z}/{x}/{y}.png"),
                    frames: "{ last: PT20M, step: PT5M }"))

            // 12:01: 12:00 is due, but its tiles appear only at 12:01:30.
            let reporter = RecordingReporter()
            try await Self.build(site, yaml, at: "2026-11-21T12:01:00Z", feed: feed, reporter: reporter)
            try Self.expectFrames(site, ["11:40", "11:45", "11:50", "11:55"])
            let skipped = try #require(try site.manifest("radar")["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == ["2026-11-21T12:00:00Z"])
            #expect(skipped.first?["reason"]?.contains("not published yet") == true)
            #expect(reporter.warnings.contains { $0.contains("2026-11-21T12:00:00Z left out of this build") })
            let perFrame = server.requestCount(prefix: "/radar/202611211140/")
            #expect(perFrame > 0)

            // 12:02: 12:00 is out; only its tiles are fetched.
            server.resetCounts()
            try await Self.build(site, yaml, at: "2026-11-21T12:02:00Z", feed: feed)
            try Self.expectFrames(site, ["11:40", "11:45", "11:50", "11:55", "12:00"])
            #expect(try site.manifest("radar")["skipped"] == nil)
            #expect(Self.tileRequests(server) == [("202611211200", perFrame)].map { "\($0.0) x\($0.1)" })

            // 12:06: the window moves on to 12:05, which is not out yet: 11:45 to 12:00.
            server.resetCounts()
            try await Self.build(site, yaml, at: "2026-11-21T12:06:00Z", feed: feed)
            try Self.expectFrames(site, ["11:45", "11:50", "11:55", "12:00"])
            #expect(Self.tileRequests(server) == ["202611211205 x\(perFrame)"], "only the new frame's tiles (404 so far)")

            // 12:07: 12:05 is out.
            server.resetCounts()
            try await Self.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            try Self.expectFrames(site, ["11:45", "11:50", "11:55", "12:00", "12:05"])
            #expect(Self.tileRequests(server) == ["202611211205 x\(perFrame)"])

            // The same window built from nothing: the same frames, byte for byte.
            let clean = try TestSite()
            defer { clean.remove() }
            try await Self.build(
                clean,
                clean.yaml(
                    Self.animation(
                        url: server.url("/radar/{time}/{z}/{x}/{y}.png"),
                        frames: "{ last: PT20M, step: PT5M }")),
                at: "2026-11-21T12:07:00Z", feed: feed)
            #expect(try Self.frameDigests(clean) == Self.frameDigests(site))
        }
    }

    @Test("a RainViewer-style index: opaque paths from the items, the host from the root, latest N, and a listed frame whose tiles are not out yet left out")
    func rainViewerIndex() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(
                Self.animation(
                    url: "{host}{path}/256/{z}/{x}/{y}/2/1_1.png",
                    frames: """
                        {index: { url: "\(server.url("/public/weather-maps.json"))", items: radar.past, time: time,
                                  fields: { path: path }, globals: { host: host }, latest: 4 }}
                        """))
            // 12:01: the index already lists 12:00 (30 s lag), its tiles come at 12:01:30.
            try await Self.build(site, yaml, at: "2026-11-21T12:01:00Z", feed: feed)
            try Self.expectFrames(site, ["11:45", "11:50", "11:55"])
            let skipped = try #require(try site.manifest("radar")["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == ["2026-11-21T12:00:00Z"])
            let id1200 = FeedServer.id(try TimeInstant.parse("2026-11-21T12:00:00Z"))
            let perFrame = server.requestCount(prefix: "/v2/radar/\(id1200)/")
            #expect(perFrame > 0)

            server.resetCounts()
            try await Self.build(site, yaml, at: "2026-11-21T12:02:00Z", feed: feed)
            try Self.expectFrames(site, ["11:45", "11:50", "11:55", "12:00"])
            #expect(server.requestCount("/public/weather-maps.json") == 1)
            #expect(server.requestCount(prefix: "/v2/radar/") == perFrame, "only 12:00's tiles")
            #expect(server.requestCount(prefix: "/v2/radar/\(id1200)/") == perFrame)

            server.resetCounts()
            try await Self.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            try Self.expectFrames(site, ["11:50", "11:55", "12:00", "12:05"])
            let id1205 = FeedServer.id(try TimeInstant.parse("2026-11-21T12:05:00Z"))
            #expect(server.requestCount(prefix: "/v2/radar/") == perFrame)
            #expect(server.requestCount(prefix: "/v2/radar/\(id1205)/") == perFrame)
        }
    }

    @Test("limits.max_frames counts the frames built: latest N under it builds from an index listing more")
    func latestUnderTheLimit() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server)
            let site = try TestSite()
            defer { site.remove() }
            func yaml(_ latest: String) -> String {
                site.yaml(
                    Self.animation(
                        url: server.url("/radar/{time}/{z}/{x}/{y}.png"),
                        frames: "{index: { url: \"\(server.url("/times.json"))\", items: \"\", time: \"\"\(latest) }}"))
                    + "\nlimits: { max_frames: 3 }\n"
            }
            // The newest 3 listed: 12:00's tiles are not out yet, so two frames.
            try await Self.build(site, yaml(", latest: 3"), at: "2026-11-21T12:01:00Z", feed: feed)
            try Self.expectFrames(site, ["11:50", "11:55"])
            let error = await #expect(throws: (any Error).self) {
                try await Self.build(site, yaml(""), at: "2026-11-21T12:01:00Z", feed: feed)
            }
            #expect(error.map { "\($0)" }?.contains("6 frames, over the limit of 3 (limits.max_frames") == true, "\(String(describing: error))")
            try Self.expectFrames(site, ["11:50", "11:55"])
        }
    }

    @Test("a plain JSON list of ISO times (items and time empty) fills {time}, and gives the same frames as the rolling window")
    func plainListIndex() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(
                Self.animation(
                    url: server.url("/radar/{time}/{z}/{x}/{y}.png"),
                    frames: """
                        {index: { url: "\(server.url("/times.json"))", items: "", time: "" }}
                        """))
            try await Self.build(site, yaml, at: "2026-11-21T12:01:00Z", feed: feed)
            try Self.expectFrames(site, ["11:35", "11:40", "11:45", "11:50", "11:55"])
            #expect((try site.manifest("radar")["skipped"] as? [[String: String]])?.count == 1)

            let window = try TestSite()
            defer { window.remove() }
            try await Self.build(
                window,
                window.yaml(
                    Self.animation(
                        url: server.url("/radar/{time}/{z}/{x}/{y}.png"),
                        frames: "{ last: PT25M, step: PT5M, delay: PT1M }")),
                at: "2026-11-21T12:01:00Z", feed: feed)
            #expect(try Self.frameDigests(window) == Self.frameDigests(site))
        }
    }

    @Test("bad index documents fail with the URL, the path and the item, and publish nothing", arguments: Self.badDocuments)
    func badIndex(_ bad: BadDocument) async throws {
        try await withTestServer { server in
            let feed = FeedServer(server)
            server.route("/bad.json", .ok(bad.body, contentType: "application/json"))
            let site = try TestSite()
            defer { site.remove() }
            let url = server.url("/bad.json")
            let yaml =
                site.yaml(
                    Self.animation(
                        url: "{host}{path}/256/{z}/{x}/{y}/2/1_1.png",
                        frames: """
                            {index: { url: "\(url)", items: radar.past, time: time, fields: { path: path }, globals: { host: host } }}
                            """)) + "\nlimits: { max_frames: 5 }"
            await #expect {
                try await Self.build(site, yaml, at: "2026-11-21T12:01:00Z", feed: feed)
            } throws: { error in
                // Stamped once by the Builder with its stage; the index's own error underneath.
                guard let stamped = error as? BuildError, stamped.failedStage == .plan,
                    let error = stamped.underlying as? FrameIndexError
                else { return false }
                let text = error.description
                return "\(stamped)" == "plan: \(text)" && error.document == url && text.hasPrefix("frame index \(url): ")
                    && bad.says.allSatisfy { text.contains($0) }
            }
            #expect(!FileManager.default.fileExists(atPath: site.output.path), "nothing published")
            #expect(server.requestCount(prefix: "/v2/radar/") == 0)
        }
    }

    @Test("build --at takes the given time; a bad --at is a usage error (exit 2)")
    func atOption() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server)
            feed.set("2026-11-21T12:07:00Z")
            let project = try CLI.scratch("at")
            defer { try? FileManager.default.removeItem(at: project) }
            let yaml = """
                output: site
                cache: cache
                http: { retry_delay_ms: 10, retries: 1 }
                animations:
                \(Self.animation(url: server.url("/radar/{time}/{z}/{x}/{y}.png"), frames: "{ last: PT10M, step: PT5M }"))
                """
            try Data(yaml.utf8).write(to: project.appendingPathComponent("matsite.yml"))
            let bad = try CLI.run(["build", "--at", "yesterday"], in: project)
            #expect(bad.status == 2 && bad.err.contains("--at"), "stderr: \(bad.err)")
            let built = try CLI.run(["build", "--at", "2026-11-21T12:07:00Z"], in: project)
            #expect(built.status == 0, "stderr: \(built.err)")
            let data = try Data(contentsOf: project.appendingPathComponent("site/radar/manifest.json"))
            let manifest = try JSONDecoder.manifest.decode(AnimationManifest.self, from: data)
            #expect(manifest.frames.compactMap(\.time?.iso8601) == ["2026-11-21T11:55:00Z", "2026-11-21T12:00:00Z", "2026-11-21T12:05:00Z"])
            let checked = try CLI.run(["check", "--at", "2026-11-21T12:07:00Z"], in: project)
            #expect(checked.status == 0 && checked.out.contains("2026-11-21T11:55:00Z .. 2026-11-21T12:05:00Z"), "stdout: \(checked.out)")
        }
    }
}

/// A malformed or hostile index document and words its error must contain.
struct BadDocument: Sendable, CustomTestStringConvertible {
    let name: String
    let body: [UInt8]
    let says: [String]
    var testDescription: String { name }

    init(_ name: String, _ text: String, says: String...) {
        self.name = name
        self.body = Array(text.utf8)
        self.says = says
    }

    init(_ name: String, bytes: [UInt8], says: String...) {
        self.name = name
        self.body = bytes
        self.says = says
    }
}

extension LiveFeedTests {
    static let host = "\"host\": \"http://127.0.0.1:1\""

    static let badDocuments: [BadDocument] = [
        BadDocument("an HTML page", "<html><body>Service unavailable</body></html>", says: "not JSON", "<html>"),
        BadDocument("an empty body", "", says: "not JSON"),
        BadDocument("the items path missing", "{\(host), \"radar\": {\"nowcast\": []}}", says: "radar.past: missing", "nowcast"),
        BadDocument("the items not a list", "{\(host), \"radar\": {\"past\": {\"time\": 1}}}", says: "radar.past", "expected a list", "an object"),
        BadDocument("an item without its time", "{\(host), \"radar\": {\"past\": [{\"path\": \"/a\"}]}}", says: "radar.past[0].time: missing"),
        BadDocument(
            "a time of the wrong type", "{\(host), \"radar\": {\"past\": [{\"time\": true, \"path\": \"/a\"}]}}",
            says: "radar.past[0].time", "Unix time", "true"),
        BadDocument(
            "an absurd Unix time", "{\(host), \"radar\": {\"past\": [{\"time\": 1e300, \"path\": \"/a\"}]}}",
            says: "radar.past[0].time", "not a Unix time"),
        BadDocument(
            "times out of order", "{\(host), \"radar\": {\"past\": [{\"time\": 1795255200, \"path\": \"/a\"}, {\"time\": 1795254900, \"path\": \"/b\"}]}}",
            says: "radar.past[1].time", "out of order"),
        BadDocument(
            "a duplicate time", "{\(host), \"radar\": {\"past\": [{\"time\": 1795255200, \"path\": \"/a\"}, {\"time\": 1795255200, \"path\": \"/b\"}]}}",
            says: "radar.past[1].time", "duplicate time", "radar.past[0].time"),
        BadDocument(
            "more frames than limits.max_frames",
            "{\(host), \"radar\": {\"past\": ["
                + (0..<6).map { "{\"time\": \(1_795_254_000 + $0 * 300), \"path\": \"/\($0)\"}" }.joined(separator: ", ") + "]}}",
            says: "radar.past", "6 frames", "limits.max_frames"),
        BadDocument(
            "nested ten thousand deep", String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000),
            says: "nested deeper than 32"),
        BadDocument(
            "a field of the wrong type", "{\(host), \"radar\": {\"past\": [{\"time\": 1795255200, \"path\": [1, 2]}]}}",
            says: "radar.past[0].path", "a list of 2"),
        BadDocument(
            "a field with a line break", "{\(host), \"radar\": {\"past\": [{\"time\": 1795255200, \"path\": \"/a\\r\\nX-Evil: 1\"}]}}",
            says: "radar.past[0].path", "control characters"),
        BadDocument(
            "the host global missing", "{\"radar\": {\"past\": [{\"time\": 1795255200, \"path\": \"/a\"}]}}",
            says: "host: missing"),
        BadDocument(
            "a host that is not a URL", "{\"host\": \"file:///etc\", \"radar\": {\"past\": [{\"time\": 1795255200, \"path\": \"/passwd\"}]}}",
            says: "not an http(s) URL"),
        BadDocument("an empty list", "{\(host), \"radar\": {\"past\": []}}", says: "radar.past", "empty"),
        BadDocument("a root that is a list", "[1, 2, 3]", says: "radar", "expected the document to be an object"),
        BadDocument("17 MiB of whitespace", bytes: [UInt8](repeating: 0x20, count: 17 << 20) + Array("[]".utf8), says: "cannot be fetched"),
        BadDocument("invalid UTF-8", bytes: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], says: "not JSON"),
    ]

    static func animation(url: String, frames: String) -> String {
        """
          - id: radar
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 3
            fallback: { levels: 0 }
            source: { url: "\(url)" }
            frames: \(frames)
            time_format: "%Y%m%d%H%M"
        """
    }

    /// Builds as cron would at `at` (with the tile cache), the feed's clock set to the same time.
    @discardableResult
    static func build(
        _ site: TestSite, _ yaml: String, at: String, feed: FeedServer,
        reporter: any BuildReporter = SilentReporter()
    ) async throws -> BuildSummary {
        feed.set(at)
        var options = BuildOptions()
        options.lockWait = TestSite.lockWait
        options.at = TimeFormat.instant(at)
        return try await Builder(config: site.config(yaml), options: options, reporter: reporter).run()
    }

    /// The published frames are these times of 2026-11-21 (HH:MM), each drawn from its
    /// own time's tiles (never an empty frame).
    static func expectFrames(_ site: TestSite, _ clock: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let frames = try site.frames("radar")
        let times = frames.compactMap { $0["time"] as? String }
        #expect(times == clock.map { "2026-11-21T\($0):00Z" }, sourceLocation: sourceLocation)
        for (i, time) in times.enumerated() {
            let image = try site.frameRGBA("radar", index: i)
            let expected = FeedServer.red(for: try TimeInstant.parse(time))
            #expect(image.pixels[0] == expected && image.pixels[3] == 255, "frame \(i) (\(time))", sourceLocation: sourceLocation)
        }
    }

    /// The frames' content hashes with their times.
    static func frameDigests(_ site: TestSite) throws -> [String] {
        try site.frames("radar").map { "\($0["time"] as? String ?? "") \($0["sha256"] as? String ?? "")" }
    }

    /// Tile requests by time, as "yyyyMMddHHmm xN".
    static func tileRequests(_ server: TestServer) -> [String] {
        var counts: [String: Int] = [:]
        for request in server.allRequests where request.path.hasPrefix("/radar/") {
            counts[String(request.path.split(separator: "/")[1]), default: 0] += 1
        }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }
    }
}
