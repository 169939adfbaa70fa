import MatsiteImaging
import Testing

@Suite("PNGDecoder")
struct PNGDecoderTests {
    // MARK: Every colour type to RGBA

    @Test("gray images of every bit depth decode to the RGBA their samples scale to", arguments: [1, 2, 4, 8, 16])
    func grayDepths(depth: Int) throws {
        let image = Self.image(.gray, depth: depth)
        let decoded = try PNGDecoder().decode(image.encode(), keepIndices: true)
        #expect(decoded.palette == nil)
        #expect(decoded.pixels == Self.expectedRGBA(image))
    }

    @Test("gray with a tRNS key colour makes exactly that gray transparent", arguments: [2, 8, 16])
    func grayWithKey(depth: Int) throws {
        var image = Self.image(.gray, depth: depth)
        let key = image.samples[2][3][0]
        image.transparency = [UInt8(key >> 8), UInt8(key & 0xFF)]
        let pixels = try PNGDecoder().decode(image.encode(), keepIndices: false).pixels
        #expect(pixels == Self.expectedRGBA(image))
        #expect(pixels[(2 * image.width + 3) * 4 + 3] == 0)
    }

    @Test("gray+alpha images decode, 8 and 16 bits", arguments: [8, 16])
    func grayAlpha(depth: Int) throws {
        let image = Self.image(.grayAlpha, depth: depth)
        #expect(try PNGDecoder().decode(image.encode(), keepIndices: false).pixels == Self.expectedRGBA(image))
    }

    @Test("RGB images decode opaque, 8 and 16 bits", arguments: [8, 16])
    func rgb(depth: Int) throws {
        let image = Self.image(.rgb, depth: depth)
        #expect(try PNGDecoder().decode(image.encode(), keepIndices: false).pixels == Self.expectedRGBA(image))
    }

    @Test("RGB with a tRNS key colour makes exactly that colour transparent", arguments: [8, 16])
    func rgbWithKey(depth: Int) throws {
        var image = Self.image(.rgb, depth: depth)
        let key = image.samples[5][1]
        image.transparency = key.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let pixels = try PNGDecoder().decode(image.encode(), keepIndices: false).pixels
        #expect(pixels == Self.expectedRGBA(image))
        #expect(pixels[(5 * image.width + 1) * 4 + 3] == 0)
    }

    @Test("RGBA images decode, 8 and 16 bits", arguments: [8, 16])
    func rgba(depth: Int) throws {
        let image = Self.image(.rgba, depth: depth)
        #expect(try PNGDecoder().decode(image.encode(), keepIndices: false).pixels == Self.expectedRGBA(image))
    }

    @Test("palette images take their alpha from tRNS, opaque past its end", arguments: [1, 2, 4, 8])
    func paletteExpanded(depth: Int) throws {
        let image = Self.image(.palette, depth: depth)
        let decoded = try PNGDecoder().decode(image.encode(), keepIndices: false)
        #expect(decoded.palette == nil)
        #expect(decoded.pixels == Self.expectedRGBA(image))
    }

    @Test("palette images kept indexed give one index per pixel and the palette with alpha", arguments: [1, 2, 4, 8])
    func paletteKept(depth: Int) throws {
        let image = Self.image(.palette, depth: depth)
        let decoded = try PNGDecoder().decode(image.encode(), keepIndices: true)
        #expect(decoded.bytesPerPixel == 1)
        #expect(decoded.pixels == image.samples.flatMap { $0.map { UInt8($0[0]) } })
        let expectedPalette = image.palette.indices.flatMap { i in
            [image.palette[i].0, image.palette[i].1, image.palette[i].2, i < image.transparency!.count ? image.transparency![i] : 255]
        }
        #expect(decoded.palette == Palette(rgba: expectedPalette))
    }

    @Test(
        "interlaced images of every colour type decode like their non-interlaced twins",
        arguments: [(HandmadePNG.ColorType.gray, 2), (.gray, 16), (.grayAlpha, 8), (.rgb, 8), (.rgba, 16), (.palette, 4)])
    func interlaced(type: HandmadePNG.ColorType, depth: Int) throws {
        var image = Self.image(type, depth: depth)
        image.interlaced = true
        let bytes = image.encode()
        #expect(try PNGDecoder().info(of: bytes).interlaced)
        #expect(try PNGDecoder().decode(bytes, keepIndices: false).pixels == Self.expectedRGBA(image))
        if type == .palette {
            #expect(try PNGDecoder().decode(bytes, keepIndices: true).pixels == image.samples.flatMap { $0.map { UInt8($0[0]) } })
        }
    }

    @Test(
        "interlaced images smaller than Adam7's first passes decode (empty passes have no rows)",
        arguments: [(1, 1), (2, 1), (1, 5), (3, 2)])
    func tinyInterlaced(width: Int, height: Int) throws {
        var image = Self.image(.rgba, depth: 8, width: width, height: height)
        image.interlaced = true
        #expect(try PNGDecoder().decode(image.encode(), keepIndices: false).pixels == Self.expectedRGBA(image))
    }

    @Test("info reads the header facts without decoding")
    func info() throws {
        let image = Self.image(.palette, depth: 4)
        let info = try PNGDecoder().info(of: image.encode())
        #expect(info.width == 13 && info.height == 11)
        #expect(info.bitDepth == 4 && info.colorType == 3 && !info.interlaced)
        #expect(info.palette?.count == image.palette.count)
    }

    // MARK: Damage: a clear error each, never a crash

    @Test("a bad CRC in IHDR is an error")
    func badHeaderCRC() throws {
        var bytes = Self.image(.rgba, depth: 8).encode()
        bytes[29] ^= 0x01 // IHDR's CRC follows signature 8 + length 4 + type 4 + data 13
        let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes, keepIndices: false) }
        #expect(error?.operation == .decode)
        #expect(error?.reason.isEmpty == false)
    }

    @Test("a bad CRC in IDAT is an error, not a picture")
    func badDataCRC() throws {
        var bytes = Self.image(.rgba, depth: 8).encode()
        let idat = try #require(bytes.chunkOffset("IDAT"))
        let length = bytes[idat..<(idat + 4)].reduce(0) { $0 << 8 | Int($1) }
        bytes[idat + 8 + length] ^= 0x80
        #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes, keepIndices: false) }
    }

    @Test("a bad CRC in a skipped ancillary chunk still fails the tile")
    func badAncillaryCRC() throws {
        var bytes = Self.image(.rgba, depth: 8).encode()
        let idat = try #require(bytes.chunkOffset("IDAT"))
        var text = HandmadePNG.chunk("tEXt", Array("Comment\u{0}hello".utf8))
        text[text.count - 1] ^= 0xFF
        bytes.insert(contentsOf: text, at: idat)
        #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes, keepIndices: false) }
    }

    @Test("a PNG cut off inside IDAT is an error naming the truncation")
    func truncatedData() throws {
        let bytes = Self.image(.rgba, depth: 8).encode()
        let idat = try #require(bytes.chunkOffset("IDAT"))
        let length = bytes[idat..<(idat + 4)].reduce(0) { $0 << 8 | Int($1) }
        let cut = Array(bytes.prefix(idat + 8 + length / 2))
        let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(cut, keepIndices: false) }
        #expect(error?.reason.contains("truncated") == true)
    }

    @Test("IDAT holding less data than the image needs is an error")
    func tooLittleData() throws {
        var image = Self.image(.rgba, depth: 8)
        let full = image.encode()
        image.height = 5 // rows for 5 lines, header claiming 11
        let short = image.rawImageData()
        image.height = 11
        var bytes = Array(full.prefix(try #require(full.chunkOffset("IDAT"))))
        bytes += HandmadePNG.chunk("IDAT", HandmadePNG.zlibStored(short)) + HandmadePNG.chunk("IEND", [])
        #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes, keepIndices: false) }
    }

    @Test("IDAT holding more data than the image needs fails the tile (libpng's warning is an error here)")
    func tooMuchData() throws {
        let image = Self.image(.rgba, depth: 8)
        let full = image.encode()
        var bytes = Array(full.prefix(try #require(full.chunkOffset("IDAT"))))
        bytes += HandmadePNG.chunk("IDAT", HandmadePNG.zlibStored(image.rawImageData() + [UInt8](repeating: 0, count: 4000)))
        bytes += HandmadePNG.chunk("IEND", [])
        #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes, keepIndices: false) }
    }

    @Test("unknown ancillary chunks and text are skipped and the image decodes")
    func unknownChunks() throws {
        let image = Self.image(.rgba, depth: 8)
        var bytes = image.encode()
        let idat = try #require(bytes.chunkOffset("IDAT"))
        bytes.insert(
            contentsOf: HandmadePNG.chunk("zzZz", [UInt8](repeating: 1, count: 64 << 10))
                + HandmadePNG.chunk("tEXt", Array("Software\u{0}test".utf8)), at: idat)
        #expect(try PNGDecoder().decode(bytes, keepIndices: false).pixels == Self.expectedRGBA(image))
    }

    @Test("a chunk larger than maxChunkBytes is refused with a clear error, before it is read")
    func chunkOverLimit() throws {
        var bytes = Self.image(.rgba, depth: 8).encode()
        let idat = try #require(bytes.chunkOffset("IDAT"))
        bytes.insert(contentsOf: HandmadePNG.chunk("zzZz", [UInt8](repeating: 1, count: (1 << 20) + 16)), at: idat)
        let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes, keepIndices: false) }
        #expect(error?.reason.contains("too large") == true, "\(error?.reason ?? "")")
    }

    @Test("zero bytes are an error saying the file is empty")
    func empty() {
        let error = #expect(throws: PNGError.self) { try PNGDecoder().decode([], keepIndices: false) }
        #expect(error?.reason.contains("empty") == true)
    }

    @Test("a JPEG is refused by its signature")
    func jpeg() {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00]
        let error = #expect(throws: PNGError.self) { try PNGDecoder().info(of: jpeg) }
        #expect(error?.reason.contains("not a PNG") == true)
    }

    @Test("a 100000x100000 header is refused before any pixel memory is taken")
    func hugeHeader() throws {
        var bytes = Self.image(.rgba, depth: 8, width: 1, height: 1).encode()
        let ihdr = HandmadePNG.chunk("IHDR", HandmadePNG.be32(100_000) + HandmadePNG.be32(100_000) + [8, 6, 0, 0, 0])
        bytes.replaceSubrange(8..<33, with: ihdr)
        let decoder = PNGDecoder()
        let infoError = #expect(throws: PNGError.self) { try decoder.info(of: bytes) }
        #expect(infoError?.reason.contains("limit") == true)
        #expect(throws: PNGError.self) { try decoder.decode(bytes, keepIndices: false) }
    }

    @Test("decoding into a space too small for the image is an error, not an overrun")
    func smallSpace() throws {
        let bytes = Self.image(.rgba, depth: 8).encode()
        var space = [UInt8](repeating: 0xAB, count: 13 * 4 * 10 + 8) // one row short, plus a guard
        space.withUnsafeMutableBytes { raw in
            let room = UnsafeMutableRawBufferPointer(rebasing: raw[0..<(13 * 4 * 10)])
            #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes, keepIndices: false, into: room, stride: 13 * 4) }
        }
        #expect(space.suffix(8).allSatisfy { $0 == 0xAB })
    }
}

// MARK: - Fixtures and the independent expectation

extension PNGDecoderTests {
    /// A 13x11 image (not a multiple of 8, so every Adam7 pass is ragged) whose samples
    /// vary in x, y and channel, spanning the whole range of `depth`.
    static func image(_ type: HandmadePNG.ColorType, depth: Int, width: Int = 13, height: Int = 11) -> HandmadePNG {
        let levels = type == .palette ? min(1 << depth, 7) : 1 << depth
        var samples: [[[Int]]] = []
        for y in 0..<height {
            var row: [[Int]] = []
            for x in 0..<width {
                var pixel: [Int] = []
                for c in 0..<type.channels {
                    let mixed: Int = x * 7919 + y * 104_729 + c * 31_337 + x * y * 17
                    pixel.append(mixed % levels)
                }
                row.append(pixel)
            }
            samples.append(row)
        }
        var image = HandmadePNG(width: width, height: height, colorType: type, bitDepth: depth, samples: samples)
        if type == .palette {
            image.palette = (0..<levels).map { (i: Int) -> (UInt8, UInt8, UInt8) in
                (UInt8(i * 40), UInt8(255 - i * 30), UInt8((i * 97) % 256))
            }
            image.transparency = Array([0, 128, 200].prefix(max(1, levels - 1))) // shorter than the palette
        }
        return image
    }

    /// What the decoder should give, by the PNG spec: low depths scale by bit replication,
    /// 16 bits round to 8, gray spreads to RGB, tRNS keys and entries set alpha.
    static func expectedRGBA(_ image: HandmadePNG) -> [UInt8] {
        let max = (1 << image.bitDepth) - 1
        func to8(_ v: Int) -> UInt8 {
            image.bitDepth == 16 ? UInt8((Double(v) * 255 / 65535).rounded()) : UInt8(v * 255 / max)
        }
        var out: [UInt8] = []
        for row in image.samples {
            for s in row {
                switch image.colorType {
                case .gray:
                    let key = image.transparency.map { Int($0[0]) << 8 | Int($0[1]) }
                    out += [to8(s[0]), to8(s[0]), to8(s[0]), s[0] == key ? 0 : 255]
                case .grayAlpha:
                    out += [to8(s[0]), to8(s[0]), to8(s[0]), to8(s[1])]
                case .rgb:
                    let key = image.transparency.map { t in (0..<3).map { Int(t[2 * $0]) << 8 | Int(t[2 * $0 + 1]) } }
                    out += [to8(s[0]), to8(s[1]), to8(s[2]), s == key ? 0 : 255]
                case .rgba:
                    out += s.map(to8)
                case .palette:
                    let entry = image.palette[s[0]]
                    let alphas = image.transparency ?? []
                    out += [entry.0, entry.1, entry.2, s[0] < alphas.count ? alphas[s[0]] : 255]
                }
            }
        }
        return out
    }
}
