// Bad images where tiles were expected: each must fail its own tile with words a user can
// act on, never crash, and never take memory in proportion to what a header claims.

import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

struct BadImage: Sendable, CustomStringConvertible {
    let name: String
    let bytes: [UInt8]
    /// Words (lowercased) one of which the tile's reason must contain.
    let cause: [String]
    var description: String { name }

    static func rgbaRows(_ size: Int) -> [UInt8] {
        (0..<size).flatMap { _ in [0] + [UInt8](repeating: 0x40, count: size * 4) }
    }

    static let all: [BadImage] = [
        BadImage(
            name: "a 100000 x 100000 IHDR",
            bytes: Crafted.png(
                width: 100_000, height: 100_000, bitDepth: 8, colorType: 6,
                idat: Crafted.zlibZeros(10_000)),
            cause: ["limit", "too large", "exceeds"]),
        BadImage(
            name: "a decompression bomb: 256 px RGBA whose IDAT inflates to 16 MiB",
            bytes: Crafted.png(width: 256, height: 256, bitDepth: 8, colorType: 6, idat: Crafted.zlibZeros(16 << 20)),
            cause: ["extra", "too much", "compressed"]),
        BadImage(
            name: "a 4096 x 4096 header (64 MiB of pixels from a 7 KiB IDAT) where a 256 px tile belongs",
            bytes: Crafted.png(width: 4096, height: 4096, bitDepth: 8, colorType: 6, idat: Crafted.zlibZeros(1 << 20)),
            cause: ["4096x4096", "expected 256x256"]),
        BadImage(
            name: "RGB at bit depth 4", bytes: Crafted.png(width: 256, height: 256, bitDepth: 4, colorType: 2, raw: rgbaRows(256)),
            cause: ["bit depth"]),
        BadImage(
            name: "palette at bit depth 16",
            bytes: Crafted.png(
                width: 256, height: 256, bitDepth: 16, colorType: 3,
                raw: rgbaRows(256), palette: 4),
            cause: ["bit depth"]),
        BadImage(
            name: "colour type 1", bytes: Crafted.png(width: 256, height: 256, bitDepth: 8, colorType: 1, raw: rgbaRows(256)),
            cause: ["color type", "colour type"]),
        BadImage(
            name: "colour type 7", bytes: Crafted.png(width: 256, height: 256, bitDepth: 8, colorType: 7, raw: rgbaRows(256)),
            cause: ["color type", "colour type"]),
        BadImage(
            name: "bit depth 3 gray", bytes: Crafted.png(width: 256, height: 256, bitDepth: 3, colorType: 0, raw: rgbaRows(256)),
            cause: ["bit depth"]),
        BadImage(
            name: "a palette image without PLTE",
            bytes: Crafted.png(
                width: 256, height: 256, bitDepth: 8, colorType: 3,
                raw: (0..<256).flatMap { _ in [UInt8](repeating: 0, count: 257) }),
            cause: ["plte", "palette"]),
        BadImage(name: "zero bytes", bytes: [], cause: ["empty"]),
        BadImage(name: "a JPEG", bytes: Crafted.jpeg, cause: ["jpeg"]),
        BadImage(name: "a WebP", bytes: Crafted.webp, cause: ["webp"]),
        BadImage(name: "a GIF", bytes: Crafted.gif, cause: ["gif"]),
        BadImage(
            name: "the PNG signature alone", bytes: Array(Crafted.png(width: 1, height: 1, bitDepth: 8, colorType: 0).prefix(8)),
            cause: ["truncated", "ends early"]),
    ]
}

@Suite("Bad images: each a clear per-tile error")
struct BadImageTests {
    /// Two tiles side by side at zoom 1: 1/0/0 is good, 1/1/0 is `bad`.
    func buildWith(bad: [UInt8]) async throws -> (BuildError?, URL) {
        let root = try Hostile.scratch("badimage")
        let tiles = root.appendingPathComponent("tiles/1")
        try FileManager.default.createDirectory(at: tiles.appendingPathComponent("0"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: tiles.appendingPathComponent("1"), withIntermediateDirectories: true)
        try Data(Hostile.tile(seed: 1)).write(to: tiles.appendingPathComponent("0/0.png"))
        try Data(bad).write(to: tiles.appendingPathComponent("1/0.png"))
        let config = try Hostile.config(
            """
            animations:
              - id: tiles
                bbox: [-170, 10, 170, 80]
                zoom: 1
                fallback: { levels: 0 }
                source: { path: "\(root.path)/tiles/{z}/{x}/{y}.png" }
                frames: { count: 1 }
            """, in: root)
        do {
            try await Hostile.build(config, output: root.appendingPathComponent("site"))
            return (nil, root)
        } catch let error as BuildError {
            return (error, root)
        } catch {
            Hostile.remove(root)
            throw error
        }
    }

    @Test("a bad image fails its own tile, named, with a reason a user can act on", arguments: BadImage.all)
    func badImageFailsItsTile(_ image: BadImage) async throws {
        let started = ContinuousClock.now
        let (error, root) = try await buildWith(bad: image.bytes)
        defer { Hostile.remove(root) }
        let failed = try #require(error?.failedTiles, "expected tilesFailed, got \(String(describing: error))")
        #expect(failed.count == 1, "\(failed)")
        let tile = try #require(failed.first)
        #expect(tile.locator.hasSuffix("tiles/1/1/0.png"))
        let reason = tile.reason.lowercased()
        #expect(image.cause.contains { reason.contains($0) }, "reason: \(tile.reason)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("site").path))
        // No hang: a generous bound, as 14 cases build at once (20 s seen under ASan on 2
        // loaded cores, 128 s beside the whole suite and two stress-ng workers).
        #expect(ContinuousClock.now - started < .seconds(600))
    }

    @Test("the decompression bomb stops at the image's end instead of inflating all of it")
    func bombIsCutShort() throws {
        let bomb = Crafted.png(width: 256, height: 256, bitDepth: 8, colorType: 6, idat: Crafted.zlibZeros(16 << 20))
        #expect(bomb.count < 120_000)
        let started = ContinuousClock.now
        #expect(throws: PNGError.self) { try PNGDecoder().decode(bomb, keepIndices: false) }
        // Inflating all 16 MiB would take far longer than reading one 256 KiB image.
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test("a header claiming 4096 x 4096 is refused by the frame's size check before any pixels are decoded")
    func oversizedTileRefusedByHeader() throws {
        let bomb = Crafted.png(width: 4096, height: 4096, bitDepth: 8, colorType: 6, idat: Crafted.zlibZeros(1 << 20))
        let layout = FrameLayout(width: 256, height: 256, originX: 0, originY: 0, shift: 0, tileSize: 256)
        let (_, failures) = Stitcher().plan(layout: layout, tiles: [.png(bomb)])
        #expect(failures.first?.reason.contains("4096x4096") == true)
    }

    @Test("valid but unusual images still decode: 16-bit gray+alpha, 1-bit gray")
    func unusualButValidImagesDecode() throws {
        let size = 256
        let grayAlpha16 = Crafted.png(
            width: size, height: size, bitDepth: 16, colorType: 4,
            raw: (0..<size).flatMap { _ in [0] + [UInt8](repeating: 0x80, count: size * 4) })
        let image = try PNGDecoder().decode(grayAlpha16, keepIndices: false)
        #expect(image.width == size && image.pixels.count == size * size * 4)
        let gray1 = Crafted.png(
            width: size, height: size, bitDepth: 1, colorType: 0,
            raw: (0..<size).flatMap { _ in [0] + [UInt8](repeating: 0xAA, count: size / 8) })
        #expect(try PNGDecoder().decode(gray1, keepIndices: false).pixels.count == size * size * 4)
    }
}
