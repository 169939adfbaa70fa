import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// The GIF and WebP frames of an export (`LoopEncoding`): encoded by real giflib and
/// libwebp, kept in the cache folder, taken from it the next time, and the WebP effort
/// chosen once for pictures composed the same way.
@Suite("LoopEncoding")
struct LoopEncodingTests {
    static func encoding(_ fixture: LoopExportFixture, cache: URL?) throws -> LoopEncoding {
        let animation = try LoopExportFixture.animation()
        let names = LoopExportNames(
            animation: animation, settings: ExportConfig(formats: [.gif, .webp]), size: (96, 64), labels: LoopLabels(legend: nil, credit: "x"),
            background: .color(RGB(0x33, 0x66, 0x99)), times: fixture.composer(size: (96, 64)).times)
        return LoopEncoding(
            frames: fixture.frames, names: names, composer: fixture.composer(size: (96, 64), credit: "x"),
            cache: LoopFrameCache(cache: cache, animation: "radar"))
    }

    /// Both passes, as the exporter runs them for `[gif, webp]`.
    static func encode(_ encoding: LoopEncoding) async throws -> LoopEncoding.Made {
        let webp = try await encoding.webpSettings(quality: 100)
        var made = try await encoding.firstPass(webp: webp, colours: true, mp4: nil)
        try await encoding.gifPass(&made)
        encoding.cache.keepOnly(made.kept)
        return made
    }

    @Test("the passes encode every GIF and WebP frame; the same loop again takes them all from the cache and composes nothing")
    func cached() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("encoding-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: 5)
        let cache = root.appendingPathComponent("cache")
        let cold = try Self.encoding(fixture, cache: cache)
        let first = try await Self.encode(cold)
        #expect(first.gif.allSatisfy { $0 != nil } && first.webp.allSatisfy { $0 != nil })
        #expect(first.reused[.gif] == 0 && first.reused[.webp] == 0)
        // 5 GIF frames, 5 colour counts, 5 WebP frames and the effort.
        #expect(first.kept.count == 16)
        let warm = try Self.encoding(fixture, cache: cache)
        let again = try await Self.encode(warm)
        #expect(again.reused[.gif] == 5 && again.reused[.webp] == 5)
        #expect(warm.timing.withLock { $0.pictures } == 0)
        #expect(again.gif == first.gif && again.palette == first.palette)
        #expect(again.webp.map { $0?.bytes } == first.webp.map { $0?.bytes })
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent(".loop-frames/radar").path).count == 16)
    }

    @Test("without a cache folder every frame is encoded, each picture composed for both passes")
    func uncached() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("encoding-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: 3)
        let encoding = try Self.encoding(fixture, cache: nil)
        let made = try await Self.encode(encoding)
        #expect(made.gif.allSatisfy { $0 != nil } && made.webp.allSatisfy { $0 != nil })
        // The first picture for the effort, three in each pass.
        #expect(encoding.timing.withLock { $0.pictures } == 7)
        let timings = encoding.timing.withLock { $0 }
        #expect(timings.gif > 0 && timings.webp > 0 && timings.mp4 == 0, "\(timings)")
    }

    @Test("lossy WebP takes effort 4; lossless tries 3 and 7 on the first frame once, then remembers the choice")
    func webpEffort() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("encoding-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: 2)
        let encoding = try Self.encoding(fixture, cache: root.appendingPathComponent("cache"))
        let lossy = try await encoding.webpSettings(quality: 80)
        #expect(lossy.0 == .init(lossless: false, quality: 80, effort: 4) && lossy.1 == nil)
        let (chosen, first) = try await encoding.webpSettings(quality: 100)
        #expect(chosen.lossless && [3, 7].contains(chosen.effort) && first != nil)
        let (remembered, none) = try await Self.encoding(fixture, cache: root.appendingPathComponent("cache")).webpSettings(quality: 100)
        #expect(remembered == chosen && none == nil)
    }
}
