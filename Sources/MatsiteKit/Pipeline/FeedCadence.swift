import Foundation
import MatsiteCapabilities

/// How often a live feed publishes a new time, for telling a feed that stopped: the
/// rolling window's `step` (and `delay`), or an index's or a service's usual spacing (the
/// median gap between its times).
struct FeedCadence: Sendable, Equatable {
    /// The spacing of the times.
    var step: Duration
    /// How long after its nominal time a time is published.
    var delay: Duration

    /// The cadence of `frames`, when they follow a live feed; `times` are the planned
    /// frames' times, oldest first (an index's cadence is read from them).
    init?(_ frames: FramesConfig, times: [TimeInstant]) {
        switch frames {
        case .rolling(let window):
            if let step = window.step, step.months == 0, step.milliseconds > 0 {
                self.step = .milliseconds(step.milliseconds)
            } else if let median = Self.medianGap(times) {
                self.step = median
            } else {
                return nil
            }
            delay = .milliseconds(window.delay.months == 0 ? window.delay.milliseconds : 0)
        case .index:
            guard let median = Self.medianGap(times) else { return nil }
            step = median
            delay = .zero
        default:
            return nil
        }
    }

    /// The stall, when the newest time is older than the cadence allows at `now`: one step
    /// may be late (the newest time not published yet), two may not.
    func stalled(newest: TimeInstant?, now: TimeInstant) -> (newest: TimeInstant, age: Duration, step: Duration)? {
        guard let newest else { return nil }
        let ageMs = now.millisecondsSinceEpoch - newest.millisecondsSinceEpoch
        let age = Duration.milliseconds(ageMs)
        return age > delay + step * 2 ? (newest, age, step) : nil
    }

    /// The median gap between consecutive times, when there are two or more.
    static func medianGap(_ times: [TimeInstant]) -> Duration? {
        let gaps = zip(times.dropFirst(), times).map { $0.millisecondsSinceEpoch - $1.millisecondsSinceEpoch }.filter { $0 > 0 }.sorted()
        guard !gaps.isEmpty else { return nil }
        return .milliseconds(gaps[gaps.count / 2])
    }
}
