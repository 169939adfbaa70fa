import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Real frames for the export's parts: RGBA PNG files written to a folder, the loop's
/// frames naming them, and an animation read from YAML as a build reads it.
struct LoopExportFixture {
    let folder: URL
    let frames: [LoopExporter.Frame]

    /// `count` frames of `width` x `height` in a new folder under `root`: frame i is a square
    /// of `color(i)` moving right by `step` pixels a frame, on transparent pixels.
    init(root: URL, count: Int, width: Int = 96, height: Int = 64, step: Int = 8, durationMs: Int = 200) throws {
        folder = root.appendingPathComponent("frames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("frames"), withIntermediateDirectories: true)
        var frames: [LoopExporter.Frame] = []
        for i in 0..<count {
            let png = try Self.png(width: width, height: height, square: (x: 8 + step * i, y: 24, side: 16), color: Self.color(i))
            let file = "frames/\(i).png"
            try Data(png).write(to: folder.appendingPathComponent(file))
            let time = TimeInstant(millisecondsSinceEpoch: 1_795_255_200_000 + Int64(i) * 600_000)
            let sha256 = SHA256.hex(of: png)
            frames.append(
                LoopExporter.Frame(
                    index: i, time: time, durationMs: durationMs, pictures: [.init(file: file, sha256: sha256, opacity: 1)], key: sha256))
        }
        self.frames = frames
    }

    /// An opaque colour of frame `i`, away from the default background and the labels'.
    static func color(_ i: Int) -> RGB { RGB(UInt8(200 - 20 * (i % 8)), UInt8(40 + 25 * (i % 8)), 90) }

    /// An RGBA PNG: transparent, with an opaque square.
    static func png(width: Int, height: Int, square: (x: Int, y: Int, side: Int), color: RGB, alpha: UInt8 = 255) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in square.y..<min(height, square.y + square.side) {
            for x in square.x..<min(width, square.x + square.side) {
                let p = (y * width + x) * 4
                (pixels[p], pixels[p + 1], pixels[p + 2], pixels[p + 3]) = (color.r, color.g, color.b, alpha)
            }
        }
        return try PNGWriter.encode(width: width, height: height, format: .rgba, pixels: pixels)
    }

    /// A composer of these frames at `size` over `color`, labelled as `names` would label them.
    func composer(size: (width: Int, height: Int), color: RGB = RGB(0x33, 0x66, 0x99), credit: String = "Radar: test") -> LoopComposer {
        LoopComposer(
            fontPath: LoopExportTools.fontPath(), background: LoopCanvas(width: size.width, height: size.height, color: color).rgb, size: size,
            folder: folder, labels: LoopLabels(legend: nil, credit: credit),
            times: frames.map { LoopExportNames.timeLabel(for: $0, count: frames.count, timeZone: nil) })
    }

    /// The first animation of a config whose animation lines (indented by four) are `lines`.
    static func animation(_ lines: [String] = []) throws -> AnimationConfig {
        let site = try TestSite()
        defer { site.remove() }
        let yaml = (["  - id: radar", "    bbox: [-10.0, 40.0, 10.0, 52.0]", "    zoom: 4", "    source: { demo: radar }", "    frames: { count: 3 }"] + lines)
            .joined(separator: "\n")
        return try #require(try site.config(site.yaml(yaml)).animations.first)
    }
}
