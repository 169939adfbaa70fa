import Foundation

/// The one way matsite steps through time: OGC dimensions, `frames.range` and rolling
/// windows all count with `TimeInstant.adding(_:times:)` (calendar months first, then the
/// fixed part), never with Foundation's `Calendar`.
extension TimeInstant {
    /// The instant of a Foundation date, rounded to the millisecond.
    public init(_ date: Date) {
        self.init(millisecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The same instant as a Foundation date.
    public var date: Date {
        Date(timeIntervalSince1970: Double(millisecondsSinceEpoch) / 1000)
    }

    /// `start`, `start + step`, `start + 2 step`... up to and including `end`, at most
    /// `limit` instants. Each is counted from `start` (not from the one before), so a
    /// month step from Jan 31 gives Feb 28, Mar 31, not Mar 28.
    public static func series(
        from start: TimeInstant, through end: TimeInstant, step: ISODuration,
        limit: Int
    ) -> [TimeInstant] {
        guard !step.isZero, step.months >= 0, step.milliseconds >= 0, start <= end, limit > 0 else {
            return start <= end && limit > 0 ? [start] : []
        }
        var out: [TimeInstant] = []
        if step.isFixed {
            let count = min(Int64(limit), (end.millisecondsSinceEpoch - start.millisecondsSinceEpoch) / step.milliseconds + 1)
            out.reserveCapacity(Int(count))
            for k in 0..<count { out.append(start.adding(step, times: k)) }
            return out
        }
        var k: Int64 = 0
        while out.count < limit {
            let next = start.adding(step, times: k)
            guard next <= end else { break }
            out.append(next)
            k += 1
        }
        return out
    }

    /// The latest instant at or before this one that is a whole multiple of `step` after
    /// the Unix epoch (UTC). `step` must be fixed (no months or years) and positive.
    public func floored(toMultipleOf step: ISODuration) -> TimeInstant {
        guard step.isFixed, step.milliseconds > 0 else { return self }
        let (quotient, _) = floorDivision(millisecondsSinceEpoch, step.milliseconds)
        return TimeInstant(millisecondsSinceEpoch: quotient * step.milliseconds)
    }
}
