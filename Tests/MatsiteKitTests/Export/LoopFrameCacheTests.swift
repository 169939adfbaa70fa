import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Exported loops' frames kept in the cache folder (`LoopFrameCache`): a loop made again, or
/// a window moved by one frame, composes and encodes only what the cache lacks, and the
/// files are byte for byte what a build without the cache makes.
@Suite("LoopFrameCache")
struct LoopFrameCacheTests {
    static let times = ["2026-11-21T10:00:00Z", "2026-11-21T10:10:00Z", "2026-11-21T10:20:00Z", "2026-11-21T10:30:00Z", "2026-11-21T10:40:00Z"]

    /// Palette tiles of a feature moving with the frame's time, one folder per time (the
    /// demo source draws by frame number, so a moved window would not keep its pictures).
    static func writeTiles(_ site: TestSite) throws {
        for (frame, time) in times.enumerated() {
            for x in 7...8 {
                for y in 5...6 {
                    var pixels = [UInt8](repeating: 0, count: 256 * 256)
                    for row in 0..<256 {
                        for column in 0..<256 {
                            let gx = x * 256 + column + 20 * frame, gy = y * 256 + row
                            pixels[row * 256 + column] = UInt8((gx / 16 + gy / 16) % FormulaTiles.palette.count)
                        }
                    }
                    let folder = site.root.appendingPathComponent("tiles/\(time.prefix(16).suffix(5).replacingOccurrences(of: ":", with: ""))/4/\(x)")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    let png = try PNGWriter.encode(width: 256, height: 256, format: .indexed(FormulaTiles.palette), pixels: pixels)
                    try Data(png).write(to: folder.appendingPathComponent("\(y).png"))
                }
            }
        }
    }

    /// Four frames from `first`, exported as GIF and WebP over a plain colour.
    static func yaml(_ site: TestSite, first: Int, output: URL) -> String {
        site.yaml(
            """
              - id: radar
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                frame_duration_ms: 200
                attribution: "Radar: test"
                source: { path: "\(site.root.path)/tiles/{time}/{z}/{x}/{y}.png" }
                time_format: "%H%M"
                frames: { times: [\(times[first..<(first + 4)].joined(separator: ", "))] }
                export: [gif, webp]
                export_background: "#336699"
            """
        ).replacingOccurrences(of: "output: \(site.output.path)", with: "output: \(output.path)")
    }

    /// Builds with the cache folder on (`TestSite.build` turns it off); returns the export's report.
    static func build(_ site: TestSite, first: Int, output: URL, cache: Bool) async throws -> ExportReport {
        var options = BuildOptions()
        options.useCache = cache
        options.lockWait = 10
        let reporter = RecordingReporter()
        _ = try await Builder(config: site.config(yaml(site, first: first, output: output)), options: options, reporter: reporter).run()
        return try #require(reporter.exports.first)
    }

    /// The frames `format`'s file took from the cache.
    static func cached(_ report: ExportReport, _ format: ExportConfig.Format) -> Int? {
        report.files.first { $0.format == format }?.cachedFrames
    }

    /// The exported files' bytes by format.
    static func exports(_ output: URL) throws -> [String: Data] {
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("radar/manifest.json"))) as? [String: Any])
        let exports = try #require(manifest["exports"] as? [String: String])
        return try exports.mapValues { try Data(contentsOf: output.appendingPathComponent("radar").appendingPathComponent($0)) }
    }

    @Test("the same loop into another folder takes every frame from the cache: nothing composed, the same bytes")
    func sameLoop() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try Self.writeTiles(site)
        let first = site.root.appendingPathComponent("one"), second = site.root.appendingPathComponent("two")
        let cold = try await Self.build(site, first: 0, output: first, cache: true)
        #expect(cold.pictures == 9, "\(cold)")
        let warm = try await Self.build(site, first: 0, output: second, cache: true)
        #expect(Self.cached(warm, .gif) == 4 && Self.cached(warm, .webp) == 4, "\(warm)")
        #expect(warm.pictures == 0, "\(warm)")
        #expect(try Self.exports(first) == Self.exports(second))
    }

    @Test("a window moved by one frame encodes its new frames only and makes the files a build without the cache makes")
    func movedWindow() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try Self.writeTiles(site)
        let output = site.root.appendingPathComponent("site"), plain = site.root.appendingPathComponent("plain")
        _ = try await Self.build(site, first: 0, output: output, cache: true)
        let moved = try await Self.build(site, first: 1, output: output, cache: true)
        // Frames 1 and 2 of the new window follow the same pictures as before; frame 0 now
        // starts the loop and frame 3 is new.
        #expect(Self.cached(moved, .webp) == 2, "\(moved)")
        _ = try await Self.build(site, first: 1, output: plain, cache: false)
        #expect(try Self.exports(output) == Self.exports(plain))
        // The cache keeps the current loop's frames only.
        let folder = site.root.appendingPathComponent("cache/.loop-frames/radar")
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        // 4 GIF frames, 4 colour counts, 4 WebP frames and the WebP effort chosen for the loop.
        #expect(entries.count == 13, "\(entries)")
    }

    @Test("a damaged entry is encoded again, not used")
    func damagedEntry() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try Self.writeTiles(site)
        let first = site.root.appendingPathComponent("one"), second = site.root.appendingPathComponent("two")
        _ = try await Self.build(site, first: 0, output: first, cache: true)
        let folder = site.root.appendingPathComponent("cache/.loop-frames/radar")
        // Flip a byte in every entry's payload.
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let path = folder.appendingPathComponent(name).path
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[bytes.count - 1] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        let again = try await Self.build(site, first: 0, output: second, cache: true)
        #expect(again.files.allSatisfy { $0.cachedFrames == 0 }, "\(again)")
        #expect(try Self.exports(first) == Self.exports(second))
    }
}
