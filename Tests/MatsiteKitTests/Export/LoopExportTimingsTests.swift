import Foundation
import Testing

@testable import MatsiteKit

/// An export's costs, typed (`LoopExportTimings`): each format's seconds, the pictures and
/// composing time, added to from jobs running side by side on the CPU pool.
@Suite("LoopExportTimings")
struct LoopExportTimingsTests {
    @Test("each format's seconds are its own")
    func formats() {
        var timings = LoopExportTimings()
        timings[format: .gif] += 1.5
        timings[format: .webp] += 0.25
        #expect(timings.gif == 1.5 && timings.webp == 0.25 && timings.mp4 == 0)
        #expect(ExportConfig.Format.allCases.map { timings[format: $0] } == [0, 1.5, 0.25])
    }

    @Test("jobs timed side by side on the CPU pool add up in their format")
    func timed() async throws {
        let clock = LoopExportClock(LoopExportTimings())
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<8 { group.addTask { try await clock.timed(i % 2 == 0 ? .gif : .webp) { (0..<20_000).reduce(i, &+) } } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        let timings = clock.withLock { $0 }
        #expect(timings.gif > 0 && timings.webp > 0 && timings.mp4 == 0 && timings.compose == 0 && timings.pictures == 0, "\(timings)")
    }

    @Test("a failing job still counts its time and passes its error on")
    func failing() async {
        struct Refused: Error {}
        let clock = LoopExportClock(LoopExportTimings())
        await #expect(throws: Refused.self) { try await clock.timed(.mp4) { () throws -> Int in throw Refused() } }
        #expect(clock.withLock { $0.mp4 } > 0)
    }
}
