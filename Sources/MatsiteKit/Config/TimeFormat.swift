import Foundation
import MatsiteCapabilities

/// How `{time}` is written into URLs: a strftime-style pattern, always in UTC.
///
/// Supported: `%Y %y %m %d %H %M %S %j %s %%` and `%Q` (milliseconds). Anything else is
/// refused when the config is read, not discovered mid-build.
public struct TimeFormat: Sendable, Equatable {
    /// The pattern as written.
    public let pattern: String

    /// The manifest's own form, `2026-11-21T10:00:00Z`: the default of `time_format`.
    public static let isoPattern = TimeFormat(checked: "%Y-%m-%dT%H:%M:%SZ")

    private init(checked pattern: String) {
        self.pattern = pattern
    }

    /// Checks and keeps a pattern: every `%` code supported, and at least one that writes
    /// the time (without one, every frame would ask for the same URL).
    public init(_ pattern: String) throws(TemplateError) {
        var chars = pattern.makeIterator()
        var writesTime = false
        while let c = chars.next() {
            guard c == "%" else { continue }
            guard let code = chars.next(), "YymdHMSjsQ%".contains(code) else {
                throw TemplateError(template: pattern, message: "unsupported time format code; use %Y %y %m %d %H %M %S %j %s %Q %%")
            }
            writesTime = writesTime || code != "%"
        }
        guard writesTime else {
            throw TemplateError(
                template: pattern,
                message:
                    "every frame would get the same {time}: write it with % codes (strftime style, e.g. \"%Y%m%d%H%M\" writes 202611251205; %s Unix seconds); there is no % code"
            )
        }
        self.pattern = pattern
    }

    /// Writes an instant.
    public func format(_ date: Date) -> String {
        format(TimeInstant(date))
    }

    /// Writes an instant (UTC calendar fields from `TimeInstant`, the one time model).
    public func format(_ instant: TimeInstant) -> String {
        let c = instant.components
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        var out = ""
        var chars = pattern.makeIterator()
        while let ch = chars.next() {
            guard ch == "%", let code = chars.next() else { out.append(ch); continue }
            switch code {
            case "Y": out += pad(c.year, 4)
            case "y": out += pad(c.year % 100, 2)
            case "m": out += pad(c.month, 2)
            case "d": out += pad(c.day, 2)
            case "H": out += pad(c.hour, 2)
            case "M": out += pad(c.minute, 2)
            case "S": out += pad(c.second, 2)
            case "j":
                let newYear = TimeInstant(year: c.year, month: 1, day: 1)?.millisecondsSinceEpoch ?? 0
                let midnight = instant.millisecondsSinceEpoch - Int64(((c.hour * 60 + c.minute) * 60 + c.second) * 1000 + c.millisecond)
                out += pad(Int((midnight - newYear) / 86_400_000) + 1, 3)
            case "s":
                let ms = instant.millisecondsSinceEpoch
                out += String(ms >= 0 ? ms / 1000 : (ms - 999) / 1000)
            case "Q": out += pad(c.millisecond, 3)
            default: out.append(code)
            }
        }
        return out
    }

    /// ISO 8601 in UTC, seconds precision (`2026-11-21T10:00:00Z`): the manifest's form.
    public static func iso(_ instant: TimeInstant) -> String {
        isoPattern.format(instant)
    }

    /// ISO 8601 in UTC, seconds precision, of a Foundation date (a file's time).
    public static func iso(_ date: Date) -> String {
        iso(TimeInstant(date))
    }

    /// Parses an ISO 8601 instant a user wrote (config, a feed's index or point data), with
    /// the one ISO 8601 parser, `TimeInstant.parse`, around the text's spaces: a date and
    /// time with `Z`, an offset or no zone (UTC), `T` or a space between, with or without
    /// seconds and a fraction; or a date (`2026-11-21`, `2026-11`, `2026`). Nil otherwise.
    public static func instant(_ text: String) -> TimeInstant? {
        try? TimeInstant.parse(text.trimmingCharacters(in: .whitespaces))
    }

    /// `instant(text)` as a Foundation date.
    public static func parseISO(_ text: String) -> Date? {
        instant(text)?.date
    }
}
