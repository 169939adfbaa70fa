import Testing

@testable import MatsiteCapabilities

@Suite("Time dimensions")
struct TimeDimensionTests {
    let now = TimeInstant(year: 2026, month: 11, day: 23, hour: 8)!

    private func t(_ text: String) throws -> TimeInstant {
        try TimeInstant.parse(text)
    }

    private func dimension(_ values: String..., default value: String? = nil) throws -> TimeDimension {
        try TimeDimension.parse(values: values, default: value, now: now)
    }

    @Test("a list of values expands to the sorted distinct instants")
    func list() throws {
        let time = try dimension("2026-11-21T10:10:00Z, 2026-11-21T10:00:00Z,2026-11-21T10:10:00Z")
        #expect(try time.instants().map(\.iso8601) == ["2026-11-21T10:00:00Z", "2026-11-21T10:10:00Z"])
        #expect(time.count == 2)
    }

    @Test("an interval expands by its period, end included")
    func interval() throws {
        let time = try dimension("2026-11-21T10:00:00Z/2026-11-21T11:00:00Z/PT10M")
        let instants = try time.instants()
        #expect(instants.count == 7)
        #expect(instants.first?.iso8601 == "2026-11-21T10:00:00Z")
        #expect(instants.last?.iso8601 == "2026-11-21T11:00:00Z")
    }

    @Test("an end off the period's grid stops at the last step before it")
    func ragged() throws {
        let time = try dimension("2026-11-21T10:00:00Z/2026-11-21T10:25:00Z/PT10M")
        #expect(try time.instants().map(\.iso8601) == ["2026-11-21T10:00:00Z", "2026-11-21T10:10:00Z", "2026-11-21T10:20:00Z"])
        #expect(time.last?.iso8601 == "2026-11-21T10:20:00Z")
    }

    @Test("several intervals in one value and several values combine")
    func combined() throws {
        let time = try dimension(
            "2026-11-21T10:00:00Z/2026-11-21T11:00:00Z/PT10M",
            "2026-11-21T11:05:00Z/2026-11-21T11:50:00Z/PT5M,2026-11-20T00:00:00Z")
        #expect(time.count == 18)
        #expect(time.first?.iso8601 == "2026-11-20T00:00:00Z")
        #expect(time.last?.iso8601 == "2026-11-21T11:50:00Z")
        #expect(try time.latest(3).map(\.iso8601) == ["2026-11-21T11:40:00Z", "2026-11-21T11:45:00Z", "2026-11-21T11:50:00Z"])
        #expect(try time.latest(100).count == 18)
    }

    @Test("monthly and yearly periods follow the calendar")
    func calendarPeriods() throws {
        let monthly = try dimension("2024-01-31/2024-06-30/P1M")
        #expect(
            try monthly.instants().map(\.iso8601) == [
                "2024-01-31T00:00:00Z", "2024-02-29T00:00:00Z", "2024-03-31T00:00:00Z",
                "2024-04-30T00:00:00Z", "2024-05-31T00:00:00Z", "2024-06-30T00:00:00Z",
            ])
        let yearly = try dimension("2000-01-01/2026-01-01/P1Y")
        #expect(yearly.count == 27)
        #expect(try yearly.latest(2).map(\.iso8601) == ["2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"])
        #expect(yearly.contains(try t("2013-01-01")))
        #expect(!yearly.contains(try t("2013-01-02")))
    }

    @Test("twenty years of five-minute radar are selected without expanding them")
    func longInterval() throws {
        let time = try dimension("1995-01-01/2015-12-31/PT5M")
        #expect(time.count == 2_208_673)
        #expect(throws: TimeDimensionError.tooManyInstants(count: 2_208_673, limit: 100_000)) { try time.instants() }
        var latest: [TimeInstant] = []
        let elapsed = milliseconds { latest = (try? time.latest(5)) ?? [] }
        #expect(
            latest.map(\.iso8601) == [
                "2015-12-30T23:40:00Z", "2015-12-30T23:45:00Z", "2015-12-30T23:50:00Z",
                "2015-12-30T23:55:00Z", "2015-12-31T00:00:00Z",
            ])
        #expect(elapsed < 30_000) // a hang detector, generous for a loaded 2-core CI
        #expect(time.contains(try t("2010-06-01T12:35:00Z")))
        #expect(!time.contains(try t("2010-06-01T12:36:00Z")))
        #expect(!time.contains(try t("2016-01-01T00:00:00Z")))
    }

    @Test("a range takes the advertised instants in the window at the step")
    func range() throws {
        let time = try dimension("2026-11-21T00:00:00Z/2026-11-22T00:00:00Z/PT5M")
        let frames = try time.inRange(
            start: t("2026-11-21T10:00:00Z"), end: t("2026-11-21T11:00:00Z"),
            step: ISODuration.parse("PT20M"))
        #expect(
            frames.map(\.iso8601) == [
                "2026-11-21T10:00:00Z", "2026-11-21T10:20:00Z", "2026-11-21T10:40:00Z", "2026-11-21T11:00:00Z",
            ])
        let same = try time.inRange(
            start: t("2026-11-21T10:00:00Z"), end: t("2026-11-21T10:12:00Z"),
            step: ISODuration.parse("PT5M"))
        #expect(same.count == 3)
    }

    @Test("a range whose step does not fit the period says so")
    func rangeStepDoesNotFit() throws {
        let time = try dimension("2026-11-21T00:00:00Z/2026-11-22T00:00:00Z/PT5M")
        #expect(
            throws: TimeDimensionError.stepDoesNotFit(
                step: "PT7M", period: "PT5M",
                interval: "2026-11-21T00:00:00Z/2026-11-22T00:00:00Z/PT5M")
        ) {
            try time.inRange(
                start: t("2026-11-21T10:00:00Z"), end: t("2026-11-21T11:00:00Z"),
                step: ISODuration.parse("PT7M"))
        }
        let error = TimeDimensionError.stepDoesNotFit(step: "PT7M", period: "PT5M", interval: "a/b/PT5M")
        #expect(error.description == "the step PT7M does not fit the advertised period PT5M of a/b/PT5M; use a whole multiple of PT5M")
    }

    @Test("a range outside the advertised times is an error naming what exists")
    func rangeEmpty() throws {
        let time = try dimension("2026-11-21T00:00:00Z/2026-11-22T00:00:00Z/PT5M")
        #expect(
            throws: TimeDimensionError.nothingInRange(
                start: "2025-01-01T00:00:00Z", end: "2025-01-02T00:00:00Z",
                advertised: "2026-11-21T00:00:00Z to 2026-11-22T00:00:00Z")
        ) {
            try time.inRange(start: t("2025-01-01"), end: t("2025-01-02"), step: ISODuration.parse("PT10M"))
        }
        #expect(throws: TimeDimensionError.self) {
            try time.inRange(start: t("2026-11-22"), end: t("2026-11-21"), step: ISODuration.parse("PT10M"))
        }
    }

    @Test("a continuous range has no list of times but accepts any step")
    func continuous() throws {
        let time = try dimension("2026-11-21T00:00:00Z/2026-11-21T06:00:00Z")
        #expect(time.count == nil)
        #expect(throws: TimeDimensionError.continuous(interval: "2026-11-21T00:00:00Z/2026-11-21T06:00:00Z")) {
            try time.latest(3)
        }
        let frames = try time.inRange(
            start: t("2026-11-21T05:00:00Z"), end: t("2026-11-21T08:00:00Z"),
            step: ISODuration.parse("PT25M"))
        #expect(frames.map(\.iso8601) == ["2026-11-21T05:00:00Z", "2026-11-21T05:25:00Z", "2026-11-21T05:50:00Z"])
        #expect(time.contains(try t("2026-11-21T03:17:00Z")))
        #expect(try dimension("2026-11-21T00:00:00Z/2026-11-21T06:00:00Z/PT0S").count == nil)
    }

    @Test("present as an interval end means now and marks current")
    func present() throws {
        let time = try dimension("2026-11-23T06:00:00Z/present/PT30M")
        #expect(time.current)
        #expect(time.last?.iso8601 == "2026-11-23T08:00:00Z")
        let alone = try dimension("current")
        #expect(alone.current)
        #expect(alone.isEmpty)
    }

    @Test("frames that are not advertised are named with the nearest advertised times")
    func requireAdvertised() throws {
        let time = try dimension("2026-11-21T10:00:00Z/2026-11-21T11:00:00Z/PT10M")
        try time.requireAdvertised([t("2026-11-21T10:00:00Z"), t("2026-11-21T10:50:00Z")])
        #expect(
            throws: TimeDimensionError.notAdvertised(
                ["2026-11-21T10:05:00Z", "2026-11-21T12:00:00Z"],
                nearest: ["2026-11-21T10:00:00Z", "2026-11-21T10:10:00Z"])
        ) {
            try time.requireAdvertised([t("2026-11-21T10:05:00Z"), t("2026-11-21T10:10:00Z"), t("2026-11-21T12:00:00Z")])
        }
    }

    @Test("times are written back the way the service writes them")
    func formatting() throws {
        let instant = try t("2026-11-22T00:00:00Z")
        #expect(try dimension("2026-11-01/2026-11-22/P1D").format(instant) == "2026-11-22")
        #expect(try dimension("1995-01-01/2015-12-31/PT5M").format(instant) == "2026-11-22T00:00:00Z")
        #expect(try dimension("2026-11-21T10:00Z/2026-11-22T00:00Z/PT10M").format(instant) == "2026-11-22T00:00Z")
        #expect(try dimension("2026-11-21T10:00:00.000Z").format(instant) == "2026-11-22T00:00:00.000Z")
        #expect(try dimension("2026-11-21T10:00:00").format(instant) == "2026-11-22T00:00:00")
    }

    @Test("the summary gives first, last, count and period")
    func summary() throws {
        let summary = try dimension("2026-11-21T10:00:00Z/2026-11-21T11:00:00Z/PT10M", default: "2026-11-21T11:00:00Z").summary
        #expect(summary.count == 7)
        #expect(summary.period == "PT10M")
        #expect(summary.description == "2026-11-21T10:00:00Z to 2026-11-21T11:00:00Z, 7 times every PT10M, default 2026-11-21T11:00:00Z")
        let regular = try dimension("2026-11-21T10:00:00Z,2026-11-21T10:15:00Z,2026-11-21T10:30:00Z").summary
        #expect(regular.period == "PT15M")
        let irregular = try dimension("2026-11-21T10:00:00Z,2026-11-21T10:15:00Z,2026-11-21T10:20:00Z").summary
        #expect(irregular.period == nil)
    }

    @Test(
        "bad values are refused with the value and the reason",
        arguments: [
            "2026-11-21/2026-11-20/P1D", "2026-11-21/2026-11-22/P1D/x", "2026-11-21/2026-11-22/1D", "tomorrow",
        ])
    func refuses(value: String) {
        #expect(throws: TimeDimensionError.self) { try TimeDimension.parse(values: [value]) }
    }

    @Test("a request for zero or negative frames is refused")
    func zeroLatest() throws {
        let time = try dimension("2026-11-21")
        #expect(throws: TimeDimensionError.self) { try time.latest(0) }
        #expect(try time.latest(5).count == 1)
    }

    @Test("a range over centuries of sparse times is computed without walking the step grid")
    func sparseCenturies() throws {
        // Regression (fuzzing): a mangled document advertised year 3986 next to 1993.
        let time = try dimension("1993-01-01T12:00:00Z,1993-02-01T12:00:00Z,3986-01-01T12:00:00Z")
        var frames: [TimeInstant] = []
        let elapsed = try milliseconds {
            frames = try time.inRange(start: t("1900-01-01"), end: t("9999-01-01"), step: ISODuration.parse("PT10M"))
        }
        #expect(frames.map(\.iso8601) == ["1993-01-01T12:00:00Z", "1993-02-01T12:00:00Z", "3986-01-01T12:00:00Z"])
        #expect(elapsed < 30_000) // a hang detector, generous for a loaded 2-core CI
        let monthly = try time.inRange(start: t("1900-01-01"), end: t("9999-01-01"), step: ISODuration.parse("P1M"))
        #expect(monthly.count == 3)
    }

    @Test("calendar arithmetic saturates instead of overflowing")
    func saturation() throws {
        let start = try t("2026-01-01")
        let huge = start.adding(ISODuration(months: 1), times: Int64.max)
        #expect(huge > start)
        let back = start.adding(ISODuration(milliseconds: 86_400_000), times: Int64.min)
        #expect(back < start)
    }
}
