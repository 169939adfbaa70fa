import Foundation
import MatsiteCapabilities
import MatsiteImaging

@testable import MatsiteKit

/// A live radar feed on a TestServer whose clock the test sets (the same time it gives
/// builds as `--at`). A frame every 5 minutes; a frame's tiles appear `tileLag` seconds
/// after its nominal time (404 before), and the JSON indexes list a time `indexLag`
/// seconds after it, so an index can name a frame whose tiles are not there yet.
///
/// Routes: `/radar/<yyyyMMddHHmm>/z/x/y.png` (time in the URL), `/v2/radar/<id>/256/z/x/y/2/1_1.png`
/// (an opaque id per time, as a RainViewer-style feed does), `/public/weather-maps.json`
/// (`{"host", "radar": {"past": [{"time", "path"}]}}`) and `/times.json` (a plain list of
/// ISO times). Every tile of one time has the same colour, which says the time.
final class FeedServer: Sendable {
    let server: TestServer
    let tileLag: Int64
    let indexLag: Int64
    private let clock = LockedBox(TimeInstant(millisecondsSinceEpoch: 0))

    static let step: Int64 = 300_000

    init(_ server: TestServer, tileLag: Int64 = 90, indexLag: Int64 = 30) {
        self.server = server
        self.tileLag = tileLag
        self.indexLag = indexLag
        let base = server.baseURL
        server.route(
            prefix: "/radar/",
            .dynamic { [self] request in
                // /radar/<time>/z/x/y.png
                let parts = request.path.split(separator: "/").map(String.init)
                guard parts.count == 5, let time = Self.instant(compact: parts[1]) else { return .status(400) }
                return self.tile(at: time)
            })
        server.route(
            prefix: "/v2/radar/",
            .dynamic { [self] request in
                // /v2/radar/<id>/256/z/x/y/2/1_1.png
                let parts = request.path.split(separator: "/").map(String.init)
                guard parts.count == 9, let time = Self.instant(id: parts[2]) else { return .status(404) }
                return self.tile(at: time)
            })
        server.route(
            "/public/weather-maps.json",
            .dynamic { [self] _ in
                let past = self.listed().map { "{\"time\": \($0.millisecondsSinceEpoch / 1000), \"path\": \"/v2/radar/\(Self.id($0))\"}" }
                let json =
                    "{\"version\": \"2.0\", \"generated\": \(self.now.millisecondsSinceEpoch / 1000), \"host\": \"\(base)\", "
                    + "\"radar\": {\"past\": [\(past.joined(separator: ", "))], \"nowcast\": []}}"
                return .ok(Array(json.utf8), contentType: "application/json", cacheControl: "no-cache")
            })
        server.route(
            "/times.json",
            .dynamic { [self] _ in
                let json = Self.listedJSON(self.listed())
                return .ok(Array(json.utf8), contentType: "application/json", cacheControl: "no-cache")
            })
    }

    /// The feed's clock.
    var now: TimeInstant {
        clock.withLock { $0 }
    }

    func set(_ iso: String) {
        let instant = (try? TimeInstant.parse(iso)) ?? TimeInstant(millisecondsSinceEpoch: 0)
        clock.withLock { $0 = instant }
    }

    /// The times an index lists now: the last half hour's, once `indexLag` has passed.
    func listed() -> [TimeInstant] {
        let newest = TimeInstant(millisecondsSinceEpoch: now.millisecondsSinceEpoch - indexLag * 1000)
            .floored(toMultipleOf: ISODuration(milliseconds: Self.step))
        return (0..<6).reversed().map { TimeInstant(millisecondsSinceEpoch: newest.millisecondsSinceEpoch - Int64($0) * Self.step) }
    }

    /// `/times.json`'s body for these times.
    static func listedJSON(_ times: [TimeInstant]) -> String {
        "[" + times.map { "\"\($0.iso8601)\"" }.joined(separator: ", ") + "]"
    }

    func tile(at time: TimeInstant) -> TestServer.Behaviour {
        guard time.millisecondsSinceEpoch % Self.step == 0 else { return .status(404) }
        guard now.millisecondsSinceEpoch >= time.millisecondsSinceEpoch + tileLag * 1000 else { return .status(404) }
        return .ok(Self.png(for: time), contentType: "image/png", cacheControl: "max-age=86400")
    }

    /// The red channel every pixel of a time's tiles carries.
    static func red(for time: TimeInstant) -> UInt8 {
        UInt8(truncatingIfNeeded: 10 + time.millisecondsSinceEpoch / step % 200)
    }

    static func png(for time: TimeInstant) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: 256 * 256 * 4)
        let red = red(for: time)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = red
            pixels[i + 1] = 60
            pixels[i + 2] = 120
            pixels[i + 3] = 255
        }
        return (try? PNGWriter.encode(width: 256, height: 256, format: .rgba, pixels: pixels)) ?? []
    }

    /// `202611211200` -> the instant.
    static func instant(compact text: String) -> TimeInstant? {
        let digits = Array(text)
        guard digits.count == 12, digits.allSatisfy(\.isNumber) else { return nil }
        func field(_ from: Int, _ length: Int) -> Int { Int(String(digits[from..<(from + length)])) ?? 0 }
        return TimeInstant(year: field(0, 4), month: field(4, 2), day: field(6, 2), hour: field(8, 2), minute: field(10, 2))
    }

    /// An opaque id for a time (not guessable from the time's text, as the real feeds do).
    static func id(_ time: TimeInstant) -> String {
        String(UInt64(time.millisecondsSinceEpoch / 1000) ^ 0x5DEE_CE66, radix: 16)
    }

    static func instant(id: String) -> TimeInstant? {
        guard let value = UInt64(id, radix: 16) else { return nil }
        return TimeInstant(millisecondsSinceEpoch: Int64(value ^ 0x5DEE_CE66) * 1000)
    }
}
