import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// What lies under an exported loop's frames (`LoopBackground`): a colour, tiles drawn at
/// the frames' zoom (scaled up from a coarser one), the demo base map.
@Suite("LoopBackground")
struct LoopBackgroundTests {
    /// The whole world at zoom 1: 512 x 512 pixels from the origin.
    static let world1 = FrameLayout(width: 512, height: 512, originX: 0, originY: 0, shift: 0, tileSize: 256)

    static func pixel(_ rgb: [UInt8], width: Int, x: Int, y: Int) -> RGB {
        let p = (y * width + x) * 3
        return RGB(rgb[p], rgb[p + 1], rgb[p + 2])
    }

    /// A 256-px tile decoded from a real PNG: `color` at `alpha`, or split down the middle
    /// into `color` (left) and `right`.
    static func tile(_ color: RGB, alpha: UInt8 = 255, right: RGB? = nil) throws -> DecodedImage {
        let left = try LoopExportFixture.png(width: 256, height: 256, square: (0, 0, right == nil ? 256 : 128), color: color, alpha: alpha)
        guard let right else { return try PNGDecoder().decode(left, keepIndices: false) }
        let half = try PNGDecoder().decode(left, keepIndices: false)
        var pixels = half.pixels
        for y in 0..<256 {
            for x in 128..<256 {
                let p = (y * 256 + x) * 4
                (pixels[p], pixels[p + 1], pixels[p + 2], pixels[p + 3]) = (right.r, right.g, right.b, 255)
            }
        }
        return try PNGDecoder().decode(try PNGWriter.encode(width: 256, height: 256, format: .rgba, pixels: pixels), keepIndices: false)
    }

    @Test("a colour fills the loop")
    func color() throws {
        let rgb = try LoopBackground.color(RGB(0x33, 0x66, 0x99)).pixels((10, 6), layout: Self.world1, zoom: 1)
        #expect(rgb.count == 10 * 6 * 3)
        #expect(Set((0..<60).map { Self.pixel(rgb, width: 10, x: $0 % 10, y: $0 / 10) }) == [RGB(0x33, 0x66, 0x99)])
    }

    @Test("tiles are drawn where they are, over the default colour where they are transparent or missing")
    func tiles() throws {
        let red = RGB(255, 0, 0), blue = RGB(0, 0, 255)
        let tiles = ExportBackgroundTiles(
            template: "t/{z}/{x}/{y}.png", zoom: 1, tiles: [0: try Self.tile(red), 1: try Self.tile(blue, alpha: 128)], digest: "d")
        let rgb = try LoopBackground.tiles(tiles).pixels((512, 512), layout: Self.world1, zoom: 1)
        #expect(Self.pixel(rgb, width: 512, x: 10, y: 10) == red)
        // Blue at 128/255 over the default (0xd4, 0xdc, 0xe3).
        let d = ExportConfig.defaultBackground
        func over(_ c: UInt8, _ under: UInt8) -> UInt8 { UInt8((Int(c) * 128 + Int(under) * 127 + 127) / 255) }
        #expect(Self.pixel(rgb, width: 512, x: 300, y: 10) == RGB(over(0, d.r), over(0, d.g), over(255, d.b)))
        #expect(Self.pixel(rgb, width: 512, x: 10, y: 300) == d)
    }

    @Test("tiles coarser than the frames are scaled up, nearest neighbour")
    func scaledUp() throws {
        let red = RGB(255, 0, 0), green = RGB(0, 255, 0)
        let tiles = ExportBackgroundTiles(template: "t", zoom: 0, tiles: [0: try Self.tile(red, right: green)], digest: "d")
        let rgb = try LoopBackground.tiles(tiles).pixels((512, 512), layout: Self.world1, zoom: 1)
        // Frame pixel x at zoom 1 is tile pixel x / 2 at zoom 0: the split moves to 256.
        #expect(Self.pixel(rgb, width: 512, x: 255, y: 100) == red)
        #expect(Self.pixel(rgb, width: 512, x: 256, y: 100) == green)
        // At half the size, each loop pixel takes the frame pixel under its centre.
        let half = try LoopBackground.tiles(tiles).pixels((256, 256), layout: Self.world1, zoom: 1)
        #expect(Self.pixel(half, width: 256, x: 127, y: 10) == red && Self.pixel(half, width: 256, x: 128, y: 10) == green)
    }

    @Test("the demo base map is drawn, and each background names itself differently in the keys")
    func demo() throws {
        let layout = FrameLayout(width: 256, height: 256, originX: 2048, originY: 1280, shift: 0, tileSize: 256)
        let rgb = try LoopBackground.demo.pixels((256, 256), layout: layout, zoom: 4)
        let colours = Set((0..<(256 * 256)).map { Self.pixel(rgb, width: 256, x: $0 % 256, y: $0 / 256) })
        let plain = (0..<(256 * 256)).filter { Self.pixel(rgb, width: 256, x: $0 % 256, y: $0 / 256) == ExportConfig.defaultBackground }
        #expect(colours.count > 1 && plain.count < 256 * 256 / 2, "a map, not a colour: \(colours)")
        let tiles = ExportBackgroundTiles(template: "t", zoom: 0, tiles: [:], digest: "abc")
        let named = [LoopBackground.demo, .color(RGB(1, 2, 3)), .tiles(tiles)].map(\.description)
        #expect(Set(named).count == 3 && named[2] == "tiles abc" && named[1] == "colour #010203", "\(named)")
    }
}
