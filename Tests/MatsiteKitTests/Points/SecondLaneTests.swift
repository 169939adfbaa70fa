import Foundation
import Testing

@testable import MatsiteKit

/// The lane that writes a layer's levels while the next is clustered.
@Suite("SecondLane")
struct SecondLaneTests {
    struct Stop: Error, Equatable {
        let at: Int
    }

    @Test("jobs run one at a time, in the order handed over, on another thread")
    func order() throws {
        let lane = SecondLane()
        let seen = LockedBox<[Int]>([])
        let running = LockedBox(0)
        let caller = pthread_self()
        for i in 0..<50 {
            try lane.submit {
                let overlap = running.withLock { count -> Bool in
                    count += 1
                    return count > 1
                }
                #expect(!overlap)
                #expect(pthread_equal(pthread_self(), caller) == 0)
                seen.withLock { $0.append(i) }
                running.withLock { $0 -= 1 }
            }
        }
        try lane.finish()
        #expect(seen.withLock { $0 } == Array(0..<50))
    }

    @Test("a job's error stops the caller at its next hand-over, and finish throws it")
    func failure() throws {
        let lane = SecondLane()
        let ran = LockedBox<[Int]>([])
        var refused: Int?
        for i in 0..<20 {
            do {
                try lane.submit {
                    ran.withLock { $0.append(i) }
                    if i == 3 { throw Stop(at: i) }
                }
            } catch {
                #expect(error as? Stop == Stop(at: 3))
                refused = i
                break
            }
        }
        // The job after the failing one is the first refused (submit waits for the lane).
        #expect(refused == 4)
        #expect(throws: Stop(at: 3)) { try lane.finish() }
        #expect(ran.withLock { $0 } == [0, 1, 2, 3])
    }
}
