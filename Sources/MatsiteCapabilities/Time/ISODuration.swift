/// An ISO 8601 duration such as `P1D`, `PT10M`, `P1M`, `P1Y`, `PT5M30S`, `PT0.5S`, `P2W`.
///
/// Years and months are calendar units (kept apart as `months`); weeks, days, hours, minutes
/// and seconds are fixed lengths in UTC (a day is 86 400 s).
public struct ISODuration: Sendable, Hashable, CustomStringConvertible {
    /// The calendar part, in months (a year is 12).
    public let months: Int
    /// The fixed part, in milliseconds.
    public let milliseconds: Int64
    /// The text it was parsed from, or a canonical spelling.
    public let text: String

    /// A duration of these parts.
    public init(months: Int = 0, milliseconds: Int64 = 0) {
        self.months = months
        self.milliseconds = milliseconds
        self.text = ISODuration.canonicalText(months: months, milliseconds: milliseconds)
    }

    private init(months: Int, milliseconds: Int64, text: String) {
        self.months = months
        self.milliseconds = milliseconds
        self.text = text
    }

    /// The text it was written as.
    public var description: String { text }

    /// True for `PT0S` and friends: an interval with a zero period is continuous.
    public var isZero: Bool { months == 0 && milliseconds == 0 }

    /// True when the duration has no calendar part (so every step is the same length).
    public var isFixed: Bool { months == 0 }

    /// A rough length, for estimates only (a month is 30.436875 days).
    var approximateMilliseconds: Double {
        Double(months) * 2_629_746_000 + Double(milliseconds)
    }

    /// Parses `PnYnMnWnDTnHnMnS`; seconds (and hours, minutes, days) may have a fraction.
    public static func parse(_ text: String) throws(TimeDimensionError) -> ISODuration {
        var scanner = Scanner8601(text)
        func fail(_ why: String) -> TimeDimensionError {
            .invalidDuration(text, reason: why)
        }
        guard scanner.take("P") else { throw fail("a duration starts with P") }
        var months: Int64 = 0
        var milliseconds: Int64 = 0
        var inTime = false
        var sawComponent = false
        var lastRank = -1
        // Bound every component so that sums cannot overflow (a million years is plenty).
        let limit: Int64 = 1_000_000_000_000
        while !scanner.atEnd {
            if scanner.take("T") {
                guard !inTime else { throw fail("T appears twice") }
                inTime = true
                continue
            }
            guard let whole = scanner.number() else { throw fail("expected a number") }
            var fractionMilli: Int64 = 0
            var hasFraction = false
            if scanner.take(".") || scanner.take(",") {
                guard let fraction = scanner.fraction() else { throw fail("expected digits after the decimal mark") }
                fractionMilli = Int64(fraction)
                hasFraction = true
            }
            let unit: (rank: Int, months: Int64, milliseconds: Int64)
            if !inTime && scanner.take("Y") {
                unit = (0, 12, 0)
            } else if !inTime && scanner.take("M") {
                unit = (1, 1, 0)
            } else if !inTime && scanner.take("W") {
                unit = (2, 0, 604_800_000)
            } else if !inTime && scanner.take("D") {
                unit = (3, 0, 86_400_000)
            } else if inTime && scanner.take("H") {
                unit = (4, 0, 3_600_000)
            } else if inTime && scanner.take("M") {
                unit = (5, 0, 60_000)
            } else if inTime && scanner.take("S") {
                unit = (6, 0, 1000)
            } else {
                throw fail("expected a unit (Y, M, W, D, or H, M, S after T)")
            }
            guard unit.rank > lastRank else { throw fail("units out of order") }
            lastRank = unit.rank
            sawComponent = true
            if unit.months > 0 {
                guard !hasFraction else { throw fail("years and months cannot have a fraction") }
                months += whole * unit.months
            } else {
                guard whole <= limit / unit.milliseconds else { throw fail("too long") }
                milliseconds += whole * unit.milliseconds + fractionMilli * unit.milliseconds / 1000
            }
            guard months <= 12_000_000, milliseconds <= limit * 1000 else { throw fail("too long") }
        }
        guard sawComponent else { throw fail("no components") }
        guard lastRank >= 4 || !inTime else { throw fail("T without hours, minutes or seconds") }
        return ISODuration(months: Int(months), milliseconds: milliseconds, text: text)
    }

    /// How many times `other` fits in this duration when it fits a whole number of times
    /// (e.g. PT10M in PT30M: 3), else nil. Calendar and fixed parts must fit with the same
    /// multiple.
    func multiple(of other: ISODuration) -> Int64? {
        if other.isZero { return nil }
        if other.months == 0 && months == 0 {
            guard milliseconds % other.milliseconds == 0 else { return nil }
            let ratio = milliseconds / other.milliseconds
            return ratio > 0 ? ratio : nil
        }
        guard other.months != 0, months % other.months == 0 else { return nil }
        let ratio = Int64(months / other.months)
        guard ratio > 0, other.milliseconds * ratio == milliseconds else { return nil }
        return ratio
    }

    private static func canonicalText(months: Int, milliseconds: Int64) -> String {
        var text = "P"
        if months / 12 != 0 { text += "\(months / 12)Y" }
        if months % 12 != 0 { text += "\(months % 12)M" }
        let days = milliseconds / 86_400_000
        if days != 0 { text += "\(days)D" }
        var rest = milliseconds % 86_400_000
        if rest != 0 {
            text += "T"
            if rest / 3_600_000 != 0 { text += "\(rest / 3_600_000)H" }
            rest %= 3_600_000
            if rest / 60_000 != 0 { text += "\(rest / 60_000)M" }
            rest %= 60_000
            if rest != 0 {
                text += rest % 1000 == 0 ? "\(rest / 1000)S" : "\(Double(rest) / 1000)S"
            }
        }
        return text == "P" ? "PT0S" : text
    }
}
