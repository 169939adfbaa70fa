import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// `frames: { last, next, step }`: a rolling window reaching past now, built over HTTP on
/// 127.0.0.1 with `--at`. Its times after now are forecast frames (`kind: forecast` in
/// the manifest), the manifest says the build's `now`, and a rebuild that changes nothing
/// else keeps the published `now`.
@Suite("Forecast: a rolling window reaching past now")
struct ForecastWindowTests {
    static func yaml(_ site: TestSite, _ server: TestServer, frames: String = "{ last: PT10M, next: PT15M, step: PT5M, delay: PT2M }") -> String {
        site.yaml(ForecastFeed.animation(source: "{ url: \"\(server.url("/blend/{time}/{z}/{x}/{y}.png"))\" }", frames: frames))
    }

    @Test("observed frames up to now - delay, forecast frames after now up to now + next, each marked, and the manifest's now")
    func mixedWindow() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            try await feed.build(site, Self.yaml(site, server), at: "2026-11-21T12:01:00Z")
            let manifest = try site.manifest("radar")
            #expect(manifest["now"] as? String == "2026-11-21T12:01:00Z")
            let frames = try site.frames("radar")
            // now - delay = 11:59 -> 11:55 and back 10 minutes; after 12:01, up to 12:16.
            #expect(
                frames.map { "\(($0["time"] as? String ?? "").dropFirst(11).prefix(5)) \($0["kind"] as? String ?? "observed")" } == [
                    "11:45 observed", "11:50 observed", "11:55 observed", "12:05 forecast", "12:10 forecast", "12:15 forecast",
                ])
            #expect(frames.allSatisfy { $0["run"] == nil }, "no runs: a plain template's forecasts name none")
            for (i, frame) in frames.enumerated() {
                let image = try site.frameRGBA("radar", index: i)
                let kind = frame["kind"] as? String
                #expect(image.pixels[1] == (kind == "forecast" ? 200 : 60), "frame \(i) drawn from the \(kind ?? "observed") tiles")
            }
        }
    }

    @Test("a rebuild that changes nothing keeps the published now and publishes nothing; one that changes takes the new clock")
    func unchangedRebuildKeepsNow() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = Self.yaml(site, server)
            try await feed.build(site, yaml, at: "2026-11-21T12:01:00Z")
            let before = try site.fileHashes()
            // 12:01:30: the same observed times (11:59:30 -> 11:55) and forecasts (12:05 to 12:15).
            let again = try await feed.build(site, yaml, at: "2026-11-21T12:01:30Z")
            #expect(again.unchanged)
            #expect(try site.fileHashes() == before)
            #expect(try site.manifest("radar")["now"] as? String == "2026-11-21T12:01:00Z")
            // 12:03: 12:00 is observed now, 12:05 to 12:15 still forecasts (and 12:00 left the future).
            let moved = try await feed.build(site, yaml, at: "2026-11-21T12:03:00Z")
            #expect(!moved.unchanged)
            #expect(try site.manifest("radar")["now"] as? String == "2026-11-21T12:03:00Z")
            let kinds = try site.frames("radar").map { $0["kind"] as? String ?? "observed" }
            #expect(kinds == ["observed", "observed", "observed", "forecast", "forecast", "forecast"])
        }
    }

    @Test("a window without next has no forecast frame: its manifest reads as before, plus now")
    func pastOnly() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            try await feed.build(site, Self.yaml(site, server, frames: "{ last: PT10M, step: PT5M, delay: PT2M }"), at: "2026-11-21T12:01:00Z")
            let frames = try site.frames("radar")
            #expect(frames.count == 3 && frames.allSatisfy { $0["kind"] == nil && $0["run"] == nil })
            #expect(try site.manifest("radar")["now"] as? String == "2026-11-21T12:01:00Z")
        }
    }
}
