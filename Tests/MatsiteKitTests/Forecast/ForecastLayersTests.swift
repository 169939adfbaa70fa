import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// An observed layer (radar, `/radar/{time}`) and a forecast layer (a RainViewer-shaped
/// index with a nowcast list) on one timeline reaching past now, built over HTTP on
/// 127.0.0.1 with `--at`: radar until now, the nowcast after the newest observation, and a
/// forecast time that has become past shown from the observation once it is out.
@Suite("Forecast: an observed and a forecast layer on one timeline")
struct ForecastLayersTests {
    static func yaml(_ site: TestSite, _ server: TestServer) -> String {
        site.yaml(
            [
                "  - id: radar",
                "    bbox: [-10.0, 40.0, 10.0, 52.0]",
                "    zoom: 3",
                "    frames: { last: PT10M, next: PT15M, step: PT5M }",
                "    layers:",
                "      - id: observed",
                "        source: { url: \"\(server.url("/radar/{time}/{z}/{x}/{y}.png"))\" }",
                "        time_format: \"%Y%m%d%H%M\"",
                "        frames: { last: PT20M, step: PT5M }",
                "      - id: nowcast",
                "        source: { url: \"{host}{path}/256/{z}/{x}/{y}/2/1_1.png\" }",
                "        frames: { index: { url: \"\(server.url("/public/weather-maps.json"))\", items: { observed: radar.past, forecast: radar.nowcast },",
                "                  time: time, fields: { path: path }, globals: { host: host }, latest: 2 } }",
            ].joined(separator: "\n"))
    }

    /// Per timeline entry: "HH:MM kind observed-layer-frame-time nowcast-layer-frame-time(kind)".
    static func entries(_ site: TestSite) throws -> [String] {
        let manifest = try site.manifest("radar")
        let layers = try #require(manifest["layers"] as? [[String: Any]])
        func shown(_ layer: Int, _ index: Any?) -> String {
            guard let index = index as? Int, let frames = layers[layer]["frames"] as? [[String: Any]] else { return "-" }
            let frame = frames[index]
            let time = (frame["time"] as? String ?? "").dropFirst(11).prefix(5)
            return frame["kind"] as? String == "forecast" ? "\(time)f" : String(time)
        }
        return try site.frames("radar").map { entry in
            let positions = entry["layers"] as? [Any] ?? []
            let time = (entry["time"] as? String ?? "").dropFirst(11).prefix(5)
            return "\(time) \(entry["kind"] as? String ?? "observed") \(shown(0, positions.first)) \(shown(1, positions.last))"
        }
    }

    @Test("radar up to now, the nowcast after the newest observation; once observed, a former forecast time shows the observation")
    func pastMeetsFuture() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = Self.yaml(site, server)
            // 12:01: radar is out to 11:55; the nowcast lists 12:00 to 12:10.
            try await feed.build(site, yaml, at: "2026-11-21T12:01:00Z")
            #expect(
                try Self.entries(site) == [
                    "11:50 observed 11:50 11:50", "11:55 observed 11:55 11:55", "12:00 forecast 11:55 12:00f",
                    "12:05 forecast - 12:05f", "12:10 forecast - 12:10f", "12:15 forecast - 12:10f",
                ])
            #expect(try site.manifest("radar")["now"] as? String == "2026-11-21T12:01:00Z")
            // 12:07: 12:00 and 12:05 are observed now, and shown so; the nowcast moved on.
            try await feed.build(site, yaml, at: "2026-11-21T12:07:00Z")
            #expect(
                try Self.entries(site) == [
                    "11:55 observed 11:55 -", "12:00 observed 12:00 12:00", "12:05 observed 12:05 12:05",
                    "12:10 forecast - 12:10f", "12:15 forecast - 12:15f", "12:20 forecast - 12:20f",
                ])
        }
    }

    @Test("a forecast layer that cannot be made keeps its published frames, placed past and future apart, their kinds kept")
    func forecastLayerKept() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = Self.yaml(site, server)
            try await feed.build(site, yaml, at: "2026-11-21T12:01:00Z")
            feed.nowcastDown.withLock { $0 = true }
            let reporter = RecordingReporter()
            try await feed.build(site, yaml, at: "2026-11-21T12:07:00Z", reporter: reporter)
            #expect(reporter.alerts.contains { "\($0)".contains("layer nowcast") }, "\(reporter.alerts)")
            // The nowcast as published at 12:01 (past to 11:55, forecasts to 12:10), placed on
            // the new timeline within its max_age (10 min): its observation up to now, its
            // forecasts only after radar's newest observation (12:05); radar moved on.
            #expect(
                try Self.entries(site) == [
                    "11:55 observed 11:55 11:55", "12:00 observed 12:00 11:55", "12:05 observed 12:05 11:55",
                    "12:10 forecast - 12:10f", "12:15 forecast - 12:10f", "12:20 forecast - 12:10f",
                ])
        }
    }
}
