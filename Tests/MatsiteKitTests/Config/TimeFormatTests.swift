import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

@Suite("TimeFormat")
struct TimeFormatTests {
    static let instant = Date(timeIntervalSince1970: 1_795_255_200) // 2026-11-21T10:00:00Z

    @Test(
        "every supported code writes the instant in UTC",
        arguments: [
            ("%Y-%m-%dT%H:%M:%SZ", "2026-11-21T10:00:00Z"), ("%Y%m%d%H%M", "202611211000"), ("%y", "26"),
            ("%j", "325"), ("%s", "1795255200"), ("%Q", "000"), ("%H:%M 100%%", "10:00 100%"),
        ])
    func codes(pattern: String, expected: String) throws {
        #expect(try TimeFormat(pattern).format(Self.instant) == expected)
    }

    @Test("%Q gives milliseconds")
    func milliseconds() throws {
        let instant = try #require(TimeFormat.instant("2026-11-21T10:00:00.250Z"))
        #expect(try TimeFormat("%S.%Q").format(instant) == "00.250")
    }

    /// 2026-11-21T10:00:00Z in milliseconds.
    static let ten: Int64 = 1_795_255_200_000

    @Test(
        "every form the config and --at accept parses, with the one ISO 8601 parser, to its UTC instant",
        arguments: [
            ("2026-11-21T10:00:00Z", 0), ("2026-11-21T10:00:00.250Z", 250), ("2026-11-21T10:00:00,5Z", 500),
            ("2026-11-21T10:00:00.123456Z", 123), ("2026-11-21T12:00:00+02:00", 0), ("2026-11-21T12:00:00+0200", 0),
            ("2026-11-21T07:30:00-02:30", 0), ("2026-11-21 10:00:00Z", 0), ("2026-11-21T10:00Z", 0), ("2026-11-21T10:00", 0),
            ("2026-11-21 10:00", 0), ("2026-11-21T10:00:00", 0), ("2026-11-21t10:00:00z", 0), ("  2026-11-21T10:00:00Z ", 0),
            ("2026-11-21T10", 0), ("2026-11-21", -36_000_000), ("2026-11-20T24:00:00Z", -36_000_000), ("2026-11", -1_764_000_000),
        ] as [(String, Int64)])
    func forms(text: String, offset: Int64) throws {
        let instant = try #require(TimeFormat.instant(text), "\(text)")
        #expect(instant.millisecondsSinceEpoch == Self.ten + offset, "\(text): \(instant)")
        #expect(TimeFormat.parseISO(text) == instant.date)
    }

    @Test(
        "anything else is refused rather than read as another time",
        arguments: ["21/11/2026", "2026-02-30", "2026-11-21T25:00Z", "2026-11-21T10:00:00Zjunk", "2026-11-21T10:", "yesterday", ""])
    func refused(text: String) {
        #expect(TimeFormat.instant(text) == nil, "\(text)")
    }

    @Test("instants are written in UTC to the second, as the manifest and status write them")
    func writing() {
        #expect(TimeFormat.iso(TimeInstant(millisecondsSinceEpoch: Self.ten + 999)) == "2026-11-21T10:00:00Z")
        #expect(TimeFormat.iso(Self.instant) == "2026-11-21T10:00:00Z")
    }

    @Test("frames.times and frames.range read every form")
    func config() throws {
        let site = try TestSite()
        defer { site.remove() }
        let yaml = site.yaml(
            """
              - id: a
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 3
                source: { url: "http://127.0.0.1:9/{time}/{z}/{x}/{y}.png" }
                frames: { times: [2026-11-21, "2026-11-21T10:00", 2026-11-21 10:05:00Z, "2026-11-21T12:10:00+02:00"] }
              - id: b
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 3
                source: { url: "http://127.0.0.1:9/{time}/{z}/{x}/{y}.png" }
                frames: { range: { start: "2026-11-21T10:00", end: 2026-11-21T10:20:00.000Z, step: PT10M } }
            """)
        let animations = try site.config(yaml).animations
        guard case .times(let times) = animations[0].frames else { Issue.record("\(animations[0].frames)"); return }
        #expect(times.map(\.millisecondsSinceEpoch) == [Self.ten - 36_000_000, Self.ten, Self.ten + 300_000, Self.ten + 600_000])
        guard case .range(let start, let end, _) = animations[1].frames else { Issue.record("\(animations[1].frames)"); return }
        #expect(start.millisecondsSinceEpoch == Self.ten && end.millisecondsSinceEpoch == Self.ten + 1_200_000)
    }

    @Test("an unsupported code is refused when the format is read", arguments: ["%Z", "%", "%H:%M %p"])
    func unsupported(pattern: String) {
        #expect(throws: TemplateError.self) { try TimeFormat(pattern) }
    }

    @Test(
        "a format that writes no time (no % code, or only %%) is refused: every frame would get the same URL",
        arguments: ["YYYYMMDDHHmm", "plain", "100%%", ""])
    func writesNoTime(pattern: String) {
        #expect {
            try TimeFormat(pattern)
        } throws: { error in
            "\(error)".contains("every frame would get the same {time}") && "\(error)".contains("\"%Y%m%d%H%M\" writes 202611251205")
        }
    }
}
