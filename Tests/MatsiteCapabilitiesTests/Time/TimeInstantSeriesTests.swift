import Foundation
import Testing

@testable import MatsiteCapabilities

@Suite("Stepping through time")
struct TimeInstantSeriesTests {
    private func t(_ text: String) throws -> TimeInstant {
        try TimeInstant.parse(text)
    }

    @Test("a fixed step runs from start through end inclusive")
    func fixedStep() throws {
        let series = TimeInstant.series(
            from: try t("2026-11-21T10:00:00Z"), through: try t("2026-11-21T11:00:00Z"),
            step: try ISODuration.parse("PT10M"), limit: 100)
        #expect(
            series.map(\.iso8601) == [
                "2026-11-21T10:00:00Z", "2026-11-21T10:10:00Z", "2026-11-21T10:20:00Z",
                "2026-11-21T10:30:00Z", "2026-11-21T10:40:00Z", "2026-11-21T10:50:00Z",
                "2026-11-21T11:00:00Z",
            ])
    }

    @Test("a month step counts each instant from the start, clamping to the month's end")
    func monthStep() throws {
        let series = TimeInstant.series(
            from: try t("2026-01-31T00:00:00Z"), through: try t("2026-05-01T00:00:00Z"),
            step: try ISODuration.parse("P1M"), limit: 100)
        #expect(
            series.map(\.iso8601) == [
                "2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", "2026-03-31T00:00:00Z",
                "2026-04-30T00:00:00Z",
            ])
    }

    @Test("the limit bounds a long series, and an end before the start gives nothing")
    func limits() throws {
        let step = try ISODuration.parse("PT1S")
        #expect(TimeInstant.series(from: try t("2000-01-01"), through: try t("2026-01-01"), step: step, limit: 5).count == 5)
        #expect(TimeInstant.series(from: try t("2026-01-02"), through: try t("2026-01-01"), step: step, limit: 5).isEmpty)
    }

    @Test("flooring to a step counts from the Unix epoch, also before it")
    func floored() throws {
        let five = try ISODuration.parse("PT5M")
        #expect(try t("2026-11-21T12:04:59Z").floored(toMultipleOf: five).iso8601 == "2026-11-21T12:00:00Z")
        #expect(try t("2026-11-21T12:05:00Z").floored(toMultipleOf: five).iso8601 == "2026-11-21T12:05:00Z")
        #expect(try t("1969-12-31T23:59:59Z").floored(toMultipleOf: five).iso8601 == "1969-12-31T23:55:00Z")
    }

    @Test("a Foundation date converts both ways at millisecond precision")
    func dates() throws {
        let date = Date(timeIntervalSince1970: 1_795_255_200.25)
        #expect(TimeInstant(date).millisecondsSinceEpoch == 1_795_255_200_250)
        #expect(TimeInstant(date).date == date)
    }
}
