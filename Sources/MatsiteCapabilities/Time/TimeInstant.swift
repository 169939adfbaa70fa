import Foundation

/// An instant in UTC with millisecond precision, as used by OGC time dimensions.
///
/// Calendar math is done here on the proleptic Gregorian calendar (no time zones, no leap
/// seconds), so expanding long series does not go through `Calendar`.
public struct TimeInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public let millisecondsSinceEpoch: Int64

    /// The instant this many milliseconds after 1970-01-01T00:00:00Z.
    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    /// The instant of these UTC calendar fields; nil when a field is out of range.
    public init?(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
        millisecond: Int = 0
    ) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...daysInMonth(year: year, month: month)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
            (0...999).contains(millisecond)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.millisecondsSinceEpoch = seconds * 1000 + Int64(millisecond)
    }

    /// The current instant (millisecond precision).
    public static func now() -> TimeInstant {
        TimeInstant(millisecondsSinceEpoch: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// Parses an ISO 8601 date or date-time: `2026-11-21`, `2026-11-21T10:00Z`,
    /// `2026-11-21T10:00:00.5+01:00`, reduced forms `2026` and `2026-11`. A value without a zone
    /// is taken as UTC.
    public static func parse(_ text: String) throws(TimeDimensionError) -> TimeInstant {
        try ParsedTime.parse(text).instant
    }

    /// The UTC calendar fields.
    public var components: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        let (days, milliseconds) = floorDivision(millisecondsSinceEpoch, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let ms = Int(milliseconds)
        return (year, month, day, ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.sss` when the instant has milliseconds: the form used
    /// in manifests.
    public var iso8601: String {
        format(TimeStyle.seconds)
    }

    /// Same as `iso8601`.
    public var description: String {
        iso8601
    }

    /// Earlier instants sort first.
    public static func < (lhs: TimeInstant, rhs: TimeInstant) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    /// The instant `count` times `duration` later (calendar months first, then the fixed part).
    /// Days past the end of a month clamp to its last day (Jan 31 + P1M = Feb 28/29).
    public func adding(_ duration: ISODuration, times count: Int64 = 1) -> TimeInstant {
        // Saturates instead of trapping: values come from documents we do not control.
        let forward = (count >= 0) == (duration.months >= 0 && duration.milliseconds >= 0)
        let saturated = TimeInstant(millisecondsSinceEpoch: forward ? Int64.max / 2 : Int64.min / 2)
        var result = millisecondsSinceEpoch
        if duration.months != 0 {
            let fields = components
            let (monthSteps, overflow) = Int64(duration.months).multipliedReportingOverflow(by: count)
            guard !overflow, monthSteps > -12_000_000, monthSteps < 12_000_000 else { return saturated }
            let totalMonths = Int64(fields.year) * 12 + Int64(fields.month - 1) + monthSteps
            let (yearOffset, monthIndex) = floorDivision(totalMonths, 12)
            let year = Int(yearOffset)
            let month = Int(monthIndex) + 1
            let day = min(fields.day, daysInMonth(year: year, month: month))
            let (_, timeOfDay) = floorDivision(millisecondsSinceEpoch, 86_400_000)
            result = daysSinceEpoch(year: year, month: month, day: day) * 86_400_000 + timeOfDay
        }
        let (fixed, overflow) = duration.milliseconds.multipliedReportingOverflow(by: count)
        let (sum, overflow2) = result.addingReportingOverflow(fixed)
        guard !overflow, !overflow2, sum > Int64.min / 2, sum < Int64.max / 2 else { return saturated }
        return TimeInstant(millisecondsSinceEpoch: sum)
    }

    /// Writes the instant in a given style (UTC).
    func format(_ style: TimeStyle) -> String {
        let c = components
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = pad(c.year, 4)
        if style.precision >= .month { text += "-" + pad(c.month, 2) }
        if style.precision >= .day { text += "-" + pad(c.day, 2) }
        if style.precision >= .hour { text += "T" + pad(c.hour, 2) }
        if style.precision >= .minute { text += ":" + pad(c.minute, 2) }
        if style.precision >= .second { text += ":" + pad(c.second, 2) }
        if style.precision == .millisecond || (style.precision == .second && c.millisecond != 0) {
            text += "." + pad(c.millisecond, 3)
        }
        if style.precision >= .hour && style.zulu { text += "Z" }
        return text
    }
}

/// How an advertised value was written, so that URLs carry times the way the server wrote them.
struct TimeStyle: Sendable, Hashable {
    enum Precision: Int, Comparable, Sendable {
        case year, month, day, hour, minute, second, millisecond
        static func < (lhs: Precision, rhs: Precision) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    var precision: Precision
    var zulu: Bool

    static let seconds = TimeStyle(precision: .second, zulu: true)
}

/// A parsed ISO 8601 time and the style it was written in.
struct ParsedTime {
    let instant: TimeInstant
    let style: TimeStyle

    static func parse(_ text: String) throws(TimeDimensionError) -> ParsedTime {
        var scanner = Scanner8601(text)
        func fail(_ why: String) -> TimeDimensionError {
            .invalidTime(text, reason: why)
        }
        guard let year = scanner.digits(exactly: 4) else { throw fail("expected a four-digit year") }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0, millisecond = 0
        var precision = TimeStyle.Precision.year
        var zulu = false
        var offsetMinutes = 0
        if scanner.take("-") {
            guard let value = scanner.digits(exactly: 2) else { throw fail("expected a two-digit month") }
            month = value
            precision = .month
            if scanner.take("-") {
                guard let value = scanner.digits(exactly: 2) else { throw fail("expected a two-digit day") }
                day = value
                precision = .day
            }
        }
        if precision == .day, scanner.take("T") || scanner.take("t") || scanner.take(" ") {
            guard let value = scanner.digits(exactly: 2) else { throw fail("expected a two-digit hour") }
            hour = value
            precision = .hour
            if scanner.take(":") {
                guard let value = scanner.digits(exactly: 2) else { throw fail("expected two-digit minutes") }
                minute = value
                precision = .minute
                if scanner.take(":") {
                    guard let value = scanner.digits(exactly: 2) else { throw fail("expected two-digit seconds") }
                    second = value
                    precision = .second
                    if scanner.take(".") || scanner.take(",") {
                        guard let fraction = scanner.fraction() else { throw fail("expected digits after the decimal mark") }
                        millisecond = fraction
                        precision = .millisecond
                    }
                }
            }
            if scanner.take("Z") || scanner.take("z") {
                zulu = true
            } else if let sign = scanner.sign() {
                guard let hours = scanner.digits(exactly: 2), hours <= 23 else { throw fail("bad zone offset") }
                var minutes = 0
                if scanner.take(":") {
                    guard let value = scanner.digits(exactly: 2) else { throw fail("bad zone offset") }
                    minutes = value
                } else if let value = scanner.digits(exactly: 2) {
                    minutes = value
                }
                guard minutes <= 59 else { throw fail("bad zone offset") }
                offsetMinutes = sign * (hours * 60 + minutes)
                zulu = true
            }
        }
        guard scanner.atEnd else { throw fail("unexpected text after the time") }
        if hour == 24 && minute == 0 && second == 0 && millisecond == 0 {
            // 24:00 is the end of the day, allowed by ISO 8601.
            guard let midnight = TimeInstant(year: year, month: month, day: day) else {
                throw fail("no such date")
            }
            let instant = TimeInstant(
                millisecondsSinceEpoch: midnight.millisecondsSinceEpoch + 86_400_000
                    - Int64(offsetMinutes) * 60_000)
            return ParsedTime(instant: instant, style: TimeStyle(precision: precision, zulu: zulu))
        }
        guard
            let local = TimeInstant(
                year: year, month: month, day: day, hour: hour, minute: minute,
                second: second == 60 ? 59 : second, millisecond: millisecond)
        else { throw fail("no such date or time") }
        let instant = TimeInstant(millisecondsSinceEpoch: local.millisecondsSinceEpoch - Int64(offsetMinutes) * 60_000)
        return ParsedTime(instant: instant, style: TimeStyle(precision: precision, zulu: zulu))
    }
}

/// A byte scanner for ISO 8601 text.
struct Scanner8601 {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, index < bytes.count, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    mutating func peek(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, index < bytes.count else { return false }
        return bytes[index] == ascii
    }

    mutating func digits(exactly count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<count {
            let byte = bytes[index + offset]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += count
        return value
    }

    /// One or more digits (at most 12), as a number.
    mutating func number() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            guard count < 12 else { return nil }
            value = value * 10 + Int64(bytes[index] - 0x30)
            index += 1
            count += 1
        }
        return count == 0 ? nil : value
    }

    /// Digits after a decimal mark, as milliseconds (truncated past three digits).
    mutating func fraction() -> Int? {
        var value = 0
        var count = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            if count < 3 { value = value * 10 + Int(bytes[index] - 0x30) }
            index += 1
            count += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 3) { value *= 10 }
        return value
    }

    mutating func sign() -> Int? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }
}

/// Floor division and its non-negative remainder.
func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
    var quotient = value / divisor
    var remainder = value % divisor
    if remainder < 0 {
        quotient -= 1
        remainder += divisor
    }
    return (quotient, remainder)
}

func isLeapYear(_ year: Int) -> Bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: return isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date. Counts whole 400-year cycles
/// (146097 days each) from 0000-03-01, so that leap days fall at the end of a year.
func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
    let shiftedYear = Int64(month <= 2 ? year - 1 : year)
    let (cycle, yearOfCycle) = floorDivision(shiftedYear, 400)
    let monthFromMarch = Int64((month + 9) % 12)
    let dayOfYear = (153 * monthFromMarch + 2) / 5 + Int64(day) - 1
    let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
    return cycle * 146_097 + dayOfCycle - 719_468
}

/// The inverse of `daysSinceEpoch`.
func civilDate(daysSinceEpoch days: Int64) -> (year: Int, month: Int, day: Int) {
    let (cycle, dayOfCycle) = floorDivision(days + 719_468, 146_097)
    let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
    let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
    let monthFromMarch = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
    let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
    let year = yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0)
    return (Int(year), Int(month), Int(day))
}

/// As ISO 8601 text (`iso8601`), the form documents carry it in.
extension TimeInstant: Codable {
    /// Reads an ISO 8601 date or date-time (see `parse`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try TimeInstant.parse(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an ISO 8601 time: \(error)")
        }
    }

    /// Writes `iso8601`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}
