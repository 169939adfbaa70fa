/// The pixels of one pyramid level: the frame's box at that zoom, rows packed, in the
/// frame's format. The finest level is the stitched frame itself; each coarser one is made
/// from the one below by `coarser()`.
public struct LevelImage: Sendable {
    /// Where the pixels sit.
    public let level: PyramidLevel
    /// Indices into the frame's palette, or RGBA.
    public let format: PixelFormat
    /// `level.height` rows of `level.width` pixels.
    public let pixels: [UInt8]

    /// Wraps a level's pixels (`width * height * bytesPerPixel` bytes).
    public init(level: PyramidLevel, format: PixelFormat, pixels: [UInt8]) {
        precondition(pixels.count == level.width * level.height * format.bytesPerPixel, "one pixel per place of the box")
        self.level = level
        self.format = format
        self.pixels = pixels
    }

    /// The level one zoom coarser. Each pixel comes from the (up to) four pixels of this
    /// level it covers that lie inside the box:
    /// - palette: the most frequent index, ties to the more opaque colour, then to the
    ///   first in reading order (top-left first). The level keeps the frame's palette:
    ///   averaging the classes of a radar palette would make colours that mean nothing.
    /// - RGBA: the box average with premultiplied alpha (a transparent pixel adds no colour).
    public func coarser() -> LevelImage {
        let target = level.coarser
        var out = [UInt8](repeating: 0, count: target.width * target.height * format.bytesPerPixel)
        switch format {
        case .indexed(let palette):
            var alpha = [UInt8](repeating: 0, count: 256)
            for i in 0..<palette.count { alpha[i] = palette.rgba[i * 4 + 3] }
            Self.modeDownsample(from: self, into: &out, target: target, alpha: alpha)
        case .rgba:
            Self.averageDownsample(from: self, into: &out, target: target)
        }
        return LevelImage(level: target, format: format, pixels: out)
    }

    /// The format tiles are written in: the frame's, except for a palette without a
    /// transparent entry (the parts of edge tiles outside the box must be transparent):
    /// then the palette with one appended, or RGBA when it is full.
    public var tileFormat: PixelFormat {
        guard case .indexed(let palette) = format, palette.transparentIndex == nil else { return format }
        if palette.count < 256 { return .indexed(Palette(rgba: palette.rgba + [0, 0, 0, 0])) }
        return .rgba
    }

    /// Tile (`column`, `row`) of the level, 256 x 256 pixels in `tileFormat`, transparent
    /// outside the box.
    public func tile(column: Int, row: Int) -> [UInt8] {
        let ts = PyramidLevel.tileSize
        let tileFormat = self.tileFormat
        let bpp = tileFormat.bytesPerPixel
        let transparent = tileFormat.transparentPixel ?? [0, 0, 0, 0]
        var out = [UInt8](repeating: transparent[0], count: ts * ts * bpp)
        // The box's part of this tile, in level-local pixels.
        let left = max(level.x0, column * ts), right = min(level.x0 + level.width, (column + 1) * ts)
        let top = max(level.y0, row * ts), bottom = min(level.y0 + level.height, (row + 1) * ts)
        guard left < right, top < bottom else { return out }
        let sourceBpp = format.bytesPerPixel
        let expand: [UInt8]? = {
            // A full palette without transparency: tiles are RGBA, indices looked up.
            if case .indexed(let palette) = format, tileFormat == .rgba { return palette.rgba }
            return nil
        }()
        pixels.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { target in
                for y in top..<bottom {
                    let from = ((y - level.y0) * level.width + (left - level.x0)) * sourceBpp
                    let to = ((y - row * ts) * ts + (left - column * ts)) * bpp
                    if let expand {
                        for x in 0..<(right - left) {
                            let entry = Int(source[from + x]) * 4
                            for c in 0..<4 { target[to + x * 4 + c] = expand[entry + c] }
                        }
                    } else {
                        (target.baseAddress! + to).copyMemory(from: source.baseAddress! + from, byteCount: (right - left) * bpp)
                    }
                }
            }
        }
        return out
    }

    /// Tile (`column`, `row`) as a PNG: written to `path`, or returned when `path` is nil.
    /// `level` is zlib's compression level.
    @discardableResult
    public func encodeTile(column: Int, row: Int, compressionLevel: Int, to path: String?) throws(PNGError) -> [UInt8]? {
        let ts = PyramidLevel.tileSize
        let writer = try PNGWriter(path: path, width: ts, height: ts, format: tileFormat, level: compressionLevel)
        try writer.write(rows: tile(column: column, row: row))
        return try writer.finish()
    }
}

private extension LevelImage {
    static func modeDownsample(from fine: LevelImage, into out: inout [UInt8], target: PyramidLevel, alpha: [UInt8]) {
        let box = fine.level
        fine.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { out in
                var candidates = [UInt8](repeating: 0, count: 4)
                for ty in 0..<target.height {
                    let fy = 2 * (target.y0 + ty) - box.y0
                    for tx in 0..<target.width {
                        let fx = 2 * (target.x0 + tx) - box.x0
                        // The covered pixels inside the box, in reading order.
                        var n = 0
                        for dy in 0...1 where fy + dy >= 0 && fy + dy < box.height {
                            for dx in 0...1 where fx + dx >= 0 && fx + dx < box.width {
                                candidates[n] = source[(fy + dy) * box.width + fx + dx]
                                n += 1
                            }
                        }
                        var best = candidates[0], bestCount = 0, bestAlpha = 0
                        for i in 0..<n {
                            let c = candidates[i]
                            var count = 0
                            for j in 0..<n where candidates[j] == c { count += 1 }
                            let a = Int(alpha[Int(c)])
                            // Strictly better only: an equal later candidate loses to an earlier one.
                            if count > bestCount || (count == bestCount && a > bestAlpha) {
                                best = c
                                bestCount = count
                                bestAlpha = a
                            }
                        }
                        out[ty * target.width + tx] = best
                    }
                }
            }
        }
    }

    static func averageDownsample(from fine: LevelImage, into out: inout [UInt8], target: PyramidLevel) {
        let box = fine.level
        fine.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { out in
                for ty in 0..<target.height {
                    let fy = 2 * (target.y0 + ty) - box.y0
                    for tx in 0..<target.width {
                        let fx = 2 * (target.x0 + tx) - box.x0
                        var n = 0, sumA = 0, sumR = 0, sumG = 0, sumB = 0
                        for dy in 0...1 where fy + dy >= 0 && fy + dy < box.height {
                            for dx in 0...1 where fx + dx >= 0 && fx + dx < box.width {
                                let p = ((fy + dy) * box.width + fx + dx) * 4
                                let a = Int(source[p + 3])
                                sumR += Int(source[p]) * a
                                sumG += Int(source[p + 1]) * a
                                sumB += Int(source[p + 2]) * a
                                sumA += a
                                n += 1
                            }
                        }
                        let o = (ty * target.width + tx) * 4
                        // Premultiplied average, unpremultiplied: colour = Σ(c·a) / Σa.
                        if sumA > 0 {
                            out[o] = UInt8((sumR + sumA / 2) / sumA)
                            out[o + 1] = UInt8((sumG + sumA / 2) / sumA)
                            out[o + 2] = UInt8((sumB + sumA / 2) / sumA)
                        }
                        out[o + 3] = UInt8((sumA + n / 2) / n)
                    }
                }
            }
        }
    }
}
