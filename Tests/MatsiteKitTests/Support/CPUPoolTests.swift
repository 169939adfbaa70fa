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
}
