import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// A live window in which no frame has a single tile is an error, under either `missing:`:
/// the URLs are wrong (a `time_format`, a delay, a clock), not late, and an empty loop must
/// never be published for a cron job to serve as if all were well.
@Suite("Empty windows: no frame has a tile")
struct EmptyWindowTests {
    /// A feed that answers 404 to any time it cannot read (as many tile servers do), and
    /// serves the times it can.
    static func serveFeed(on server: TestServer) {
        server.route(
            prefix: "/radar/",
            .dynamic { request in
                let parts = request.path.split(separator: "/").map(String.init)
                guard parts.count == 5, let time = FeedServer.instant(compact: parts[1]) else { return .status(404) }
                return .ok(FeedServer.png(for: time), contentType: "image/png")
            })
    }

    static func yaml(_ site: TestSite, url: String, timeFormat: String, missing: String) -> String {
        site.yaml(
            """
              - id: radar
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 3
                fallback: { levels: 0 }
                missing: \(missing)
                source: { url: "\(url)" }
                frames: { last: PT20M, step: PT5M }
                time_format: "\(timeFormat)"
            """)
    }

    static func build(_ site: TestSite, _ yaml: String, reporter: any BuildReporter = SilentReporter()) async throws {
        var options = BuildOptions()
        options.useCache = false
        options.lockWait = 600
        options.at = AtTime("2026-11-21T12:02:00Z")?.instant
        _ = try await Builder(config: site.config(yaml), options: options, reporter: reporter).run()
    }

    @Test(
        "a time_format the feed cannot read fails the build under missing: fail and transparent alike, shows {time} as written, the format and --at, and leaves the site as it was",
        arguments: ["fail", "transparent"])
    func wrongTimeFormat(missing: String) async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            Self.serveFeed(on: server)
            let url = server.url("/radar/{time}/{z}/{x}/{y}.png")
            try await Self.build(site, Self.yaml(site, url: url, timeFormat: "%Y%m%d%H%M", missing: missing))
            let before = Hostile.snapshot(site.output)
            let reporter = RecordingReporter()
            await #expect {
                try await Self.build(site, Self.yaml(site, url: url, timeFormat: "%Y-%m-%dT%H:%MZ", missing: missing), reporter: reporter)
            } throws: { error in
                let text = "\(error)"
                return ExitClass.of(error) == .failed
                    && text.contains(
                        "radar: no frame of the window has a single tile: all 5 frames (2026-11-21T11:40:00Z .. 2026-11-21T12:00:00Z) answered HTTP 404 (no tile here)"
                    )
                    && text.contains(
                        "the newest frame, 2026-11-21T12:00:00Z, has {time} = \"2026-11-21T12:00Z\" (time_format \"%Y-%m-%dT%H:%MZ\"; --at 2026-11-21T12:02:00Z)"
                    )
                    && text.contains("e.g. \(server.url("/radar/2026-11-21T12:00Z/3/"))")
                    && text.contains("hint: compare that URL with one the feed serves")
            }
            // Nothing is called "not published yet": no frame of the window is.
            #expect(!reporter.warnings.contains { $0.contains("not published yet") }, "\(reporter.warnings)")
            #expect(!before.isEmpty && Hostile.snapshot(site.output) == before, "the published site is byte-for-byte as it was")
        }
    }

    @Test("frames missing only at the newest end, with older frames there, are left out as not published yet")
    func newestEndOnly() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            // 12:00 and 11:55 are not out yet; the older three are.
            let cutoff = try TimeInstant.parse("2026-11-21T11:55:00Z")
            server.route(
                prefix: "/radar/",
                .dynamic { request in
                    let parts = request.path.split(separator: "/").map(String.init)
                    guard parts.count == 5, let time = FeedServer.instant(compact: parts[1]),
                        time < cutoff
                    else { return .status(404) }
                    return .ok(FeedServer.png(for: time), contentType: "image/png")
                })
            let reporter = RecordingReporter()
            try await Self.build(
                site, Self.yaml(site, url: server.url("/radar/{time}/{z}/{x}/{y}.png"), timeFormat: "%Y%m%d%H%M", missing: "fail"),
                reporter: reporter)
            let times = try site.frames("radar").compactMap { $0["time"] as? String }
            #expect(times == ["2026-11-21T11:40:00Z", "2026-11-21T11:45:00Z", "2026-11-21T11:50:00Z"])
            let left = reporter.warnings.filter { $0.contains("not published yet") }
            #expect(left.count == 2 && left[0].contains("11:55:00Z") && left[1].contains("12:00:00Z"), "\(reporter.warnings)")
            #expect(left.allSatisfy { $0.contains("tiles missing: HTTP 404 (no tile here)") }, "\(left)")
        }
    }
}
