import Foundation

// The HTTP semantics the preview server needs (RFC 9110 dates, validators and ranges),
// small enough to own rather than pull in a framework.
extension StaticSiteServer {
    /// What a `Range` header asks of a file of a given size.
    public enum RangeRequest: Equatable, Sendable {
        /// No usable range: serve the whole file (also for multiple ranges and syntax the
        /// server does not support, which RFC 9110 allows it to ignore).
        case whole
        /// Serve these bytes with 206.
        case bytes(ClosedRange<Int>)
        /// The range lies outside the file: 416.
        case unsatisfiable
    }

    /// Interprets a `Range` header value against a file of `size` bytes.
    public static func parseRange(_ header: String, size: Int) -> RangeRequest {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes=") else { return .whole }
        let specs = value.dropFirst("bytes=".count).split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1 else { return .whole }
        let spec = specs[0].trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        let isDigit: (Character) -> Bool = { $0.isASCII && $0.isNumber }
        guard first.allSatisfy(isDigit), last.allSatisfy(isDigit) else { return .whole }

        if first.isEmpty {
            // A suffix range: the last N bytes.
            guard let count = Int(last) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .bytes(max(0, size - count)...(size - 1))
        }
        guard let start = Int(first) else { return .whole }
        let requestedEnd = last.isEmpty ? Int.max : Int(last) ?? Int.max
        guard requestedEnd >= start else { return .whole }
        guard start < size else { return .unsatisfiable }
        return .bytes(start...min(requestedEnd, size - 1))
    }

    /// Whether an `If-None-Match` value matches `etag` (weak comparison, as RFC 9110
    /// requires for this header).
    public static func ifNoneMatch(_ header: String, matches etag: String) -> Bool {
        let wanted = opaqueTag(etag)
        for candidate in header.split(separator: ",") {
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" || opaqueTag(tag) == wanted {
                return true
            }
        }
        return false
    }

    /// Formats a time as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    public static func httpDate(_ secondsSince1970: Int) -> String {
        var time = time_t(secondsSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        let day = weekdays[Int(parts.tm_wday)]
        let month = months[Int(parts.tm_mon)]
        return "\(day), \(pad(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)) GMT"
    }

    /// Parses an IMF-fixdate into seconds since 1970. The two obsolete formats are not
    /// read: a client sending them just gets a full 200 instead of a 304.
    public static func parseHTTPDate(_ text: String) -> Int? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT",
            let day = Int(fields[1]), let monthIndex = months.firstIndex(of: String(fields[2])),
            let year = Int(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Int(timegm(&parts))
    }
}

private extension StaticSiteServer {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func pad(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    static func opaqueTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}
