import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// One pass of an export over its frames (`LoopEncodingPass`): which pictures it composes,
/// the pairs it hands the encoders across batches, and MP4 fed through the real ffmpeg.
@Suite("LoopEncodingPass")
struct LoopEncodingPassTests {
    typealias Needs = LoopEncodingPass.Needs

    @Test("a frame's picture is composed for its own work, for the next frame's pair, or for MP4")
    func composed() {
        let own = [Needs(), Needs(), Needs(pair: true), Needs(single: true), Needs()]
        #expect(LoopEncodingPass.composed(own, feedsMP4: false) == [false, true, true, true, false])
        #expect(LoopEncodingPass.composed(own, feedsMP4: true) == [true, true, true, true, true])
        #expect(LoopEncodingPass.composed([Needs(pair: true)], feedsMP4: false) == [true])
    }

    @Test("a pair across two batches gets the last picture of the first batch, composed once")
    func pairAcrossBatches() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pass-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let count = LoopEncodingPass.batch + 2
        let fixture = try LoopExportFixture(root: root, count: count, step: 2)
        let composer = fixture.composer(size: (96, 64))
        let timing = LoopExportClock(LoopExportTimings())
        let second = LoopEncodingPass.batch
        let handed = LockedBox<[Int: (previous: [UInt8]?, current: [UInt8])]>([:])
        var taken: [Int] = []
        try await LoopEncodingPass(frames: fixture.frames, composer: composer, timing: timing).run(
            needs: { i in Needs(pair: i == second || i == 0) },
            work: { i, previous, current, _ in
                handed.withLock { $0[i] = (previous?.rgb, current.rgb) }
                return [.gif([UInt8(i)])]
            },
            take: { i, piece in
                guard case .gif(let bytes) = piece, bytes == [UInt8(i)] else { return }
                taken.append(i)
            })
        #expect(taken.sorted() == [0, second])
        let pictures = try fixture.frames.indices.map { try composer.picture(fixture.frames[$0], time: composer.times[$0]).rgb }
        let seen = handed.withLock { $0 }
        #expect(seen[0]?.previous == nil && seen[0]?.current == pictures[0])
        #expect(seen[second]?.previous == pictures[second - 1] && seen[second]?.current == pictures[second])
        #expect(timing.withLock { $0.pictures } == 3, "frames 0, \(second - 1) and \(second), each once")
    }

    @Test("MP4 is fed every picture in order, each for its duration, and ffmpeg writes the file")
    func feedsFFmpeg() async throws {
        let ffmpeg = try #require(LoopExportTools.ffmpegPath(), "ffmpeg is installed on this machine (scripts/install-deps.sh)")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pass-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: LoopEncodingPass.batch + 1, durationMs: 400)
        let output = root.appendingPathComponent("loop.mp4")
        let encoder = try FFmpegLoopEncoder(
            ffmpeg: ffmpeg, width: 96, height: 64, durations: fixture.frames.map(\.durationMs), output: output, timeLimit: .seconds(600))
        let timing = LoopExportClock(LoopExportTimings())
        let box = SinkBox(encoder)
        try await LoopEncodingPass(frames: fixture.frames, composer: fixture.composer(size: (96, 64)), timing: timing, mp4: box)
            .run(needs: { _ in Needs() }, work: { _, _, _, _ in [] }, take: { _, _ in })
        // A tick of 400 ms: one per frame.
        #expect(encoder.ticks == fixture.frames.count)
        try await LoopEncodingPass.finish(box)
        let bytes = try Data(contentsOf: output)
        #expect(bytes.count > 100 && bytes[4..<8] == Data("ftyp".utf8))
        let counted = timing.withLock { $0 }
        #expect(counted.pictures == fixture.frames.count && counted.mp4 > 0, "\(counted)")
    }
}
