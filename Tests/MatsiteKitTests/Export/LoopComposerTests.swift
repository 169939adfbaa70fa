import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Exported pictures composed from real PNG frames (`LoopComposer`): the background, the
/// frame at its opacity, a layered frame's pictures bottom to top, the labels; composed side
/// by side, each counted in the export's timings.
@Suite("LoopComposer")
struct LoopComposerTests {
    static let background = RGB(0x33, 0x66, 0x99)

    @Test("a picture is the frame over the background at its opacity, as the player blends it, with the labels on top")
    func picture() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("composer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: 1, width: 97, height: 65)
        var frame = fixture.frames[0]
        frame.pictures[0].opacity = 0.8
        let canvas = try fixture.composer(size: (96, 64)).picture(frame, time: "T")
        // The square (8...23, 24...39) at a = (255 x 204 + 127) / 255 = 204.
        let c = LoopExportFixture.color(0), b = Self.background
        func blend(_ f: UInt8, _ u: UInt8) -> UInt8 { UInt8((Int(f) * 204 + Int(u) * 51 + 127) / 255) }
        #expect(canvas.pixel(x: 16, y: 32) == RGB(blend(c.r, b.r), blend(c.g, b.g), blend(c.b, b.b)))
        #expect(canvas.pixel(x: 60, y: 32) == b, "transparent: the background")
        #expect(canvas.pixel(x: 0, y: 0) != b, "the time's band")
    }

    @Test("a layered frame draws its pictures bottom to top")
    func layers() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("composer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: 2, step: 4)
        var frame = fixture.frames[0]
        frame.pictures = fixture.frames[0].pictures + fixture.frames[1].pictures
        let canvas = try fixture.composer(size: (96, 64)).picture(frame, time: "T")
        // Squares at x 8...23 (below) and 12...27 (above).
        #expect(canvas.pixel(x: 9, y: 30) == LoopExportFixture.color(0))
        #expect(canvas.pixel(x: 14, y: 30) == LoopExportFixture.color(1))
    }

    @Test("compose makes the pictures asked for, side by side, and counts them")
    func compose() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("composer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: 4)
        let composer = fixture.composer(size: (96, 64))
        let timing = LoopExportClock(LoopExportTimings())
        let pictures = try await composer.compose(fixture.frames, indices: [1, 3], timing: timing)
        #expect(Set(pictures.keys) == [1, 3])
        #expect(pictures[3]?.rgb == (try composer.picture(fixture.frames[3], time: composer.times[3])).rgb)
        let counted = timing.withLock { $0 }
        #expect(counted.pictures == 2 && counted.compose > 0 && counted.gif == 0, "\(counted)")
    }

    @Test("a missing frame file fails the picture, naming the file")
    func missingFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("composer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: 1)
        try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("frames/0.png"))
        #expect {
            try fixture.composer(size: (96, 64)).picture(fixture.frames[0], time: "T")
        } throws: { "\($0)".contains("0.png") }
    }
}
