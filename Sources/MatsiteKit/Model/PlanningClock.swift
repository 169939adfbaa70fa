import MatsiteCapabilities

/// The time a run takes as now, and where it came from, for messages that show it.
struct PlanningClock: Sendable, CustomStringConvertible {
    /// Now, for rolling windows and index times.
    var now: TimeInstant
    /// True when `--at` gave it.
    var fromAt: Bool

    var description: String {
        fromAt ? "--at \(TimeFormat.iso(now))" : "the clock said \(TimeFormat.iso(now))"
    }
}
