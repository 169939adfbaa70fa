import Dispatch
import Foundation

/// Runs CPU-heavy work (decode, stitch, encode, drawing demo tiles) on dispatch threads,
/// at most one job per core, so Swift's cooperative pool stays free to drive the network
/// and fetching keeps overlapping stitching.
final class CPUPool: Sendable {
    /// The pool used by builds: one slot per active core.
    static let shared = CPUPool(width: ProcessInfo.processInfo.activeProcessorCount)

    private let queue = DispatchQueue(label: "matsite.cpu", attributes: .concurrent)
    private let slots: AsyncSemaphore

    /// A pool running at most `width` jobs at once.
    init(width: Int) {
        slots = AsyncSemaphore(limit: max(1, width))
    }

    /// Runs `work` on a pool thread and returns its result.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        await slots.acquire()
        let result: Result<T, any Swift.Error> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { try work() }) }
        }
        await slots.release()
        return try result.get()
    }
}
