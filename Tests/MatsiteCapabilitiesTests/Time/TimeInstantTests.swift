import Foundation
import Testing

@testable import MatsiteCapabilities

@Suite("ISO 8601 instants")
struct TimeInstantTests {
    private func iso(_ text: String) throws -> String {
        try TimeInstant.parse(text).iso8601
    }

    @Test(
        "dates with and without time, zone and seconds are read as UTC",
        arguments: [
            ("2026-11-21", "2026-11-21T00:00:00Z"),
            ("2026-11-21T10:00Z", "2026-11-21T10:00:00Z"),
            ("2026-11-21T10:00:00Z", "2026-11-21T10:00:00Z"),
            ("2026-11-21T10:00:00", "2026-11-21T10:00:00Z"),
            ("2026-11-21T10", "2026-11-21T10:00:00Z"),
            ("2026-11-21 10:05:30Z", "2026-11-21T10:05:30Z"),
            ("2026-11-21T10:00:00.5Z", "2026-11-21T10:00:00.500Z"),
            ("2026-11-21T10:00:00,123456Z", "2026-11-21T10:00:00.123Z"),
            ("2026-11-21T12:00:00+02:00", "2026-11-21T10:00:00Z"),
            ("2026-11-21T01:00:00-0130", "2026-11-21T02:30:00Z"),
            ("2026-11-21T24:00:00Z", "2026-11-22T00:00:00Z"),
            ("2026-11", "2026-11-01T00:00:00Z"),
            ("2026", "2026-01-01T00:00:00Z"),
        ])
    func parses(input: String, expected: String) throws {
        #expect(try iso(input) == expected)
    }

    @Test(
        "impossible or foreign dates are refused with the reason",
        arguments: [
            "2026-13-01", "2026-02-29", "2026-11-31", "26-11-21", "2026-11-21T25:00Z",
            "2026-11-21T10:60Z", "yesterday", "", "2026-11-21T10:00:00Zjunk", "2026-11-21T10:00:00+25:00",
        ])
    func refuses(input: String) {
        #expect(throws: TimeDimensionError.self) { try TimeInstant.parse(input) }
    }

    @Test("leap days exist only in leap years")
    func leapDays() throws {
        #expect(try iso("2024-02-29") == "2024-02-29T00:00:00Z")
        #expect(try iso("2000-02-29") == "2000-02-29T00:00:00Z")
        #expect(throws: TimeDimensionError.self) { try TimeInstant.parse("1900-02-29") }
    }

    @Test("the epoch and far dates convert both ways")
    func calendarRoundTrip() throws {
        #expect(try TimeInstant.parse("1970-01-01T00:00:00Z").millisecondsSinceEpoch == 0)
        #expect(try TimeInstant.parse("2026-11-23T00:00:00Z").millisecondsSinceEpoch == 1_795_392_000_000)
        #expect(try TimeInstant.parse("1969-12-31T23:59:59Z").millisecondsSinceEpoch == -1000)
        for days in stride(from: -800_000 as Int64, through: 2_900_000, by: 997) {
            let (year, month, day) = civilDate(daysSinceEpoch: days)
            #expect(daysSinceEpoch(year: year, month: month, day: day) == days)
        }
    }

    @Test("adding a month clamps to the end of shorter months, counted from the start")
    func addingMonths() throws {
        let start = try TimeInstant.parse("2024-01-31T06:00:00Z")
        let month = try ISODuration.parse("P1M")
        #expect(start.adding(month).iso8601 == "2024-02-29T06:00:00Z")
        #expect(start.adding(month, times: 2).iso8601 == "2024-03-31T06:00:00Z")
        #expect(start.adding(try ISODuration.parse("P1Y")).iso8601 == "2025-01-31T06:00:00Z")
        #expect(start.adding(month, times: -2).iso8601 == "2023-11-30T06:00:00Z")
    }

    @Test("the manifest form shows milliseconds only when there are some")
    func manifestForm() throws {
        #expect(TimeInstant(year: 2026, month: 11, day: 21, hour: 10)?.iso8601 == "2026-11-21T10:00:00Z")
        #expect(TimeInstant(year: 2026, month: 11, day: 21, hour: 10, millisecond: 7)?.iso8601 == "2026-11-21T10:00:00.007Z")
        #expect(TimeInstant(year: 2026, month: 2, day: 30) == nil)
    }

    @Test("as JSON it is its ISO 8601 text, read back to the same instant; other text is refused")
    func codable() throws {
        let instant = try #require(TimeInstant(year: 2026, month: 11, day: 21, hour: 10, millisecond: 250))
        let json = try JSONEncoder().encode([instant])
        #expect(String(decoding: json, as: UTF8.self) == "[\"2026-11-21T10:00:00.250Z\"]")
        #expect(try JSONDecoder().decode([TimeInstant].self, from: json) == [instant])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([TimeInstant].self, from: Data("[\"noon\"]".utf8)) }
    }
}
