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

    func summary(frames: Int) -> String {
        let (fetch, stitch) = totals.withLock { ($0.fetch, $0.stitch) }
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let n = Double(max(1, frames))
        return String(
            format: "waiting for tiles %.2f s per frame; stitching %.3f s per frame (%.2f s in all, on %d cores)",
            seconds(fetch) / n, seconds(stitch) / n, seconds(stitch), ProcessInfo.processInfo.activeProcessorCount)
    }
}
