import Testing

@testable import MatsiteCapabilities

@Suite("ISO 8601 periods")
struct ISODurationTests {
    @Test(
        "periods are split into calendar months and fixed milliseconds",
        arguments: [
            ("P1D", 0, 86_400_000 as Int64),
            ("PT10M", 0, 600_000),
            ("PT1H", 0, 3_600_000),
            ("P1M", 1, 0),
            ("P1Y", 12, 0),
            ("P1Y2M", 14, 0),
            ("PT5M30S", 0, 330_000),
            ("PT0.5S", 0, 500),
            ("P2W", 0, 1_209_600_000),
            ("P1DT12H", 0, 129_600_000),
            ("PT1.5H", 0, 5_400_000),
            ("PT0S", 0, 0),
        ])
    func parses(text: String, months: Int, milliseconds: Int64) throws {
        let duration = try ISODuration.parse(text)
        #expect(duration.months == months)
        #expect(duration.milliseconds == milliseconds)
        #expect(duration.description == text)
    }

    @Test(
        "malformed periods are refused",
        arguments: [
            "", "P", "PT", "1D", "P1H", "PT1D", "P1.5M", "PT5S10M", "P1DT", "PXD", "P99999999999999Y", "PT1M1M",
        ])
    func refuses(text: String) {
        #expect(throws: TimeDimensionError.self) { try ISODuration.parse(text) }
    }

    @Test("a step fits a period when it is a whole multiple of it")
    func multiples() throws {
        let tenMinutes = try ISODuration.parse("PT10M")
        #expect(try ISODuration.parse("PT30M").multiple(of: tenMinutes) == 3)
        #expect(try ISODuration.parse("PT1H").multiple(of: tenMinutes) == 6)
        #expect(try ISODuration.parse("PT15M").multiple(of: tenMinutes) == nil)
        #expect(try ISODuration.parse("P1Y").multiple(of: ISODuration.parse("P1M")) == 12)
        #expect(try ISODuration.parse("P1M").multiple(of: ISODuration.parse("P1D")) == nil)
    }
}
