import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// A layer frame with no tile at all is treated as a one-source frame with no tile at all:
/// at the newest end of a rolling window it is left out as not published yet, and inside
/// the window, never published, it is left out per `missing: fail`; either way the
/// timeline shows the layer's older frame while it is within `max_age`, never an empty
/// picture. Over HTTP on 127.0.0.1: the satellite (`LayersBuildTests`) under a layer
/// `gap` served like it but for the times it has no tile at.
@Suite("Layers: a layer frame with no tile at all")
struct LayerNoTileTests {
    /// Serves `/gap/<yyyyMMddHHmm>/z/x/y.png` as the satellite, but 404 at `absent` times.
    static func serveGap(_ server: TestServer, absent: @escaping @Sendable (TimeInstant) -> Bool) {
        server.route(
            prefix: "/gap/",
            .dynamic { request in
                let parts = request.path.split(separator: "/").map(String.init)
                guard parts.count == 5, let time = FeedServer.instant(compact: parts[1]), time.millisecondsSinceEpoch % 600_000 == 0, !absent(time)
                else { return .status(404) }
                return .ok(LayersBuildTests.satellitePNG(for: time), contentType: "image/png", cacheControl: "max-age=86400")
            })
    }

    static func gap(_ server: TestServer, more: [String] = []) -> [String] {
        [
            "      - id: gap",
            "        source: { url: \"\(server.url("/gap/{time}/{z}/{x}/{y}.png"))\" }",
            "        time_format: \"%Y%m%d%H%M\"",
            "        frames: { last: PT1H, step: PT10M }",
        ] + more
    }

    /// Per timeline time, the time of the frame layer `layer` shows then (nil: none).
    static func shown(_ manifest: [String: Any], layer: Int) throws -> [String: String?] {
        let frames = try #require(try LayersBuildTests.layers(manifest)[layer]["frames"] as? [[String: Any]])
        let times = try #require(manifest["frames"] as? [[String: Any]]).map { try #require($0["time"] as? String) }
        return Dictionary(
            uniqueKeysWithValues: zip(times, try LayersBuildTests.mapping(manifest)).map { time, entry in
                (time, entry[layer].map { frames[$0]["time"] as? String } ?? nil)
            })
    }

    static func time(_ clock: String) -> String { "2026-11-21T\(clock):00Z" }

    @Test("at the newest end of its rolling window, missing: transparent too: left out as not published yet, the older frame shown while fresh")
    func newestEnd() async throws {
        try await LayersBuildTests.withFeeds { server, feed, site in
            let noon = try TimeInstant.parse(Self.time("12:00"))
            Self.serveGap(server) { $0 >= noon }
            let layers = LayersBuildTests.satellite(server) + Self.gap(server, more: ["        missing: transparent"])
            let yaml = site.yaml(LayersBuildTests.storm(timeline: "{ last: PT1H, step: PT5M }", layers: layers))
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            let manifest = try site.manifest("storm")
            let gap = try LayersBuildTests.layers(manifest)[1]
            let skipped = try #require(gap["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == [Self.time("12:00")])
            let frames = try #require(gap["frames"] as? [[String: Any]])
            #expect(frames.last?["time"] as? String == Self.time("11:50") && frames.allSatisfy { $0["blank"] == nil })
            let shown = try Self.shown(manifest, layer: 1)
            #expect(shown[Self.time("12:00")] == Self.time("11:50") && shown[Self.time("12:05")] == Self.time("11:50"))
        }
    }

    @Test("inside the window, never published, missing: fail: left out with why, the older frame shown while within max_age")
    func insideWindow() async throws {
        try await LayersBuildTests.withFeeds { server, feed, site in
            let hole = try TimeInstant.parse(Self.time("11:40"))
            Self.serveGap(server) { $0 == hole }
            let yaml = site.yaml(
                LayersBuildTests.storm(timeline: "{ last: PT1H, step: PT5M }", layers: LayersBuildTests.satellite(server) + Self.gap(server)))
            let reporter = RecordingReporter()
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed, reporter: reporter)
            let manifest = try site.manifest("storm")
            let gap = try LayersBuildTests.layers(manifest)[1]
            let skipped = try #require(gap["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == [Self.time("11:40")])
            #expect(skipped.first?["reason"]?.contains("404") == true, "\(skipped)")
            let frames = try #require(gap["frames"] as? [[String: Any]]).compactMap { $0["time"] as? String }
            #expect(!frames.contains(Self.time("11:40")) && frames.contains(Self.time("11:30")) && frames.last == Self.time("12:00"))
            let shown = try Self.shown(manifest, layer: 1)
            #expect(shown[Self.time("11:40")] == Self.time("11:30") && shown[Self.time("11:45")] == Self.time("11:30"))
            #expect(shown[Self.time("11:50")] == Self.time("11:50"))
            // Said as a one-source frame left out is.
            #expect(reporter.events.contains { if case .warning(.frameLeftOut) = $0 { true } else { false } })
        }
    }

    @Test("a one-source frame with no tile at all, inside the window, never published: left out alike")
    func oneSourceAlike() async throws {
        try await LayersBuildTests.withFeeds { server, feed, site in
            let hole = try TimeInstant.parse(Self.time("11:40"))
            Self.serveGap(server) { $0 == hole }
            let yaml = site.yaml(
                [
                    "  - id: gap",
                    "    bbox: [-10.0, 40.0, 10.0, 52.0]",
                    "    zoom: 3",
                    "    source: { url: \"\(server.url("/gap/{time}/{z}/{x}/{y}.png"))\" }",
                    "    time_format: \"%Y%m%d%H%M\"",
                    "    frames: { last: PT1H, step: PT10M }",
                ].joined(separator: "\n"))
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            let manifest = try site.manifest("gap")
            #expect((manifest["skipped"] as? [[String: String]])?.map { $0["time"] } == [Self.time("11:40")])
            let times = try site.frames("gap").compactMap { $0["time"] as? String }
            #expect(!times.contains(Self.time("11:40")) && times.last == Self.time("12:00"))
        }
    }
}
