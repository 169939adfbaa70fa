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

extension CPUPool {
    /// Runs `produce` as a pool job, and `consume` on each value it hands over as a pool job
    /// of its own, beside it: clustering a zoom while the zoom below is encoded and written
    /// uses two cores where one did both in turn. Values are consumed one at a time, in the
    /// order handed over, and at most one waits: `handOff` waits while a consumer runs, so
    /// the values (a level and its bytes) never pile up in memory.
    ///
    /// The producer holds a slot, so it never waits for a consumer that has none: a value
    /// still waiting for a slot when the next comes (every slot busy, or a pool of one) is
    /// taken back and consumed by the producer itself. An error of `consume` is thrown by
    /// the producer's next `handOff` (its later values would be wasted) and by `pipeline`.
    func pipeline<Value: Sendable>(
        produce: @escaping @Sendable (_ handOff: (Value) throws -> Void) throws -> Void,
        consume: @escaping @Sendable (Value) throws -> Void
    ) async throws {
        let line = HandOff(pool: self, consume: consume)
        var failure: (any Error)?
        do { try await run { try produce(line.handOff) } } catch { failure = error }
        for task in line.started() { await task.value }
        if let failure { throw failure }
        try line.failure()
    }
}

/// The values between `CPUPool.pipeline`'s producer and its consumer jobs.
private final class HandOff<Value: Sendable>: @unchecked Sendable {
    private let pool: CPUPool
    private let consume: @Sendable (Value) throws -> Void
    private let condition = NSCondition()
    /// The value handed over and not taken yet, with its ticket.
    private var waiting: (ticket: Int, value: Value)?
    private var tickets = 0
    private var consuming = false
    private var error: (any Error)?
    private var tasks: [Task<Void, Never>] = []

    init(pool: CPUPool, consume: @escaping @Sendable (Value) throws -> Void) {
        self.pool = pool
        self.consume = consume
    }

    /// Called by the producer (on its pool thread).
    func handOff(_ value: Value) throws {
        condition.lock()
        if let error {
            condition.unlock()
            throw error
        }
        if let earlier = waiting {
            // No slot came for it: the producer, which holds one, consumes it.
            waiting = nil
            condition.unlock()
            try consume(earlier.value)
            condition.lock()
        }
        // A consumer that runs holds a slot and ends: waiting for it cannot stall the pool.
        while consuming { condition.wait() }
        if let error {
            condition.unlock()
            throw error
        }
        tickets += 1
        let ticket = tickets
        waiting = (ticket, value)
        tasks.append(Task { [self] in _ = try? await pool.run { self.take(ticket) } })
        condition.unlock()
    }

    /// A consumer job: consumes its value unless the producer took it back.
    private func take(_ ticket: Int) {
        condition.lock()
        guard let mine = waiting, mine.ticket == ticket else {
            condition.unlock()
            return
        }
        waiting = nil
        consuming = true
        condition.unlock()
        var thrown: (any Error)?
        do { try consume(mine.value) } catch let caught { thrown = caught }
        condition.lock()
        consuming = false
        if let thrown, error == nil { error = thrown }
        condition.broadcast()
        condition.unlock()
    }

    /// The consumer jobs started (the producer has returned: no more come).
    func started() -> [Task<Void, Never>] {
        condition.lock()
        defer { condition.unlock() }
        return tasks
    }

    /// The first error a consumer job threw.
    func failure() throws {
        condition.lock()
        defer { condition.unlock() }
        if let error { throw error }
    }
}
