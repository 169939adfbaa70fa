import Foundation
import Testing

@testable import MatsiteKit

/// The one way CPU work runs: off the cooperative pool, bounded, and still part of its task.
@Suite("CPUPool")
struct CPUPoolTests {
    @Test("a job runs off the calling thread and hands back its result or its error")
    func resultAndError() async throws {
        let pool = CPUPool(width: 2)
        #expect(try await pool.run { 6 * 7 } == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await pool.run { throw Refused() } }
    }

    @Test("a long job sees its task cancelled (a build past its deadline stops its export)")
    func seesCancellation() async throws {
        let pool = CPUPool(width: 1)
        let started = LockedBox(false)
        let go = DispatchSemaphore(value: 0)
        let job = Task {
            try await pool.run { () -> Bool in
                started.withLock { $0 = true }
                // Held until the test has cancelled, then asked once: a job blind to
                // cancellation answers false and fails the test, with no clock to outlive.
                go.wait()
                return Task.isCancelled
            }
        }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        job.cancel()
        go.signal()
        #expect(try await job.value)
    }

    struct Stop: Error, Equatable {
        let at: Int
    }

    @Test("a pipeline consumes every value once, one at a time, in order, on a pool of one (the producer takes back what waits) and of two")
    func pipelineOrder() async throws {
        for width in [1, 2] {
            let pool = CPUPool(width: width)
            let seen = LockedBox<[Int]>([])
            let running = LockedBox(0)
            let overlapped = LockedBox(false)
            try await pool.pipeline(
                produce: { handOff in for i in 0..<50 { try handOff(i) } },
                consume: { i in
                    let overlap = running.withLock { count -> Bool in
                        count += 1
                        return count > 1
                    }
                    if overlap { overlapped.withLock { $0 = true } }
                    seen.withLock { $0.append(i) }
                    running.withLock { $0 -= 1 }
                })
            #expect(seen.withLock { $0 } == Array(0..<50), "width \(width)")
            #expect(!overlapped.withLock { $0 }, "width \(width)")
        }
    }

    @Test("on a pool of two, a value is consumed by a job of its own while the producer goes on")
    func pipelineOverlaps() async throws {
        let pool = CPUPool(width: 2)
        let consuming = DispatchSemaphore(value: 0)
        let produced = LockedBox<[Int]>([])
        try await pool.pipeline(
            produce: { handOff in
                try handOff(0)
                // Held until the consumer job has value 0: a pipeline that consumed it
                // here, in turn, would never get past this wait.
                consuming.wait()
                produced.withLock { $0.append(1) }
            },
            consume: { i in if i == 0 { consuming.signal() } })
        #expect(produced.withLock { $0 } == [1])
    }

    @Test("a consumer's error stops the producer at a later hand-over, and the pipeline throws it")
    func pipelineFailure() async throws {
        for width in [1, 2] {
            let pool = CPUPool(width: width)
            let ran = LockedBox<[Int]>([])
            let refused = LockedBox<Int?>(nil)
            await #expect(throws: Stop(at: 3)) {
                try await pool.pipeline(
                    produce: { handOff in
                        for i in 0..<20 {
                            do { try handOff(i) } catch {
                                refused.withLock { $0 = i }
                                throw error
                            }
                        }
                    },
                    consume: { i in
                        ran.withLock { $0.append(i) }
                        if i == 3 { throw Stop(at: i) }
                    })
            }
            // Value 4 is refused (its hand-over waits for 3, or consumes it itself): nothing
            // after 3 is consumed.
            #expect(ran.withLock { $0 } == [0, 1, 2, 3], "width \(width)")
            #expect(refused.withLock { $0 } == 4, "width \(width)")
        }
    }
}
