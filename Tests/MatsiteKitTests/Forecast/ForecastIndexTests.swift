import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// `frames.index` with `items: { observed, forecast }`: a RainViewer-shaped document
/// (`radar.past` and `radar.nowcast`) served on 127.0.0.1, built with `--at`.
@Suite("Forecast: a frame index listing past and nowcast")
struct ForecastIndexTests {
    static func yaml(_ site: TestSite, _ server: TestServer, latest: String = "") -> String {
        site.yaml(
            ForecastFeed.animation(
                source: "{ url: \"{host}{path}/256/{z}/{x}/{y}/2/1_1.png\" }",
                frames: """
                    {index: { url: "\(server.url("/public/weather-maps.json"))", items: { observed: radar.past, forecast: radar.nowcast },
                              time: time, fields: { path: path }, globals: { host: host }\(latest) }}
                    """))
    }

    @Test("the past list's frames are observed, the nowcast's after them forecasts, each drawn from its own tiles")
    func rainViewerShaped() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            // 12:01: the newest observation out is 11:55; the nowcast lists 12:00 to 12:10.
            try await feed.build(site, Self.yaml(site, server, latest: ", latest: 3"), at: "2026-11-21T12:01:00Z")
            let frames = try site.frames("radar")
            #expect(
                frames.map { "\(($0["time"] as? String ?? "").dropFirst(11).prefix(5)) \($0["kind"] as? String ?? "observed")" } == [
                    "11:45 observed", "11:50 observed", "11:55 observed", "12:00 forecast", "12:05 forecast", "12:10 forecast",
                ], "latest keeps the newest 3 observations; the nowcast follows whole")
            #expect(try site.manifest("radar")["now"] as? String == "2026-11-21T12:01:00Z")
            for (i, frame) in frames.enumerated() {
                let image = try site.frameRGBA("radar", index: i)
                let time = try TimeInstant.parse(frame["time"] as? String ?? "")
                #expect(image.pixels[0] == FeedServer.red(for: time))
                #expect(image.pixels[1] == (frame["kind"] == nil ? 60 : 200), "frame \(i): an observation's tiles, or a nowcast's")
            }
            // 12:07: 12:05 is observed now; the nowcast moved on with it.
            try await feed.build(site, Self.yaml(site, server, latest: ", latest: 3"), at: "2026-11-21T12:07:00Z")
            let later = try site.frames("radar").map { "\(($0["time"] as? String ?? "").dropFirst(11).prefix(5)) \($0["kind"] as? String ?? "observed")" }
            #expect(later == ["11:55 observed", "12:00 observed", "12:05 observed", "12:10 forecast", "12:15 forecast", "12:20 forecast"])
            #expect(try site.frameRGBA("radar", index: 1).pixels[1] == 60, "12:00, a forecast before, is drawn from its observation now")
        }
    }

    @Test("items by kind must name both lists, and only observed and forecast")
    func itemsMistakes() throws {
        let live = LiveFramesConfigTests()
        let half = try live.failure(
            LiveFramesConfigTests.yaml(
                source: "url: \"https://r.example.org/{time}/{z}/{x}/{y}.png\"",
                frames: "{ index: { url: \"https://r.example.org/i.json\", items: { observed: radar.past } } }"))
        #expect(half.keyPath == "animations[0].frames.index.items.forecast" && half.line == 6 && half.message.contains("radar.nowcast"))
        let odd = try live.failure(
            LiveFramesConfigTests.yaml(
                source: "url: \"https://r.example.org/{time}/{z}/{x}/{y}.png\"",
                frames: "{ index: { url: \"https://r.example.org/i.json\", items: { observed: a, forecast: b, hindcast: c } } }"))
        #expect(odd.keyPath.hasPrefix("animations[0].frames.index.items") && odd.line == 6, "\(odd)")
        let parsed = try live.parse(
            LiveFramesConfigTests.yaml(
                source: "url: \"https://r.example.org/{time}/{z}/{x}/{y}.png\"",
                frames: "{ index: { url: \"https://r.example.org/i.json\", items: { observed: radar.past, forecast: radar.nowcast } } }"))
        guard case .index(let index) = parsed.frames else { Issue.record("not an index"); return }
        #expect(index.items == "radar.past" && index.forecastItems == "radar.nowcast")
    }

    @Test("an index whose past stops while its nowcast goes on is a stalled feed: its observations are judged, not its forecasts")
    func stalledPast() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            feed.pastFrozenAt.withLock { $0 = try? TimeInstant.parse("2026-11-21T11:55:00Z") }
            let reporter = RecordingReporter()
            // 12:31: the past ends at 11:55 (36 minutes ago); the nowcast lists 12:30 to 12:40.
            try await feed.build(site, Self.yaml(site, server), at: "2026-11-21T12:31:00Z", reporter: reporter)
            #expect(try site.frames("radar").last?["time"] as? String == "2026-11-21T12:40:00Z")
            let stalled = reporter.alerts.compactMap { if case .feedStalled(_, let newest, _, _) = $0 { newest } else { nil } }
            #expect(stalled.map(\.iso8601) == ["2026-11-21T11:55:00Z"], "\(reporter.alerts)")
        }
    }

    @Test("an empty nowcast list publishes the past alone, and is no feed gone back: only observations are compared")
    func emptyNowcast() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            try await feed.build(site, Self.yaml(site, server, latest: ", latest: 3"), at: "2026-11-21T12:01:00Z")
            feed.nowcastEmpty.withLock { $0 = true }
            let reporter = RecordingReporter()
            try await feed.build(site, Self.yaml(site, server, latest: ", latest: 3"), at: "2026-11-21T12:02:00Z", reporter: reporter)
            let frames = try site.frames("radar")
            #expect(frames.map { $0["time"] as? String } == ["2026-11-21T11:50:00Z", "2026-11-21T11:55:00Z", "2026-11-21T12:00:00Z"])
            #expect(frames.allSatisfy { $0["kind"] == nil })
            #expect(reporter.alerts.isEmpty, "\(reporter.alerts)")
        }
    }
}
