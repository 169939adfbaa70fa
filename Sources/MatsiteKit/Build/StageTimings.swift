import Foundation

/// Summed durations of an animation's stages (thread-safe), for `--verbose`.
final class StageTimings: @unchecked Sendable {
    private let lock = NSLock()
    private var fetch = Duration.zero
    private var stitch = Duration.zero

    func add(fetch duration: Duration) {
        lock.lock(); defer { lock.unlock() }
        fetch += duration
    }

    func add(stitch duration: Duration) {
        lock.lock(); defer { lock.unlock() }
        stitch += duration
    }

    func summary(frames: Int) -> String {
        lock.lock(); defer { lock.unlock() }
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let n = Double(max(1, frames))
        return String(format: "waiting for tiles %.2f s per frame; stitching %.3f s per frame (%.2f s in all, on %d cores)",
                      seconds(fetch) / n, seconds(stitch) / n, seconds(stitch), ProcessInfo.processInfo.activeProcessorCount)
    }
}
