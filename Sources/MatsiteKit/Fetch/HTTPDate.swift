import Foundation

/// HTTP dates (RFC 9110 section 5.6.7), parsed by hand: `Date`, `Expires`,
/// `Last-Modified` and `Retry-After` are read for cached responses on every build, and a
/// `DateFormatter` (ICU underneath) costs tens of microseconds to set up and parse; this
/// costs well under one.
///
/// Accepted, as a recipient must: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, the
/// obsolete RFC 850 form `Sunday, 06-Nov-94 08:49:37 GMT` and asctime
/// `Sun Nov  6 08:49:37 1994`. Anything else is nil (to the cache, an invalid `Expires`
/// means "already expired").
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let weekday = fields.first else { return nil }
        if weekday.hasSuffix(",") {
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            if fields.count == 6 {
                guard zones.contains(fields[5]), fields[3].count == 4, let day = Int(fields[1]), let month = monthNumber(fields[2]),
                    let year = Int(fields[3])
                else { return nil }
                return make(year: year, month: month, day: day, clock: fields[4])
            }
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            guard fields.count == 4, zones.contains(fields[3]) else { return nil }
            let parts = fields[1].split(separator: "-").map(String.init)
            guard parts.count == 3, parts[2].count == 2, let day = Int(parts[0]), let month = monthNumber(parts[1]),
                let twoDigits = Int(parts[2])
            else { return nil }
            return make(year: fullYear(twoDigits), month: month, day: day, clock: fields[2])
        }
        // asctime: Sun Nov  6 08:49:37 1994
        guard fields.count == 5, fields[4].count == 4, let month = monthNumber(fields[1]), let day = Int(fields[2]),
            let year = Int(fields[4])
        else { return nil }
        return make(year: year, month: month, day: day, clock: fields[3])
    }

    /// HTTP dates are in GMT; some servers write UTC, which is the same clock.
    private static let zones: Set<String> = ["GMT", "UTC"]

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func monthNumber(_ name: String) -> Int? {
        months.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }

    /// RFC 9110: a two-digit year more than 50 years in the future is in the past century.
    private static func fullYear(_ twoDigits: Int) -> Int {
        let now = Int(Date().timeIntervalSince1970 / 86400 / 365.2425) + 1970
        var year = now / 100 * 100 + twoDigits
        if year > now + 50 { year -= 100 }
        return year
    }

    private static func make(year: Int, month: Int, day: Int, clock: String) -> Date? {
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]),
            let second = Int(parts[2]), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...31).contains(day), day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86400 + hour * 3600 + minute * 60 + second))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (the civil-from-days
    /// arithmetic, in 400-year eras that start on 1 March).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
