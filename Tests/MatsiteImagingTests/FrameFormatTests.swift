import Foundation
import MatsiteImaging
import Testing

/// Frames written as JPEG or lossy WebP (libjpeg-turbo and libwebp behind the C shims), and
/// the rule that picks a frame's format.
@Suite("Frame formats: PNG, JPEG, WebP")
struct FrameFormatTests {
    /// Mean and largest channel difference of two RGBA images of one size (colour only).
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, worst: Int) {
        var total = 0, worst = 0, count = 0
        for i in a.indices where i % 4 != 3 {
            let d = abs(Int(a[i]) - Int(b[i]))
            total += d
            worst = max(worst, d)
            count += 1
        }
        return (Double(total) / Double(max(count, 1)), worst)
    }

    @Test(
        "a frame stitched from real JPEG/WebP tiles and written lossy equals the independent mosaic within tolerance, and weighs less than its tiles",
        arguments: ["pillow-jpeg", "gdal-mbtiles-jpeg", "gdal2tiles-webp"])
    func lossyFrame(_ name: String) throws {
        let fixture = try Fixture(name)
        let layout = fixture.layout
        #expect(FrameFormatChoice.tilesAreLossy(fixture.tiles, decoder: TileDecoder()))
        let buffer = FrameBuffer(width: layout.width, height: layout.height)
        _ = try Stitcher().stitch(layout: layout, tiles: fixture.tiles, format: .rgba, to: buffer, tolerateBadTiles: false)
        #expect(buffer.isOpaque)
        let choice = FrameFormatChoice()
        #expect(choice.wantsLossy(pixelFormat: .rgba, tilesAreLossy: true))
        // The tiles' own quality caps the default: Pillow's 85, GDAL's 75; WebP tiles say none.
        let tilesQuality = FrameFormatChoice.tilesQuality(fixture.tiles, decoder: TileDecoder())
        #expect(tilesQuality == ["pillow-jpeg": 85, "gdal-mbtiles-jpeg": 75][name])
        let format = choice.lossyFormat(opaque: buffer.isOpaque, sourceQuality: tilesQuality)
        #expect(format == .jpeg(quality: tilesQuality ?? FrameFormatChoice.defaultJPEGQuality))
        let bytes = try buffer.encode(format)
        #expect(ImageKind.sniff(bytes) == .jpeg)
        let decoded = try JPEGDecoder().decode(bytes)
        let expected = try PNGDecoder().decode(fixture.expected, keepIndices: false)
        #expect(decoded.width == expected.width && decoded.height == expected.height)
        // Tolerance for a second lossy pass at quality 85 over the tiles' own loss: small on
        // average, bounded at edges.
        let (mean, worst) = Self.difference(decoded.pixels, expected.pixels)
        #expect(mean < 3.0 && worst <= 64, "\(name): mean \(mean), worst \(worst)")
        let tileBytes = fixture.tiles.reduce(0) { sum, tile in
            if case .encoded(let b) = tile { return sum + b.count }
            return sum
        }
        // JPEG tiles re-encoded at their own quality: the frame, a crop of them, weighs less.
        if tilesQuality != nil { #expect(bytes.count < tileBytes, "\(name): frame \(bytes.count) bytes, tiles \(tileBytes)") }
        // And far less than the same frame as PNG.
        let png = try buffer.encode(.png)
        #expect(bytes.count * 2 < png.count, "JPEG \(bytes.count) vs PNG \(png.count)")
    }

    /// A fixture's tiles stitched into one RGBA frame in memory.
    static func stitchedRGBA(_ name: String) throws -> (Fixture, FrameBuffer) {
        let fixture = try Fixture(name)
        let buffer = FrameBuffer(width: fixture.layout.width, height: fixture.layout.height)
        _ = try Stitcher().stitch(layout: fixture.layout, tiles: fixture.tiles, format: .rgba, to: buffer, tolerateBadTiles: false)
        return (fixture, buffer)
    }

    @Test("lossy WebP keeps alpha exactly where the frame is transparent")
    func webpAlpha() throws {
        let (fixture, buffer) = try Self.stitchedRGBA("mixed")
        let layout = fixture.layout
        #expect(!buffer.isOpaque)
        // A mixed frame: two JPEG tiles, a PNG and two lossless WebP. Mostly lossless, so
        // auto keeps it PNG; with most of its tiles lossy it would be lossy; forced JPEG
        // becomes WebP (transparency).
        let kinds = FrameFormatChoice.tileKinds(fixture.tiles, decoder: TileDecoder())
        #expect(kinds == TileKinds(lossy: 2, lossless: 3))
        #expect(!FrameFormatChoice.tilesAreLossy(fixture.tiles, decoder: TileDecoder()))
        #expect(!FrameFormatChoice().wantsLossy(pixelFormat: .rgba, tiles: kinds))
        #expect(FrameFormatChoice().wantsLossy(pixelFormat: .rgba, tiles: TileKinds(lossy: 3, lossless: 2)))
        #expect(!FrameFormatChoice().wantsLossy(pixelFormat: .rgba, tiles: TileKinds(lossy: 2, lossless: 2)))
        let format = FrameFormatChoice(.jpeg, quality: 90).lossyFormat(opaque: false)
        #expect(format == .webp(quality: 90))
        let decoded = try WebPDecoder().decode(try buffer.encode(format))
        let mismatched = stride(from: 3, to: decoded.pixels.count, by: 4).filter { decoded.pixels[$0] != buffer.pixels[$0] }
        #expect(mismatched.isEmpty, "\(mismatched.count) alpha values changed")
    }

    @Test("lossless WebP keeps every visible pixel exactly (premultiplied), and alpha everywhere")
    func webpLossless() throws {
        let (fixture, buffer) = try Self.stitchedRGBA("mixed")
        let layout = fixture.layout
        #expect(FrameFormatChoice(.webpLossless).wantsLossy(pixelFormat: .rgba, tilesAreLossy: false))
        #expect(FrameFormatChoice(.webpLossless).lossyFormat(opaque: false) == .webpLossless)
        let bytes = try buffer.encode(.webpLossless)
        #expect(ImageKind.sniff(bytes) == .webp && FrameFormat.webpLossless.fileExtension == "webp")
        let decoded = try WebPDecoder().decode(bytes)
        #expect(decoded.width == layout.width && decoded.height == layout.height)
        var differences = 0
        for i in stride(from: 0, to: decoded.pixels.count, by: 4) {
            let alpha = Int(buffer.pixels[i + 3])
            if Int(decoded.pixels[i + 3]) != alpha { differences += 1 }
            for c in 0..<3 where Int(decoded.pixels[i + c]) * alpha != Int(buffer.pixels[i + c]) * alpha { differences += 1 }
        }
        #expect(differences == 0)
    }

    @Test("the format rule: palette frames and forced PNG stay PNG, forced formats win, qualities default per format")
    func rule() {
        let palette = PixelFormat.indexed(Palette(rgba: [0, 0, 0, 0, 255, 0, 0, 255]))
        #expect(!FrameFormatChoice().wantsLossy(pixelFormat: palette, tilesAreLossy: true))
        #expect(!FrameFormatChoice(.png).wantsLossy(pixelFormat: .rgba, tilesAreLossy: true))
        #expect(FrameFormatChoice(.webp).wantsLossy(pixelFormat: palette, tilesAreLossy: false))
        #expect(FrameFormatChoice(.webp).lossyFormat(opaque: true) == .webp(quality: 80))
        #expect(FrameFormatChoice(.auto, quality: 60).lossyFormat(opaque: true) == .jpeg(quality: 60))
        #expect(FrameFormatChoice().lossyFormat(opaque: false) == .webp(quality: 80))
        #expect([FrameFormat.png, .jpeg(quality: 1), .webp(quality: 1)].map(\.fileExtension) == ["png", "jpg", "webp"])
        #expect(FrameFormatChoice().tag == "auto" && FrameFormatChoice(.jpeg, quality: 70).tag == "jpegq70")
        // A quality set in the config wins over the tiles' own.
        #expect(FrameFormatChoice().lossyFormat(opaque: true, sourceQuality: 60) == .jpeg(quality: 60))
        #expect(FrameFormatChoice().lossyFormat(opaque: true, sourceQuality: 95) == .jpeg(quality: 85))
        #expect(FrameFormatChoice(.auto, quality: 90).lossyFormat(opaque: true, sourceQuality: 60) == .jpeg(quality: 90))
    }

    @Test("an encoder given a bad size fails with a reason, never a crash")
    func badSize() {
        let pixels = [UInt8](repeating: 255, count: 16)
        for format in [FrameFormat.jpeg(quality: 80), .webp(quality: 80), .png] {
            let error = pixels.withUnsafeBytes { raw in
                #expect(throws: ImageError.self) { try format.encode(rgba: raw, width: 4, height: 4, stride: 16) }
            }
            #expect(error?.operation == .encode)
        }
        let wide = [UInt8](repeating: 255, count: 16384 * 4)
        let error = wide.withUnsafeBytes { raw in
            #expect(throws: ImageError.self) { try FrameFormat.webp(quality: 80).encode(rgba: raw, width: 16384, height: 1, stride: 16384 * 4) }
        }
        #expect(error?.reason.contains("16383") == true)
    }
}
