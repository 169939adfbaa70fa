import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// Months of cron on live feeds, as an operator meets them: one feed down while another is
/// up, a hole in the past of a window, the published past not asked for again.
@Suite("Live operation: each loop on its own, the past carried forward, status.json")
struct LiveOperationTests {
    @Test("two loops from two servers, one down: the other publishes, the failed one keeps its published version byte for byte, status.json says why")
    func oneFeedDown() async throws {
        try await withTestServer { radarServer in
            try await withTestServer { satServer in
                let radar = FeedServer(radarServer, tileLag: 0)
                let satellite = FeedServer(satServer, tileLag: 0)
                let site = try TestSite()
                defer { site.remove() }
                let yaml = site.yaml(
                    LiveFeedTests.animation(url: radarServer.url("/radar/{time}/{z}/{x}/{y}.png"), frames: "{ last: PT10M, step: PT5M }")
                        + "\n"
                        + LiveFeedTests.animation(url: satServer.url("/radar/{time}/{z}/{x}/{y}.png"), frames: "{ last: PT10M, step: PT5M }")
                        .replacingOccurrences(of: "id: radar", with: "id: satellite"))
                satellite.set("2026-11-21T12:00:00Z")
                try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:00:00Z", feed: radar)
                let before = try Self.files(site, under: "satellite/")
                let firstStatus = try #require(SiteStatus.read(output: site.output))
                #expect(firstStatus.animations.map(\.state) == [.ok, .ok])

                // The satellite's server now answers 500 to everything; the radar moves on.
                satServer.route(prefix: "/radar/", .status(500, body: "upstream database unavailable"))
                satellite.set("2026-11-21T12:05:00Z")
                let reporter = RecordingReporter()
                let summary = try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:05:00Z", feed: radar, reporter: reporter)
                #expect(summary.staleLoops.map(\.id) == ["satellite"])
                #expect(summary.staleLoops.first?.kept == true)
                let cause = summary.staleLoops.first.map { String(describing: $0.error) } ?? ""
                #expect(cause.contains("upstream database unavailable"))
                #expect(try site.frames("radar").compactMap { $0["time"] as? String }.last == "2026-11-21T12:05:00Z")
                #expect(try Self.files(site, under: "satellite/") == before, "the failed loop's files, byte for byte")
                let index = try JSONSerialization.jsonObject(with: Data(contentsOf: site.output.appendingPathComponent("manifest.json"))) as? [String: Any]
                #expect((index?["animations"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["radar", "satellite"])

                let status = try #require(SiteStatus.read(output: site.output))
                let sat = try #require(status.animations.first { $0.id == "satellite" })
                #expect(sat.state == .stale)
                #expect(sat.lastGoodBuild == "2026-11-21T12:00:00Z")
                #expect(sat.newestTime == "2026-11-21T12:00:00Z")
                #expect(sat.failingSince == "2026-11-21T12:05:00Z")
                #expect(sat.failedBuilds == 1)
                #expect(sat.error?.contains("500") == true)
                #expect(status.animations.first { $0.id == "radar" }?.state == .ok)
                #expect(status.built == "2026-11-21T12:05:00Z")

                // Still down at the next build: the count goes on, the first failure stays.
                satellite.set("2026-11-21T12:10:00Z")
                let again = try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:10:00Z", feed: radar)
                #expect(again.staleLoops.first?.failedBuilds == 2)
                let later = try #require(SiteStatus.read(output: site.output)?.animations.first { $0.id == "satellite" })
                #expect(later.failingSince == "2026-11-21T12:05:00Z" && later.failedBuilds == 2)

                // Back up: it publishes again and its status clears.
                satServer.route(
                    prefix: "/radar/",
                    .dynamic { request in
                        let parts = request.path.split(separator: "/").map(String.init)
                        guard parts.count == 5, let time = FeedServer.instant(compact: parts[1]) else { return .status(400) }
                        return satellite.tile(at: time)
                    })
                let healed = try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:10:00Z", feed: radar)
                #expect(healed.staleLoops.isEmpty)
                let ok = try #require(SiteStatus.read(output: site.output)?.animations.first { $0.id == "satellite" })
                #expect(ok.state == .ok && ok.error == nil && ok.failedBuilds == nil && ok.newestTime == "2026-11-21T12:10:00Z")
            }
        }
    }

    @Test("every loop down: the build fails as a whole and the site stays byte for byte, status.json included")
    func everyFeedDown() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server, tileLag: 0)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(LiveFeedTests.animation(url: server.url("/radar/{time}/{z}/{x}/{y}.png"), frames: "{ last: PT10M, step: PT5M }"))
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:00:00Z", feed: feed)
            let before = try Self.files(site, under: "")
            server.route(prefix: "/radar/", .status(500))
            await #expect(throws: BuildError.self) {
                try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:05:00Z", feed: feed)
            }
            #expect(try Self.files(site, under: "") == before)
        }
    }

    @Test("a hole in the window's past: a published frame is kept, one never published is left out; neither blocks the build")
    func holeInThePast() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server, tileLag: 0)
            let broken = LockedBox(Set<String>())
            server.route(
                prefix: "/radar/",
                .dynamic { request in
                    let parts = request.path.split(separator: "/").map(String.init)
                    guard parts.count == 5, let time = FeedServer.instant(compact: parts[1]) else { return .status(400) }
                    // Every other tile of a broken time fails.
                    if broken.withLock({ $0.contains(parts[1]) }), (Int(parts[3]) ?? 0) % 2 == 0 { return .status(500, body: "disk error") }
                    return Self.revalidated(time, feed: feed, tag: parts[1])
                })
            let site = try TestSite()
            defer { site.remove() }
            // Settled only after an hour: the past is asked again at every build, as a feed
            // that corrects itself needs.
            let yaml = site.yaml(
                LiveFeedTests.animation(url: server.url("/radar/{time}/{z}/{x}/{y}.png"), frames: "{ last: PT25M, step: PT5M }")
                    + "\n    settle: PT1H", http: "{ retry_delay_ms: 10, retries: 1, timeout_s: \(TestSite.patientTimeout) }")
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:00:00Z", feed: feed)
            try LiveFeedTests.expectFrames(site, ["11:35", "11:40", "11:45", "11:50", "11:55", "12:00"])
            let published1150 = try site.frames("radar")[3]["sha256"] as? String

            // 11:50 (published) and 12:05 (new, but not the newest at 12:10) break, and the
            // tile cache is lost (with it, the cache would answer for 11:50: stale-if-error).
            broken.withLock { $0 = ["202611211150", "202611211205"] }
            try FileManager.default.removeItem(at: site.root.appendingPathComponent("cache"))
            let reporter = RecordingReporter()
            let summary = try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:10:00Z", feed: feed, reporter: reporter)
            #expect(summary.staleLoops.isEmpty)
            let frames = try site.frames("radar")
            #expect(frames.compactMap { $0["time"] as? String } == ["11:45", "11:50", "11:55", "12:00", "12:10"].map { "2026-11-21T\($0):00Z" })
            #expect(frames.compactMap { $0["index"] as? Int } == [0, 1, 2, 3, 4])
            #expect(frames[1]["sha256"] as? String == published1150, "the published 11:50, kept")
            let skipped = try #require(try site.manifest("radar")["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == ["2026-11-21T12:05:00Z"])
            #expect(skipped.first?["reason"]?.contains("no build published it") == true)
            #expect(reporter.warnings.contains { $0.contains("frame 2026-11-21T12:05:00Z left out") })
            #expect(reporter.warnings.contains { $0.contains("frame 2026-11-21T11:50:00Z") && $0.contains("its published version is kept") })
        }
    }

    @Test("settled frames are carried forward without a request; --recheck and a younger frame ask again")
    func carriedForward() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server, tileLag: 0)
            // Tiles that must be revalidated at every build, as a feed with max-age=0 says.
            server.route(
                prefix: "/radar/",
                .dynamic { request in
                    let parts = request.path.split(separator: "/").map(String.init)
                    guard parts.count == 5, let time = FeedServer.instant(compact: parts[1]) else { return .status(400) }
                    return Self.revalidated(time, feed: feed, tag: parts[1])
                })
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(LiveFeedTests.animation(url: server.url("/radar/{time}/{z}/{x}/{y}.png"), frames: "{ last: PT20M, step: PT5M }"))
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:00:00Z", feed: feed)
            let perFrame = server.requestCount(prefix: "/radar/202611211200/")
            #expect(perFrame > 0)

            // Five minutes on: only the new frame's tiles are asked for; the past is carried.
            server.resetCounts()
            let summary = try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:05:00Z", feed: feed)
            #expect(LiveFeedTests.tileRequests(server) == ["202611211205 x\(perFrame)"])
            #expect(summary.framesReused == 4)
            try LiveFeedTests.expectFrames(site, ["11:45", "11:50", "11:55", "12:00", "12:05"])
            let frames = try site.frames("radar")
            #expect(frames.allSatisfy { ($0["source_hash"] as? String)?.count == 64 })

            // settle: PT10M: the frame of 12:00 is asked again (revalidated), the older not.
            server.resetCounts()
            try await LiveFeedTests.build(site, yaml + "\n    settle: PT10M", at: "2026-11-21T12:05:00Z", feed: feed)
            #expect(LiveFeedTests.tileRequests(server) == ["202611211200 x\(perFrame)", "202611211205 x\(perFrame)"])

            // --recheck: every frame.
            server.resetCounts()
            var options = BuildOptions()
            options.lockWait = TestSite.lockWait
            options.at = TimeFormat.instant("2026-11-21T12:05:00Z")
            options.recheck = true
            _ = try await Builder(config: site.config(yaml), options: options).run()
            #expect(LiveFeedTests.tileRequests(server).count == 5)
        }
    }

    @Test("a feed that stops publishing, and a window that goes back, are alerts, in status.json too")
    func alerts() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server, tileLag: 0)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(
                LiveFeedTests.animation(
                    url: server.url("/radar/{time}/{z}/{x}/{y}.png"),
                    frames: "{index: { url: \"\(server.url("/times.json"))\", items: \"\", time: \"\" }}"))
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:00:00Z", feed: feed)
            // The index stops at 12:00 while the clock goes on to 12:30.
            let frozen = FeedServer.listedJSON(feed.listed())
            server.route("/times.json", .ok(Array(frozen.utf8), contentType: "application/json", cacheControl: "no-cache"))
            let reporter = RecordingReporter()
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:30:00Z", feed: feed, reporter: reporter)
            let stalled = reporter.alerts.first { if case .feedStalled = $0 { true } else { false } }
            #expect(stalled?.description.contains("no new time since 2026-11-21T11:55:00Z (35 min ago; its times come every 5 min)") == true)
            #expect(SiteStatus.read(output: site.output)?.animations.first?.alerts?.first?.contains("no new time") == true)

            // The feed goes back an hour.
            feed.set("2026-11-21T11:00:00Z")
            server.route(
                "/times.json",
                .dynamic { _ in
                    .ok(Array(FeedServer.listedJSON(feed.listed()).utf8), contentType: "application/json", cacheControl: "no-cache")
                })
            let back = RecordingReporter()
            var options = BuildOptions()
            options.lockWait = TestSite.lockWait
            options.at = TimeFormat.instant("2026-11-21T12:35:00Z")
            _ = try await Builder(config: site.config(yaml), options: options, reporter: back).run()
            #expect(back.alerts.contains { if case .olderWindow = $0 { true } else { false } })
        }
    }

    /// A feed's tile that must be revalidated at every build (`max-age=0`, an ETag).
    static func revalidated(_ time: TimeInstant, feed: FeedServer, tag: String) -> TestServer.Behaviour {
        guard time.millisecondsSinceEpoch <= feed.now.millisecondsSinceEpoch else { return .status(404) }
        return .ok(FeedServer.png(for: time), contentType: "image/png", etag: "\"\(tag)\"", cacheControl: "max-age=0")
    }

    /// Every file below `prefix` of the site with its bytes' hash, status.json aside when
    /// the prefix is the whole site.
    static func files(_ site: TestSite, under prefix: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for (path, _) in TreeComparison.files(site.output) ?? [:] where path.hasPrefix(prefix) {
            out[path] = SHA256.hex(of: Array(try Data(contentsOf: site.output.appendingPathComponent(path))))
        }
        return out
    }
}

/// A layer whose feed goes down inside a layered loop.
@Suite("Live operation: a layer kept as published while the others move on")
struct LayerKeptTests {
    @Test("the satellite's server fails: the radar moves on, the satellite's published frames stay within max_age, said as an alert")
    func satelliteDown() async throws {
        try await LayersBuildTests.withFeeds { server, feed, site in
            let yaml = LayersBuildTests.standard(server, site)
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            let published = try LayersBuildTests.layers(site.manifest("storm"))[0]
            let publishedFrames = try #require(published["frames"] as? [[String: Any]])

            server.route(prefix: "/sat/", .status(500, body: "archive offline"))
            let reporter = RecordingReporter()
            let summary = try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:12:00Z", feed: feed, reporter: reporter)
            #expect(summary.staleLoops.isEmpty)
            let manifest = try site.manifest("storm")
            // The radar moved on to 12:10.
            let timeline = try #require(manifest["frames"] as? [[String: Any]])
            #expect(timeline.last?["time"] as? String == "2026-11-21T12:10:00Z")
            // The satellite as published: the same files, the newest (12:00) shown until its max_age (20 min).
            let satellite = try LayersBuildTests.layers(manifest)[0]
            let frames = try #require(satellite["frames"] as? [[String: Any]])
            #expect(Set(frames.compactMap { $0["sha256"] as? String }).isSubset(of: Set(publishedFrames.compactMap { $0["sha256"] as? String })))
            #expect(frames.last?["time"] as? String == "2026-11-21T12:00:00Z")
            for frame in frames {
                let url = try #require(frame["url"] as? String)
                #expect(FileManager.default.fileExists(atPath: site.output.appendingPathComponent("storm").appendingPathComponent(url).path), "\(url)")
            }
            let mapping = try LayersBuildTests.mapping(manifest)
            #expect(mapping.last?[0] == frames.count - 1, "12:10 shows the satellite's 12:00")
            let alert = try #require(reporter.alerts.first).description
            #expect(alert.contains("storm: layer satellite kept as last published") && alert.contains("archive offline"), "\(alert)")
            #expect(SiteStatus.read(output: site.output)?.animations.first?.alerts?.contains(alert) == true)
        }
    }
}
