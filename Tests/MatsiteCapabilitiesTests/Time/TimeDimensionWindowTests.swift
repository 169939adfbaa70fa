import Testing

@testable import MatsiteCapabilities

@Suite("Time dimensions: rolling windows")
struct TimeDimensionWindowTests {
    @Test("advertised(from:through:) lists every advertised instant in the window, across lists and periods")
    func advertisedInWindow() throws {
        let time = try TimeDimension.parse(values: ["2026-11-21T10:00:00Z/2026-11-21T11:00:00Z/PT10M", "2026-11-21T11:05:00Z"])
        let window = try time.advertised(from: TimeInstant.parse("2026-11-21T10:35:00Z"), through: TimeInstant.parse("2026-11-21T11:05:00Z"))
        #expect(window.map(\.iso8601) == ["2026-11-21T10:40:00Z", "2026-11-21T10:50:00Z", "2026-11-21T11:00:00Z", "2026-11-21T11:05:00Z"])
    }

    @Test("a continuous interval has no instants to list")
    func continuous() throws {
        let time = try TimeDimension.parse(values: ["2026-11-21T10:00:00Z/2026-11-21T11:00:00Z"])
        #expect(throws: TimeDimensionError.self) {
            try time.advertised(from: TimeInstant.parse("2026-11-21T10:00:00Z"), through: TimeInstant.parse("2026-11-21T11:00:00Z"))
        }
    }
}
