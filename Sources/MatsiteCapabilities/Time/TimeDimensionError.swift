/// Why a time value could not be parsed or a selection of times could not be made.
public enum TimeDimensionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A date or date-time that is not ISO 8601.
    case invalidTime(String, reason: String)
    /// A period that is not an ISO 8601 duration.
    case invalidDuration(String, reason: String)
    /// A value of the dimension that is neither a time, a list nor an interval.
    case invalidValue(String, reason: String)
    /// Expanding would give more instants than the limit.
    case tooManyInstants(count: Int64, limit: Int)
    /// An interval without a period (`start/end`) has no discrete instants to pick from.
    case continuous(interval: String)
    /// The requested step is not a whole multiple of the advertised period.
    case stepDoesNotFit(step: String, period: String, interval: String)
    /// A window in which the service advertises no instant.
    case nothingInRange(start: String, end: String, advertised: String)
    /// Times that the service does not advertise, with the nearest advertised ones.
    case notAdvertised([String], nearest: [String])
    /// A request that makes no sense on its own (a zero count, an inverted window...).
    case invalidRequest(String)
    /// The dimension has no values at all.
    case empty

    /// The form used in messages.
    public var description: String {
        switch self {
        case let .invalidTime(text, reason):
            return "\"\(text)\" is not an ISO 8601 time: \(reason)"
        case let .invalidDuration(text, reason):
            return "\"\(text)\" is not an ISO 8601 period (like PT10M, P1D): \(reason)"
        case let .invalidValue(text, reason):
            return "time value \"\(text)\": \(reason)"
        case let .tooManyInstants(count, limit):
            return "the time dimension has \(count) instants, more than the limit of \(limit); use frames.latest or frames.range"
        case let .continuous(interval):
            return "the time interval \(interval) has no period, so it has no list of times; use frames.range with a step"
        case let .stepDoesNotFit(step, period, interval):
            return "the step \(step) does not fit the advertised period \(period) of \(interval); use a whole multiple of \(period)"
        case let .nothingInRange(start, end, advertised):
            return "no advertised time between \(start) and \(end) (the service advertises \(advertised))"
        case let .notAdvertised(times, nearest):
            let hint = nearest.isEmpty ? "" : " (nearest advertised: \(nearest.joined(separator: ", ")))"
            return "not advertised by the service: \(times.joined(separator: ", "))\(hint)"
        case let .invalidRequest(why):
            return why
        case .empty:
            return "the time dimension has no values"
        }
    }
}
