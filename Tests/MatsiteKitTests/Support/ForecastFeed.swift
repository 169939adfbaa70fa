import Foundation
import MatsiteCapabilities
import MatsiteImaging
import MatsiteSupport

@testable import MatsiteKit

/// A feed with a past and a future on a TestServer whose clock the test sets (the time it
/// gives builds as `--at`). Every tile's colour says what it is: red the time (as
/// `FeedServer.red`), green 60 for an observation, 200 for a nowcast, and for a model run's
/// frame blue its run's hour.
///
/// Routes:
/// - `/radar/<yyyyMMddHHmm>/z/x/y.png`: observed, out 90 s after its time (404 before).
/// - `/nowcast/<yyyyMMddHHmm>/z/x/y.png`: a nowcast, there for any time from the newest
///   observation up to an hour after the clock.
/// - `/blend/<yyyyMMddHHmm>/z/x/y.png`: the observation once it is out, else the nowcast.
/// - `/v2/<id>/256/z/x/y/2/1_1.png` and `/public/weather-maps.json`: RainViewer's shape,
///   `radar.past` (the newest six observations) and `radar.nowcast` (the three next steps).
/// - `/hrrr/<yyyyMMddHH>/f<LL>/z/x/y.png`: lead LL hours of run yyyyMMddHH, out once
///   `arrival(run, lead)` has passed (by default 50 min after the run plus 5 min a lead).
final class ForecastFeed: Sendable {
    let server: TestServer
    private let clock = LockedBox(TimeInstant(millisecondsSinceEpoch: 0))
    /// True: every nowcast tile answers HTTP 500 (the nowcast's server is down).
    let nowcastDown = LockedBox(false)
    /// True: the index's nowcast list is empty (as RainViewer's is at times).
    let nowcastEmpty = LockedBox(false)
    /// Set: the index's past list stops at this time (its radar stalled), its nowcast goes on.
    let pastFrozenAt = LockedBox<TimeInstant?>(nil)
    private let arrivals = LockedBox<@Sendable (TimeInstant, Int) -> TimeInstant?>({ run, lead in
        run.adding(ISODuration(milliseconds: 50 * 60_000 + Int64(lead) * 5 * 60_000))
    })

    static let step: Int64 = 300_000

    init(_ server: TestServer) {
        self.server = server
        let base = server.baseURL
        // A tile's green says what it shows: 60 an observation, 200 a nowcast.
        route("/radar/") { [self] time in self.observed(time) ? 60 : nil }
        route("/nowcast/") { [self] time in self.nowcast(time) ? 200 : nil }
        // One URL for both: the observation once it is out, else the nowcast.
        route("/blend/") { [self] time in self.observed(time) ? 60 : self.nowcast(time) ? 200 : nil }
        server.route(
            prefix: "/v2/",
            .dynamic { [self] request in
                // /v2/<id>/256/z/x/y/2/1_1.png: ids of observations are even, of nowcasts odd.
                let parts = request.path.split(separator: "/").map(String.init)
                guard parts.count == 8, let number = UInt64(parts[1], radix: 16) else { return Self.absent }
                let time = TimeInstant(millisecondsSinceEpoch: Int64(number / 2) * 1000)
                let forecast = number % 2 == 1
                if forecast, self.nowcastDown.withLock({ $0 }) { return .status(500) }
                let there = forecast ? self.nowcast(time) : self.observed(time)
                return there
                    ? .ok(Self.png(red: FeedServer.red(for: time), green: forecast ? 200 : 60, blue: 120), contentType: "image/png") : Self.absent
            })
        server.route(
            "/public/weather-maps.json",
            .dynamic { [self] _ in
                let newest = self.newestObserved
                let pastNewest = self.pastFrozenAt.withLock { $0 }.map { min($0, newest) } ?? newest
                let past = (0..<6).reversed().map { pastNewest.adding(ISODuration(milliseconds: Self.step), times: -Int64($0)) }
                let nowcast =
                    self.nowcastEmpty.withLock { $0 } ? [] : (1...3).map { newest.adding(ISODuration(milliseconds: Self.step), times: Int64($0)) }
                func item(_ time: TimeInstant, _ forecast: Bool) -> String {
                    let id = String(UInt64(time.millisecondsSinceEpoch / 1000) * 2 + (forecast ? 1 : 0), radix: 16)
                    return "{\"time\": \(time.millisecondsSinceEpoch / 1000), \"path\": \"/v2/\(id)\"}"
                }
                let json =
                    "{\"version\": \"2.0\", \"host\": \"\(base)\", \"radar\": {\"past\": [\(past.map { item($0, false) }.joined(separator: ", "))], "
                    + "\"nowcast\": [\(nowcast.map { item($0, true) }.joined(separator: ", "))]}}"
                return .ok(Array(json.utf8), contentType: "application/json", cacheControl: "no-cache")
            })
        server.route(
            prefix: "/hrrr/",
            .dynamic { [self] request in
                // /hrrr/<yyyyMMddHH>/f<LL>/z/x/y.png
                let parts = request.path.split(separator: "/").map(String.init)
                guard parts.count == 6, let run = FeedServer.instant(compact: parts[1] + "00"), parts[2].hasPrefix("f"),
                    let lead = Int(parts[2].dropFirst())
                else { return .status(400) }
                guard let arrival = self.arrivals.withLock({ $0 })(run, lead), self.now >= arrival else { return Self.absent }
                let valid = run.adding(ISODuration(milliseconds: Int64(lead) * 3_600_000))
                return .ok(Self.png(red: FeedServer.red(for: valid), green: 200, blue: Self.blue(run: run)), contentType: "image/png")
            })
    }

    /// "Not out yet", not to be kept: the tests' clock (`--at`) runs ahead of the cache's.
    static let absent = TestServer.Behaviour.status(404, headers: [("Cache-Control", "no-store")])

    /// The feed's clock.
    var now: TimeInstant { clock.withLock { $0 } }

    func set(_ iso: String) {
        let instant = (try? TimeInstant.parse(iso)) ?? TimeInstant(millisecondsSinceEpoch: 0)
        clock.withLock { $0 = instant }
    }

    /// When lead `lead` of `run` comes out (nil: never).
    func arrive(_ arrival: @escaping @Sendable (_ run: TimeInstant, _ lead: Int) -> TimeInstant?) {
        arrivals.withLock { $0 = arrival }
    }

    /// When lead `lead` of `run` comes out, as the feed now says (nil: never).
    func arrival(run: TimeInstant, lead: Int) -> TimeInstant? {
        arrivals.withLock { $0 }(run, lead)
    }

    /// The newest time whose observation is out.
    var newestObserved: TimeInstant {
        TimeInstant(millisecondsSinceEpoch: now.millisecondsSinceEpoch - 90_000).floored(toMultipleOf: ISODuration(milliseconds: Self.step))
    }

    func observed(_ time: TimeInstant) -> Bool {
        time.millisecondsSinceEpoch % Self.step == 0 && time <= newestObserved
    }

    func nowcast(_ time: TimeInstant) -> Bool {
        time.millisecondsSinceEpoch % Self.step == 0 && time >= newestObserved && time.millisecondsSinceEpoch <= now.millisecondsSinceEpoch + 3_600_000
    }

    /// The blue channel of a run's tiles: its hour of the day, spread out.
    static func blue(run: TimeInstant) -> UInt8 {
        UInt8(truncatingIfNeeded: 10 + (run.millisecondsSinceEpoch / 3_600_000 % 24) * 10)
    }

    static func png(red: UInt8, green: UInt8, blue: UInt8) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: 256 * 256 * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            (pixels[i], pixels[i + 1], pixels[i + 2]) = (red, green, blue)
        }
        return (try? PNGWriter.encode(width: 256, height: 256, format: .rgba, pixels: pixels)) ?? []
    }

    /// Serves `<prefix><yyyyMMddHHmm>/<z>/<x>/<y>.png`: a tile whose green is `green(time)`,
    /// or "not here" when that is nil.
    private func route(_ prefix: String, green: @escaping @Sendable (TimeInstant) -> UInt8?) {
        server.route(
            prefix: prefix,
            .dynamic { request in
                let parts = request.path.split(separator: "/").map(String.init)
                guard parts.count == 5, let time = FeedServer.instant(compact: parts[1]) else { return .status(400) }
                return green(time).map { .ok(Self.png(red: FeedServer.red(for: time), green: $0, blue: 120), contentType: "image/png") } ?? Self.absent
            })
    }

    /// Builds as cron would at `at` (with the tile cache), the feed's clock set to the same time.
    @discardableResult
    func build(_ site: TestSite, _ yaml: String, at: String, reporter: any BuildReporter = SilentReporter()) async throws -> BuildSummary {
        set(at)
        return try await Self.build(site, yaml, at: at, reporter: reporter)
    }

    /// Builds as cron would at `at`, with the tile cache: the build of every feed whose
    /// clock the test steps.
    static func build(_ site: TestSite, _ yaml: String, at: String, reporter: any BuildReporter) async throws -> BuildSummary {
        var options = BuildOptions()
        options.lockWait = TestSite.lockWait
        options.at = TimeFormat.instant(at)
        return try await Builder(config: site.config(yaml), options: options, reporter: reporter).run()
    }

    /// An animation of this feed.
    static func animation(id: String = "radar", source: String, frames: String, extra: String = "") -> String {
        """
          - id: \(id)
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 3
            fallback: { levels: 0 }
            source: \(source)
            frames: \(frames)
            time_format: "%Y%m%d%H%M"
        \(extra)
        """
    }
}
