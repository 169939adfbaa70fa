import Foundation
import MatsiteCapabilities
import MatsiteSupport
import Testing

@testable import MatsiteKit

/// A template naming `{run}` and `{lead}` (`/hrrr/{run}/f{lead}/{z}/{x}/{y}.png`) with
/// `runs: { every: PT1H, delay: PT50M }`, its runs arriving over simulated time on
/// 127.0.0.1 (`--at` stepped): a run is published only once every frame the window asks of
/// it is out, and then replaces the previous run's frames in one build.
@Suite("Forecast: model runs")
struct ModelRunTests {
    static let frames = "{ last: PT1H, next: PT3H, step: PT1H }"

    static func yaml(_ site: TestSite, _ server: TestServer, frames: String = ModelRunTests.frames) -> String {
        site.yaml(
            ForecastFeed.animation(
                source: "{ url: \"\(server.url("/hrrr/{run}/f{lead}/{z}/{x}/{y}.png"))\" }", frames: frames,
                extra: "    runs: { every: PT1H, delay: PT50M }\n    run_format: \"%Y%m%d%H\""))
    }

    /// The published frames as "HH:MM run HH:MM", each checked to be drawn from its run's
    /// tile for its valid time.
    static func published(_ site: TestSite, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try site.frames("radar").enumerated().map { i, frame in
            let time = try TimeInstant.parse(frame["time"] as? String ?? "")
            let run = try TimeInstant.parse(frame["run"] as? String ?? "")
            #expect(frame["kind"] as? String == "forecast", sourceLocation: sourceLocation)
            let image = try site.frameRGBA("radar", index: i)
            #expect(image.pixels[0] == FeedServer.red(for: time) && image.pixels[2] == ForecastFeed.blue(run: run), sourceLocation: sourceLocation)
            return "\(time.manifestText.dropFirst(11).prefix(5)) run \(run.manifestText.dropFirst(11).prefix(5))"
        }
    }

    /// The files under the animation's `frames/`, relative to it.
    static func frameFiles(_ site: TestSite) throws -> Set<String> {
        Set(try site.fileHashes().keys.filter { $0.hasPrefix("radar/frames/") }.map { String($0.dropFirst("radar/".count)) })
    }

    @Test(
        "an incomplete run is never published: the previous one stays, the warning and check name what the newest lacks; complete, it replaces all frames in one build"
    )
    func runArrives() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = Self.yaml(site, server)

            // 11:55: run 11:00 is out to f02 (f03, for 14:00, comes at 12:05): run 10:00 it is.
            let reporter = RecordingReporter()
            try await feed.build(site, yaml, at: "2026-11-21T11:55:00Z", reporter: reporter)
            #expect(try Self.published(site) == ["10:00 run 10:00", "11:00 run 10:00", "12:00 run 10:00", "13:00 run 10:00", "14:00 run 10:00"])
            let warning = try #require(reporter.warnings.first { $0.contains("run 2026-11-21T11:00:00Z") })
            #expect(warning.contains("lacks its frame for 2026-11-21T14:00:00Z") && warning.contains("/hrrr/2026112111/f03/"))
            #expect(warning.contains("run 2026-11-21T10:00:00Z stays published"))
            #expect(server.requestCount(prefix: "/hrrr/2026112111/f02/") == 0, "the longest lead is looked at first; a missing one ends the look")

            // check says the same, in its own words.
            feed.set("2026-11-21T11:55:00Z")
            let lines = LockedBox<[Checker.Line]>([])
            _ = await Checker(config: try site.config(yaml), at: try TimeInstant.parse("2026-11-21T11:55:00Z")).run { line in lines.withLock { $0.append(line) }
            }
            let runs = lines.withLock { $0 }.compactMap { if case .runs(let report) = $0 { report } else { nil } }
            #expect(runs.map(\.used.manifestText) == ["2026-11-21T10:00:00Z"] && runs.first?.newest.manifestText == "2026-11-21T11:00:00Z")
            #expect(runs.first?.lacking.map(\.frame.manifestText) == ["2026-11-21T14:00:00Z"])
            #expect(lines.withLock { $0 }.contains(.fact("forecast: 5 of the frames, 2026-11-21T10:00:00Z .. 2026-11-21T14:00:00Z")))

            // 12:06: the window moved to 11:00..15:00; run 11:00's f04 (15:00) comes at 12:10.
            try await feed.build(site, yaml, at: "2026-11-21T12:06:00Z")
            #expect(try Self.published(site) == ["11:00 run 10:00", "12:00 run 10:00", "13:00 run 10:00", "14:00 run 10:00", "15:00 run 10:00"])

            // 12:11: run 11:00 is whole: every frame is its, in one build; run 10:00's files are gone.
            try await feed.build(site, yaml, at: "2026-11-21T12:11:00Z")
            #expect(try Self.published(site) == ["11:00 run 11:00", "12:00 run 11:00", "13:00 run 11:00", "14:00 run 11:00", "15:00 run 11:00"])
            let named = Set(try site.frames("radar").compactMap { $0["url"] as? String })
            #expect(try Self.frameFiles(site) == named, "the site holds the frames its manifest names, no other run's")
        }
    }

    @Test("no run complete yet: the build fails, naming each run and what it lacks, and publishes nothing")
    func noCompleteRun() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            feed.arrive { run, lead in lead < 3 ? run : nil }
            let site = try TestSite()
            defer { site.remove() }
            do {
                try await feed.build(site, Self.yaml(site, server), at: "2026-11-21T11:55:00Z")
                Issue.record("a build published runs that lack frames")
            } catch {
                let text = String(describing: error)
                #expect(text.contains("no model run is complete yet") && text.contains("run 2026-11-21T11:00:00Z lacks"), "\(text)")
            }
            #expect(!FileManager.default.fileExists(atPath: site.output.appendingPathComponent("radar/manifest.json").path))
        }
    }

    @Test(
        "many builds over simulated days, runs arriving late, out of order or never whole: every manifest names one run, complete when published, and every file it names exists"
    )
    func property() async throws {
        try await withTestServer { server in
            let feed = ForecastFeed(server)
            // Per run: a lag of 40 to 100 minutes, 2 to 9 minutes a lead, and one run in five never whole.
            feed.arrive { run, lead in
                var random = SplitMix(seed: UInt64(run.millisecondsSinceEpoch / 3_600_000))
                let lag = 40 + Int64(random.next() % 61), perLead = 2 + Int64(random.next() % 8)
                let broken = random.next() % 5 == 0 ? Int(random.next() % 5) : nil
                guard lead != broken else { return nil }
                return run.adding(ISODuration(milliseconds: (lag + perLead * Int64(lead)) * 60_000))
            }
            let site = try TestSite()
            defer { site.remove() }
            let yaml = Self.yaml(site, server)
            var random = SplitMix(seed: 37)
            var clock = try TimeInstant.parse("2026-11-21T09:00:00Z")
            var published = 0
            for _ in 0..<40 {
                clock = clock.adding(ISODuration(milliseconds: Int64(5 + random.next() % 40) * 60_000))
                do { try await feed.build(site, yaml, at: clock.manifestText) } catch {
                    #expect(String(describing: error).contains("no model run is complete yet"), "\(error)")
                }
                guard FileManager.default.fileExists(atPath: site.output.appendingPathComponent("radar/manifest.json").path) else { continue }
                published += 1
                let manifest = try site.manifest("radar")
                let frames = try site.frames("radar")
                let runs = Set(frames.compactMap { $0["run"] as? String })
                #expect(runs.count == 1 && frames.allSatisfy { $0["kind"] as? String == "forecast" }, "at \(clock.manifestText): \(runs)")
                let now = try TimeInstant.parse(manifest["now"] as? String ?? "")
                let run = try TimeInstant.parse(runs.first ?? "")
                for frame in frames {
                    let time = try TimeInstant.parse(frame["time"] as? String ?? "")
                    let lead = Int((time.millisecondsSinceEpoch - run.millisecondsSinceEpoch) / 3_600_000)
                    let arrival = feed.arrival(run: run, lead: lead)
                    #expect(arrival.map { $0 <= now } == true, "at \(clock.manifestText): run \(run.manifestText) f\(lead) was not out by \(now.manifestText)")
                    let url = try #require(frame["url"] as? String)
                    #expect(FileManager.default.fileExists(atPath: site.output.appendingPathComponent("radar/\(url)").path), "\(url) named, not there")
                }
                #expect(try Self.frameFiles(site) == Set(frames.compactMap { $0["url"] as? String }))
                let poster = try #require(manifest["poster"] as? String)
                #expect(FileManager.default.fileExists(atPath: site.output.appendingPathComponent("radar/\(poster)").path), "\(poster) named, not there")
                // And it was the newest complete run then: each newer one lacked a frame.
                var window = RollingWindow(last: ISODuration(milliseconds: 3_600_000), step: ISODuration(milliseconds: 3_600_000))
                window.next = ISODuration(milliseconds: 3 * 3_600_000)
                let times = window.times(now: now) + window.forecastTimes(now: now)
                let runsConfig = RunsConfig(every: ISODuration(milliseconds: 3_600_000), delay: ISODuration(milliseconds: 50 * 60_000))
                for newer in runsConfig.runs(now: now) where newer > run {
                    let lacks = times.filter { $0 >= newer }.contains { time in
                        let lead = Int((time.millisecondsSinceEpoch - newer.millisecondsSinceEpoch) / 3_600_000)
                        return feed.arrival(run: newer, lead: lead).map { $0 > now } ?? true
                    }
                    #expect(lacks, "at \(now.manifestText): run \(newer.manifestText) was complete, yet \(run.manifestText) published")
                }
            }
            #expect(published > 0, "some build published")
        }
    }
}

/// A small seeded generator (SplitMix64): the same runs and clock steps every time.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
