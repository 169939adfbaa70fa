import Dispatch
import Foundation

/// matsite's one way to run CPU-heavy work (decode, stitch, encode, cut levels, export
/// loops, read and cluster points, draw demo tiles): on dispatch threads, at most one job
/// per core, so Swift's cooperative pool stays free to drive the network and fetching
/// keeps overlapping the work.
///
/// Where task executors exist, a job runs inside the calling task (on a pool thread), so
/// long work such as an export that checks `Task.checkCancellation()` between frames stops
/// when the build is cancelled (its deadline passed).
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
        let result: Result<T, any Swift.Error>
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            result = await withTaskExecutorPreference(CPUPoolExecutor(queue)) { Result { try work() } }
        } else {
            result = await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: Result { try work() }) }
            }
        }
        await slots.release()
        return try result.get()
    }
}

/// Runs a task's jobs on the pool's dispatch queue.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class CPUPoolExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
