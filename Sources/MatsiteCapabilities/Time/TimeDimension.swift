/// One piece of an advertised time dimension.
public enum TimeExtent: Sendable, Hashable, CustomStringConvertible {
    /// Discrete instants, sorted, without duplicates.
    case instants([TimeInstant])
    /// `start/end/period`; a nil period means a continuous range (`start/end` or period 0).
    case interval(start: TimeInstant, end: TimeInstant, period: ISODuration?)

    /// The form used in messages.
    public var description: String {
        switch self {
        case let .instants(list):
            if list.count <= 3 { return list.map(\.iso8601).joined(separator: ",") }
            return "\(list[0].iso8601),...,\(list[list.count - 1].iso8601) (\(list.count) times)"
        case let .interval(start, end, period):
            return "\(start.iso8601)/\(end.iso8601)" + (period.map { "/\($0)" } ?? "")
        }
    }
}

/// An OGC time dimension (WMTS `Dimension` Time, WMS `Dimension`/`Extent` time): lists of
/// ISO 8601 instants, `start/end/period` intervals, several of either, with a default and a
/// "current" flag. Selections are computed without expanding long intervals.
public struct TimeDimension: Sendable, Hashable {
    /// The pieces, as advertised.
    public let extents: [TimeExtent]
    /// The raw advertised values (one per `Value` element or text).
    public let values: [String]
    /// The advertised default (`Default` / `default=`), as written; may be `current`.
    public let defaultValue: String?
    /// True when the service says it supports `current` (the newest instant).
    public let current: Bool
    /// How the service writes its times, used by `format(_:)`.
    let style: TimeStyle

    /// Default cap on how many instants a selection may produce.
    public static let defaultLimit = 100_000

    /// Parses advertised values: each may hold a comma-separated list of instants and
    /// intervals (`2026-11-21T10:00:00Z,2026-11-21T10:10:00Z`, `2012-05-08/2026-11-22/P1D`,
    /// several intervals in one value). `present`, `now` or `current` as an interval end means
    /// `now`; alone it sets `current`.
    public static func parse(
        values: [String], default defaultValue: String? = nil, current: Bool = false,
        now: TimeInstant = .now()
    ) throws(TimeDimensionError) -> TimeDimension {
        var instants: [TimeInstant] = []
        var extents: [TimeExtent] = []
        var precision = TimeStyle.Precision.year
        var zulu = false
        var isCurrent = current
        var periodPrecision = TimeStyle.Precision.day

        func note(_ parsed: ParsedTime) {
            precision = max(precision, parsed.style.precision)
            zulu = zulu || parsed.style.zulu
        }
        func isNowWord(_ text: String) -> Bool {
            ["present", "now", "current"].contains(text.lowercased())
        }

        for value in values {
            for rawItem in value.split(separator: ",", omittingEmptySubsequences: true) {
                let item = String(rawItem).trimmingXMLWhitespace()
                if item.isEmpty { continue }
                if isNowWord(item) {
                    isCurrent = true
                    continue
                }
                let parts = item.split(separator: "/", omittingEmptySubsequences: false).map {
                    String($0).trimmingXMLWhitespace()
                }
                switch parts.count {
                case 1:
                    let parsed = try ParsedTime.parse(item)
                    note(parsed)
                    instants.append(parsed.instant)
                case 2, 3:
                    let start = try ParsedTime.parse(parts[0])
                    note(start)
                    let end: TimeInstant
                    if isNowWord(parts[1]) {
                        end = now
                        isCurrent = true
                    } else {
                        let parsedEnd = try ParsedTime.parse(parts[1])
                        note(parsedEnd)
                        end = parsedEnd.instant
                    }
                    guard start.instant <= end else {
                        throw .invalidValue(item, reason: "the interval ends before it starts")
                    }
                    var period: ISODuration?
                    if parts.count == 3, parts[2] != "0" {
                        let parsedPeriod = try ISODuration.parse(parts[2])
                        if !parsedPeriod.isZero { period = parsedPeriod }
                    }
                    if let period {
                        let needed: TimeStyle.Precision
                        switch period.milliseconds {
                        case let ms where ms % 1000 != 0: needed = .millisecond
                        case let ms where ms % 60_000 != 0: needed = .second
                        case let ms where ms % 3_600_000 != 0: needed = .minute
                        case let ms where ms % 86_400_000 != 0: needed = .hour
                        default: needed = .day
                        }
                        periodPrecision = max(periodPrecision, needed)
                    }
                    extents.append(.interval(start: start.instant, end: end, period: period))
                default:
                    throw .invalidValue(item, reason: "an interval is start/end/period")
                }
            }
        }
        if !instants.isEmpty {
            extents.insert(.instants(Array(Set(instants)).sorted()), at: 0)
        }
        // Dates alone cannot name sub-daily steps: write full times then.
        if periodPrecision > .day && precision < .hour {
            precision = max(.second, periodPrecision)
            zulu = true
        } else {
            precision = max(precision, periodPrecision)
        }
        if precision < .day { precision = .day }
        return TimeDimension(
            extents: extents, values: values, defaultValue: defaultValue, current: isCurrent,
            style: TimeStyle(precision: precision, zulu: zulu))
    }

    /// True when nothing is advertised.
    public var isEmpty: Bool { extents.isEmpty }

    /// The earliest advertised instant.
    public var first: TimeInstant? {
        extents.compactMap { Piece($0).first }.min()
    }

    /// The newest advertised instant.
    public var last: TimeInstant? {
        extents.compactMap { Piece($0).last }.max()
    }

    /// How many instants are advertised (counted per extent; overlaps count twice), or nil
    /// when a continuous range makes the count meaningless.
    public var count: Int64? {
        var total: Int64 = 0
        for extent in extents {
            guard let count = Piece(extent).count else { return nil }
            total += count
        }
        return total
    }

    /// Every advertised instant, sorted, without duplicates.
    /// - Throws: `.tooManyInstants` past `limit`, `.continuous` for a range without a period.
    public func instants(limit: Int = TimeDimension.defaultLimit) throws(TimeDimensionError) -> [TimeInstant] {
        guard let total = try countOrThrow(), total <= Int64(limit) else {
            throw .tooManyInstants(count: try countOrThrow() ?? 0, limit: limit)
        }
        var all: [TimeInstant] = []
        for extent in extents {
            all += Piece(extent).all()
        }
        return Array(Set(all)).sorted()
    }

    /// The newest `n` advertised instants, oldest first (fewer when fewer are advertised).
    public func latest(_ n: Int) throws(TimeDimensionError) -> [TimeInstant] {
        guard n > 0 else { throw .invalidRequest("frames.latest must be at least 1 (got \(n))") }
        guard !extents.isEmpty else { throw .empty }
        guard n <= TimeDimension.defaultLimit else {
            throw .tooManyInstants(count: Int64(n), limit: TimeDimension.defaultLimit)
        }
        var candidates: [TimeInstant] = []
        for extent in extents {
            let piece = Piece(extent)
            guard piece.isDiscrete else { throw .continuous(interval: extent.description) }
            candidates += piece.newest(n)
        }
        return Array(Array(Set(candidates)).sorted().suffix(n))
    }

    /// The advertised instants from `start` to `end` (inclusive), every `step` counted from
    /// the first advertised instant in the window.
    /// - Throws: `.stepDoesNotFit` when `step` is not a whole multiple of an advertised
    ///   period in the window, `.nothingInRange` when the window holds no advertised instant.
    public func inRange(
        start: TimeInstant, end: TimeInstant, step: ISODuration,
        limit: Int = TimeDimension.defaultLimit
    ) throws(TimeDimensionError) -> [TimeInstant] {
        guard !step.isZero, step.months >= 0, step.milliseconds >= 0 else {
            throw .invalidRequest("the step of frames.range must be a positive period (got \(step))")
        }
        guard start <= end else {
            throw .invalidRequest("frames.range starts (\(start)) after it ends (\(end))")
        }
        var candidates: [TimeInstant] = []
        for extent in extents {
            let piece = Piece(extent)
            let inWindow = try piece.within(start: start, end: end, step: step, limit: limit)
            candidates += inWindow
            if candidates.count > limit {
                throw .tooManyInstants(count: Int64(candidates.count), limit: limit)
            }
        }
        let sorted = Array(Set(candidates)).sorted()
        guard let origin = sorted.first else {
            throw .nothingInRange(start: start.iso8601, end: end.iso8601, advertised: advertisedSummary)
        }
        // Index the step grid directly: walking it could take 10^8 steps for a window of
        // centuries at PT10M (a mangled or hostile document can advertise one).
        let grid = Series(start: origin, end: sorted[sorted.count - 1], period: step)
        return sorted.filter { instant in
            guard let index = grid.indexAtOrAfter(instant) else { return false }
            return grid.element(index) == instant
        }
    }

    /// Every advertised instant from `start` to `end` (inclusive), oldest first: what a
    /// rolling window (`frames.last`) keeps. A continuous interval has no instants to list.
    public func advertised(
        from start: TimeInstant, through end: TimeInstant, limit: Int = TimeDimension.defaultLimit
    ) throws(TimeDimensionError) -> [TimeInstant] {
        var candidates: [TimeInstant] = []
        for extent in extents {
            let piece = Piece(extent)
            switch extent {
            case .instants(let list):
                candidates += list.filter { $0 >= start && $0 <= end }
            case .interval(_, _, let period?):
                candidates += try piece.within(start: start, end: end, step: period, limit: limit)
            case .interval:
                throw .continuous(interval: extent.description)
            }
            if candidates.count > limit { throw .tooManyInstants(count: Int64(candidates.count), limit: limit) }
        }
        return Array(Set(candidates)).sorted()
    }

    /// True when `instant` is advertised.
    public func contains(_ instant: TimeInstant) -> Bool {
        extents.contains { Piece($0).contains(instant) }
    }

    /// The instants of `times` that are not advertised, in their order.
    public func notAdvertised(_ times: [TimeInstant]) -> [TimeInstant] {
        times.filter { !contains($0) }
    }

    /// Throws `.notAdvertised` naming every time of `times` the service does not advertise.
    public func requireAdvertised(_ times: [TimeInstant]) throws(TimeDimensionError) {
        let missing = notAdvertised(times)
        guard let firstMissing = missing.first else { return }
        let near = nearest(to: firstMissing)
        throw .notAdvertised(missing.map(\.iso8601), nearest: [near.before, near.after].compactMap { $0?.iso8601 })
    }

    /// The newest advertised instant at or before `instant` and the oldest at or after it.
    public func nearest(to instant: TimeInstant) -> (before: TimeInstant?, after: TimeInstant?) {
        var before: TimeInstant?
        var after: TimeInstant?
        for extent in extents {
            let piece = Piece(extent)
            if let candidate = piece.atOrBefore(instant), before.map({ candidate > $0 }) ?? true {
                before = candidate
            }
            if let candidate = piece.atOrAfter(instant), after.map({ candidate < $0 }) ?? true {
                after = candidate
            }
        }
        return (before, after)
    }

    /// Writes `instant` the way the service writes its times (e.g. `2026-11-22` for a daily
    /// layer advertised with dates, `2026-11-21T10:10:00Z` otherwise), for `TIME=` and `{Time}`.
    public func format(_ instant: TimeInstant) -> String {
        instant.format(style)
    }

    /// First, last, count and period, for `matsite check`.
    public var summary: TimeSummary {
        TimeSummary(
            first: first, last: last, count: count, period: commonPeriod,
            defaultValue: defaultValue, current: current)
    }
}

/// What `matsite check` prints about a time dimension.
public struct TimeSummary: Sendable, Hashable, CustomStringConvertible {
    /// The earliest advertised instant.
    public let first: TimeInstant?
    /// The newest advertised instant.
    public let last: TimeInstant?
    /// How many instants (nil for a continuous range).
    public let count: Int64?
    /// The period between instants when there is one (`PT5M`), nil when irregular.
    public let period: String?
    /// The advertised default.
    public let defaultValue: String?
    /// Whether `current` is supported.
    public let current: Bool

    /// The form used in messages.
    public var description: String {
        guard let first, let last else { return "no times" }
        var text = first == last ? "\(first)" : "\(first) to \(last)"
        if let count { text += ", \(count) time\(count == 1 ? "" : "s")" } else { text += ", continuous" }
        if let period { text += " every \(period)" }
        if let defaultValue { text += ", default \(defaultValue)" }
        return text
    }
}

extension TimeDimension {
    private func countOrThrow() throws(TimeDimensionError) -> Int64? {
        for extent in extents where !Piece(extent).isDiscrete {
            throw .continuous(interval: extent.description)
        }
        return count
    }

    private var advertisedSummary: String {
        guard let first, let last else { return "no times" }
        return "\(first) to \(last)"
    }

    private var commonPeriod: String? {
        var periods: Set<String> = []
        for extent in extents {
            switch extent {
            case let .interval(_, _, period):
                guard let period else { return nil }
                periods.insert(period.text)
            case let .instants(list):
                guard list.count > 1 else { continue }
                let gap = list[1].millisecondsSinceEpoch - list[0].millisecondsSinceEpoch
                for index in 1..<list.count
                where list[index].millisecondsSinceEpoch - list[index - 1].millisecondsSinceEpoch != gap {
                    return nil
                }
                periods.insert(ISODuration(milliseconds: gap).text)
            }
        }
        return periods.count == 1 ? periods.first : nil
    }
}

/// Selection math on one extent.
private struct Piece {
    let extent: TimeExtent

    init(_ extent: TimeExtent) {
        self.extent = extent
    }

    var isDiscrete: Bool {
        if case .interval(_, _, nil) = extent { return false }
        return true
    }

    var first: TimeInstant? {
        switch extent {
        case let .instants(list): return list.first
        case let .interval(start, _, _): return start
        }
    }

    var last: TimeInstant? {
        switch extent {
        case let .instants(list): return list.last
        case let .interval(start, end, period):
            guard let period else { return end }
            return Series(start: start, end: end, period: period).element(Series(start: start, end: end, period: period).lastIndex)
        }
    }

    var count: Int64? {
        switch extent {
        case let .instants(list): return Int64(list.count)
        case let .interval(start, end, period):
            guard let period else { return nil }
            return Series(start: start, end: end, period: period).lastIndex + 1
        }
    }

    func all() -> [TimeInstant] {
        switch extent {
        case let .instants(list): return list
        case let .interval(start, end, period):
            guard let period else { return [start, end] }
            let series = Series(start: start, end: end, period: period)
            return (0...series.lastIndex).map(series.element)
        }
    }

    func newest(_ n: Int) -> [TimeInstant] {
        switch extent {
        case let .instants(list): return Array(list.suffix(n))
        case let .interval(start, end, period):
            guard let period else { return [] }
            let series = Series(start: start, end: end, period: period)
            let lastIndex = series.lastIndex
            let firstIndex = max(0, lastIndex - Int64(n) + 1)
            return (firstIndex...lastIndex).map(series.element)
        }
    }

    func contains(_ instant: TimeInstant) -> Bool {
        switch extent {
        case let .instants(list): return binarySearch(list, instant) != nil
        case let .interval(start, end, period):
            guard let period else { return start <= instant && instant <= end }
            return Series(start: start, end: end, period: period).atOrBefore(instant) == instant
        }
    }

    func atOrBefore(_ instant: TimeInstant) -> TimeInstant? {
        switch extent {
        case let .instants(list): return list.last { $0 <= instant }
        case let .interval(start, end, period):
            guard let period else { return instant < start ? nil : min(instant, end) }
            return Series(start: start, end: end, period: period).atOrBefore(instant)
        }
    }

    func atOrAfter(_ instant: TimeInstant) -> TimeInstant? {
        switch extent {
        case let .instants(list): return list.first { $0 >= instant }
        case let .interval(start, end, period):
            guard let period else { return instant > end ? nil : max(instant, start) }
            let series = Series(start: start, end: end, period: period)
            guard let index = series.indexAtOrAfter(instant) else { return nil }
            return series.element(index)
        }
    }

    func within(start: TimeInstant, end: TimeInstant, step: ISODuration, limit: Int) throws(TimeDimensionError) -> [TimeInstant] {
        switch extent {
        case let .instants(list):
            return list.filter { $0 >= start && $0 <= end }
        case let .interval(intervalStart, intervalEnd, period):
            guard start <= intervalEnd, end >= intervalStart else { return [] }
            guard let period else {
                // Continuous: any step fits; the frames start at the window's start.
                let from = max(start, intervalStart)
                var result: [TimeInstant] = []
                var k: Int64 = 0
                var instant = from
                while instant <= min(end, intervalEnd) {
                    result.append(instant)
                    guard result.count <= limit else { throw .tooManyInstants(count: Int64(result.count), limit: limit) }
                    k += 1
                    instant = from.adding(step, times: k)
                }
                return result
            }
            guard step.multiple(of: period) != nil else {
                throw .stepDoesNotFit(step: step.text, period: period.text, interval: extent.description)
            }
            let series = Series(start: intervalStart, end: intervalEnd, period: period)
            guard let firstIndex = series.indexAtOrAfter(start), let lastIndex = series.indexAtOrBefore(end),
                firstIndex <= lastIndex
            else { return [] }
            guard lastIndex - firstIndex < Int64(limit) else {
                throw .tooManyInstants(count: lastIndex - firstIndex + 1, limit: limit)
            }
            return (firstIndex...lastIndex).map(series.element)
        }
    }

    private func binarySearch(_ list: [TimeInstant], _ instant: TimeInstant) -> Int? {
        var low = 0
        var high = list.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if list[middle] == instant { return middle }
            if list[middle] < instant { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}

/// `start + k * period` for k = 0... while <= end, indexed without expanding.
private struct Series {
    let start: TimeInstant
    let end: TimeInstant
    let period: ISODuration

    func element(_ index: Int64) -> TimeInstant {
        start.adding(period, times: index)
    }

    /// Index of the last element (>= 0 since start <= end).
    var lastIndex: Int64 {
        rawIndexAtOrBefore(end) ?? 0
    }

    /// The largest index whose element is <= instant, capped at `lastIndex`.
    func indexAtOrBefore(_ instant: TimeInstant) -> Int64? {
        guard let index = rawIndexAtOrBefore(min(instant, end)) else { return nil }
        return index
    }

    func atOrBefore(_ instant: TimeInstant) -> TimeInstant? {
        indexAtOrBefore(instant).map(element)
    }

    /// The smallest index whose element is >= instant, nil past the end.
    func indexAtOrAfter(_ instant: TimeInstant) -> Int64? {
        if instant <= start { return 0 }
        guard let before = rawIndexAtOrBefore(instant) else { return 0 }
        let index = element(before) == instant ? before : before + 1
        return index <= lastIndex ? index : nil
    }

    private func rawIndexAtOrBefore(_ instant: TimeInstant) -> Int64? {
        guard instant >= start else { return nil }
        let span = instant.millisecondsSinceEpoch - start.millisecondsSinceEpoch
        var index: Int64
        if period.isFixed {
            return span / period.milliseconds
        } else if period.milliseconds == 0 {
            let a = start.components
            let b = instant.components
            let months = Int64((b.year - a.year) * 12 + (b.month - a.month))
            index = max(0, months / Int64(period.months))
        } else {
            index = Int64(Double(span) / period.approximateMilliseconds)
        }
        while index > 0 && element(index) > instant { index -= 1 }
        while element(index + 1) <= instant { index += 1 }
        return index
    }
}
