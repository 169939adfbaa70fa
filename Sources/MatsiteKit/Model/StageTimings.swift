import Foundation

/// Summed durations of an animation's stages (thread-safe), for `--verbose`.
struct StageTimings: Sendable {
    private let totals = LockedBox((fetch: Duration.zero, stitch: Duration.zero))

    func add(fetch duration: Duration) {
        totals.withLock { $0.fetch += duration }
    }

    func add(stitch duration: Duration) {
        totals.withLock { $0.stitch += duration }
    }

    /// The totals, as the build reports them.
    func times(animation: String, frames: Int) -> FrameTimes {
        let (fetch, stitch) = totals.withLock { ($0.fetch, $0.stitch) }
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        return FrameTimes(
            animation: animation, frames: frames, fetchSeconds: seconds(fetch), stitchSeconds: seconds(stitch),
            cores: ProcessInfo.processInfo.activeProcessorCount)
    }
}
