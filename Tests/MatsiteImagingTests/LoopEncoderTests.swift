import Testing

@testable import MatsiteImaging

/// The exported loops' pieces: composition, labels, and the GIF and WebP encoders, whose
/// files are read back block by block (Pillow and ffprobe read them in the browser tests).
@Suite("LoopEncoders")
struct LoopEncoderTests {
    static let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// A canvas of one colour with a square of another at (x, y).
    func canvas(_ width: Int, _ height: Int, _ base: RGB, square: (x: Int, y: Int, color: RGB)? = nil) -> LoopCanvas {
        var canvas = LoopCanvas(width: width, height: height, color: base)
        if let square { canvas.shade(x: square.x, y: square.y, width: 3, height: 3, color: square.color, alpha: 255) }
        return canvas
    }

    @Test("a frame is blended over the background at its alpha times the opacity, rounded")
    func blending() {
        let frame = DecodedImage(width: 2, height: 1, palette: nil, pixels: [200, 100, 0, 255, 10, 20, 30, 128])
        var canvas = LoopCanvas(width: 2, height: 1, color: RGB(0, 0, 100))
        canvas.draw(frame, opacity: 0.5)
        let a0 = (255 * 128 + 127) / 255
        #expect(canvas.pixel(x: 0, y: 0) == RGB(UInt8((200 * a0 + 127) / 255), UInt8((100 * a0 + 127) / 255), UInt8((100 * (255 - a0) + 127) / 255)))
        let a1 = (128 * 128 + 127) / 255
        #expect(canvas.pixel(x: 1, y: 0).b == UInt8((30 * a1 + 100 * (255 - a1) + 127) / 255))
    }

    @Test("an odd edge is cut, not scaled; another size is scaled nearest-neighbour")
    func sizes() {
        #expect((0..<4).map { LoopCanvas.source($0, count: 4, sourceCount: 5) } == [0, 1, 2, 3])
        #expect((0..<4).map { LoopCanvas.source($0, count: 4, sourceCount: 8) } == [1, 3, 5, 7])
        var pixels: [UInt8] = []
        for x in 0..<8 { pixels += [UInt8(x * 10), 0, 0, 255] }
        var canvas = LoopCanvas(width: 4, height: 1, color: RGB(0, 0, 0))
        canvas.draw(DecodedImage(width: 8, height: 1, palette: nil, pixels: pixels), opacity: 1)
        #expect((0..<4).map { canvas.pixel(x: $0, y: 0).r } == [10, 30, 50, 70])
    }

    @Test("labels are drawn with FreeType inside the measured box, and nowhere else")
    func label() throws {
        let font = try LabelFont(path: Self.font)
        let box = try font.measure("10:20 UTC", px: 16)
        #expect(box.width > 40 && box.ascent > 8 && box.descent > 0)
        var canvas = LoopCanvas(width: 120, height: 40, color: RGB(0, 0, 0))
        try canvas.text("10:20 UTC", font: font, px: 16, x: 4, baseline: 24, color: RGB(255, 255, 255))
        var inside = 0
        for y in 0..<40 {
            for x in 0..<120 where canvas.pixel(x: x, y: y) != RGB(0, 0, 0) {
                #expect(x >= 4 && x < 4 + box.width + 2 && y >= 24 - box.ascent && y < 24 + box.descent)
                inside += 1
            }
        }
        #expect(inside > 50)
        #expect(throws: ImageError.self) { try LabelFont(path: "/nonexistent/font.ttf") }
    }

    @Test("a GIF loops forever, has one image per frame with its delay, and writes only what changed")
    func gif() throws {
        let encoder = try GIFLoopEncoder(width: 20, height: 10)
        let grey = RGB(200, 200, 200)
        try encoder.add(canvas(20, 10, grey), durationMs: 100)
        try encoder.add(canvas(20, 10, grey, square: (5, 4, RGB(255, 0, 0))), durationMs: 200)
        try encoder.add(canvas(20, 10, grey, square: (5, 4, RGB(255, 0, 0))), durationMs: 1500)
        let file = try GIFFile(try encoder.finish())
        #expect(file.width == 20 && file.height == 10)
        #expect(file.loops)
        #expect(file.images.map(\.delay) == [10, 20, 150])
        #expect(file.images.map(\.rect.w) == [20, 3, 1])
        #expect(file.images[1].rect.x == 5 && file.images[1].rect.y == 4)
        #expect(file.images[1].transparent != nil)
        // One table for the loop: its two colours and the transparent index; none per frame.
        #expect(file.globalColors == 4)
        #expect(file.images.allSatisfy { $0.colors == 0 })
    }

    @Test("a frame of more than 256 colours gets a 256-entry table (median cut)")
    func gifQuantised() throws {
        var canvas = LoopCanvas(width: 32, height: 32, color: RGB(0, 0, 0))
        for y in 0..<32 {
            for x in 0..<32 { canvas.shade(x: x, y: y, width: 1, height: 1, color: RGB(UInt8(x * 8), UInt8(y * 8), 77), alpha: 255) }
        }
        let encoder = try GIFLoopEncoder(width: 32, height: 32)
        try encoder.add(canvas, durationMs: 500)
        let file = try GIFFile(try encoder.finish())
        #expect(file.images.count == 1 && file.globalColors == 256)
    }

    @Test("GIF and WebP frames encoded apart, in any order, make the file the encoder makes frame by frame")
    func framesApart() throws {
        let grey = RGB(200, 200, 200)
        let canvases = [
            canvas(20, 10, grey), canvas(20, 10, grey, square: (5, 4, RGB(255, 0, 0))), canvas(20, 10, grey, square: (5, 4, RGB(255, 0, 0))),
            canvas(20, 10, grey, square: (11, 1, RGB(0, 0, 255))),
        ]
        let durations = [100, 200, 300, 1500]
        let gif = try GIFLoopEncoder(width: 20, height: 10)
        let webp = try WebPLoopEncoder(width: 20, height: 10, lossless: true, quality: 100, effort: 1)
        for (canvas, duration) in zip(canvases, durations) {
            try gif.add(canvas, durationMs: duration)
            try webp.add(canvas, durationMs: duration)
        }
        let palette = GIFPalette(canvases.reversed().map(ColorHistogram.init))
        var gifFrames = [[UInt8]](repeating: [], count: 4)
        var webpFrames = [WebPLoopEncoder.Frame?](repeating: nil, count: 4)
        let settings = WebPLoopEncoder.Settings(lossless: true, quality: 100, effort: 1)
        for i in [3, 1, 0, 2] {
            let previous = i > 0 ? canvases[i - 1] : nil
            gifFrames[i] = try GIFLoopEncoder.encodeFrame(previous: previous, canvases[i], durationMs: durations[i], palette: palette)
            webpFrames[i] = try WebPLoopEncoder.encodeFrame(previous: previous, canvases[i], settings: settings)
        }
        #expect(try GIFLoopEncoder.assemble(width: 20, height: 10, palette: palette, frames: gifFrames) == gif.finish())
        let apart = try WebPLoopEncoder(width: 20, height: 10, lossless: true, quality: 100, effort: 1)
        for (frame, duration) in zip(webpFrames, durations) { try apart.add(encoded: try #require(frame), durationMs: duration) }
        #expect(try apart.finish() == webp.finish())
        // The WebP frame after an unchanged picture is one transparent blended pixel.
        #expect(webpFrames[2]?.width == 1 && webpFrames[2]?.blend == true)
    }

    @Test("a GIF's table is exact for up to 255 colours and holds every colour's index otherwise")
    func gifPalette() throws {
        let few = GIFPalette([ColorHistogram(canvas(4, 4, RGB(1, 2, 3), square: (0, 0, RGB(9, 9, 9))))])
        #expect(few.rgb == [1, 2, 3, 9, 9, 9])
        var many = LoopCanvas(width: 20, height: 20, color: RGB(0, 0, 0))
        for y in 0..<20 {
            for x in 0..<20 { many.shade(x: x, y: y, width: 1, height: 1, color: RGB(UInt8(x * 12), UInt8(y * 12), 5), alpha: 255) }
        }
        let cut = GIFPalette([ColorHistogram(many)])
        #expect(cut.count == 255)
        // Every pixel of the picture is coded: the frame encodes without an unknown colour.
        #expect(try !GIFLoopEncoder.encodeFrame(previous: nil, many, durationMs: 100, palette: cut).isEmpty)
        #expect(throws: ImageError.self) { try GIFLoopEncoder.encodeFrame(previous: nil, many, durationMs: 100, palette: few) }
    }

    @Test("median cut gives the same table whatever order the colour counts come in (the same frames, the same GIF)")
    func medianCutIsDeterministic() {
        // Antialiased label text over radar colours: many colours sharing channel values, so
        // ties are everywhere. Dictionaries filled in different orders and with different
        // capacities iterate differently.
        var entries: [(UInt32, Int)] = []
        for r in stride(from: 0, to: 256, by: 17) {
            for g in stride(from: 0, to: 256, by: 51) {
                for b in stride(from: 0, to: 256, by: 85) { entries.append((UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b), 1 + (r + g + b) % 7)) }
            }
        }
        var results: Set<[UInt8]> = []
        for round in 0..<8 {
            var counts = [UInt32: Int](minimumCapacity: 64 << round)
            // A different order each round: rotated, and reversed every other round.
            let shift = round * 37 % entries.count
            let rotated = Array(entries[shift...] + entries[..<shift])
            for (key, count) in round % 2 == 0 ? rotated : rotated.reversed() { counts[key] = count }
            results.insert(GIFLoopEncoder.medianCut(counts, to: 100).palette)
        }
        #expect(results.count == 1)
    }

    @Test("an animated WebP has one frame per canvas with its duration and loops forever")
    func webp() throws {
        for lossless in [true, false] {
            let encoder = try WebPLoopEncoder(width: 20, height: 10, lossless: lossless, quality: 80, effort: 1)
            try encoder.add(canvas(20, 10, RGB(200, 200, 200)), durationMs: 100)
            try encoder.add(canvas(20, 10, RGB(200, 200, 200), square: (2, 2, RGB(0, 0, 255))), durationMs: 200)
            try encoder.add(canvas(20, 10, RGB(200, 200, 200), square: (12, 5, RGB(0, 255, 0))), durationMs: 1500)
            let bytes = try encoder.finish()
            #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[8..<12]) == Array("WEBP".utf8))
            var chunks: [(String, ArraySlice<UInt8>)] = []
            var at = 12
            while at + 8 <= bytes.count {
                let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
                chunks.append((String(decoding: bytes[at..<(at + 4)], as: UTF8.self), bytes[(at + 8)..<(at + 8 + size)]))
                at += 8 + size + size % 2
            }
            let anim = try #require(chunks.first { $0.0 == "ANIM" }?.1)
            #expect(anim[anim.startIndex + 4] == 0 && anim[anim.startIndex + 5] == 0) // loop count 0: forever
            let frames = chunks.filter { $0.0 == "ANMF" }.map(\.1)
            #expect(frames.count == 3)
            let durations = frames.map { f in
                let d = f.startIndex + 12
                return Int(f[d]) | Int(f[d + 1]) << 8 | Int(f[d + 2]) << 16
            }
            #expect(durations == [100, 200, 1500])
        }
    }
}

/// A GIF read block by block: the logical screen, the loop extension and each image's
/// rectangle, delay, transparency and colour count.
struct GIFFile {
    struct Image {
        var rect: (x: Int, y: Int, w: Int, h: Int)
        var delay: Int
        var transparent: Int?
        var colors: Int
    }

    var width = 0
    var height = 0
    var globalColors = 0
    var loops = false
    var images: [Image] = []

    struct Malformed: Error {}

    init(_ b: [UInt8]) throws {
        guard b.count > 13, Array(b[0..<6]) == Array("GIF89a".utf8) else { throw Malformed() }
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        width = u16(6)
        height = u16(8)
        globalColors = b[10] & 0x80 != 0 ? 1 << (Int(b[10] & 7) + 1) : 0
        var i = 13 + 3 * globalColors
        var delay = 0
        var transparent: Int?
        func skipSubBlocks() throws {
            while i < b.count, b[i] != 0 { i += Int(b[i]) + 1 }
            guard i < b.count else { throw Malformed() }
            i += 1
        }
        while i < b.count {
            switch b[i] {
            case 0x21:
                let label = b[i + 1]
                if label == 0xF9 {
                    delay = u16(i + 4)
                    transparent = b[i + 3] & 1 != 0 ? Int(b[i + 6]) : nil
                } else if label == 0xFF, Array(b[(i + 3)..<(i + 14)]) == Array("NETSCAPE2.0".utf8) {
                    loops = u16(i + 16) == 0
                }
                i += 2
                try skipSubBlocks()
            case 0x2C:
                let packed = b[i + 9]
                let colors = packed & 0x80 != 0 ? 1 << (Int(packed & 7) + 1) : 0
                images.append(Image(rect: (u16(i + 1), u16(i + 3), u16(i + 5), u16(i + 7)), delay: delay, transparent: transparent, colors: colors))
                i += 10 + 3 * colors + 1
                try skipSubBlocks()
            case 0x3B:
                return
            default:
                throw Malformed()
            }
        }
        throw Malformed()
    }
}
