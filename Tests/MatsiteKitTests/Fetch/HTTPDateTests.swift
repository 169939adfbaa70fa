import Foundation
import Testing

@testable import MatsiteKit

/// The hand-written HTTP date parser against the three forms RFC 9110 has a recipient
/// accept, and against what it must refuse.
@Suite("HTTP dates")
struct HTTPDateTests {
    /// 1994-11-06 08:49:37 UTC, RFC 9110's example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test("IMF-fixdate, RFC 850 and asctime all read as RFC 9110's example instant")
    func threeForms() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == Self.example)
    }

    @Test("dates across the calendar agree with Foundation's")
    func agreesWithFoundation() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        // Every ~37 hours over 130 years: leap days, month ends, the 2000 and 2100 rules.
        var seconds = -2_208_988_800.0
        while seconds < 2_000_000_000 {
            let date = Date(timeIntervalSince1970: seconds)
            let text = formatter.string(from: date)
            #expect(HTTPDate.parse(text) == date, "\(text)")
            seconds += 133_337
        }
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:59 GMT") == formatter.date(from: "Thu, 29 Feb 2024 23:59:59 GMT"))
    }

    @Test("impossible or malformed dates are nil, not a guess")
    func refuses() {
        for text in [
            "", "0", "-1", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 PST",
            "Sun, 31 Nov 1994 08:49:37 GMT", "Tue, 29 Feb 2022 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 6 08:49:37",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    @Test("a two-digit RFC 850 year more than 50 years ahead is in the past century")
    func twoDigitYears() throws {
        let thisYear = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: Date()).year!
        let ahead = (thisYear + 60) % 100, behind = (thisYear + 10) % 100
        let far = try #require(HTTPDate.parse(String(format: "Monday, 01-Jan-%02d 00:00:00 GMT", ahead)))
        let near = try #require(HTTPDate.parse(String(format: "Monday, 01-Jan-%02d 00:00:00 GMT", behind)))
        #expect(far < Date())
        #expect(near > Date())
    }

    @Test("Retry-After takes seconds or any of the date forms")
    func retryAfter() {
        let now = Self.example
        #expect(HTTPFetcher.retryAfterSeconds("120", now: now) == 120)
        #expect(HTTPFetcher.retryAfterSeconds("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == 60)
        #expect(HTTPFetcher.retryAfterSeconds("Sun Nov  6 08:49:47 1994", now: now) == 10)
        #expect(HTTPFetcher.retryAfterSeconds("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0)
        #expect(HTTPFetcher.retryAfterSeconds("soon", now: now) == nil)
    }
}
