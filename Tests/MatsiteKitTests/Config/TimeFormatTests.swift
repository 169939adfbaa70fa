import Foundation
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
        let date = try #require(TimeFormat.parseISO("2026-11-21T10:00:00.250Z"))
        #expect(try TimeFormat("%S.%Q").format(date) == "00.250")
    }

    @Test("instants with an offset, a space for T, or a bare date parse to the same UTC instant")
    func parsing() {
        #expect(TimeFormat.parseISO("2026-11-21T12:00:00+02:00") == Self.instant)
        #expect(TimeFormat.parseISO("2026-11-21 10:00:00Z") == Self.instant)
        #expect(TimeFormat.parseISO("2026-11-21") == Date(timeIntervalSince1970: 1_795_219_200))
        #expect(TimeFormat.parseISO("21/11/2026") == nil)
        #expect(TimeFormat.iso(Self.instant) == "2026-11-21T10:00:00Z")
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
