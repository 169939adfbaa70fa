/// Cuts a frame's pyramid levels band by band from its rows, top to bottom: memory is one
/// band of 256-pixel tile rows per level, so it grows with the frame's width, not its area.
///
/// The finest level's rows go in (`take`); each band, once whole, comes out as a
/// `LevelImage` whose box is the level's part in that row of tiles (`drain`), and its
/// `coarser()` rows go on into the band of the level above. The pixels are the ones the
/// whole-level `coarser()` chain makes: tile rows start at even global rows, so the two
/// fine rows of every coarse row lie in the same band, and a band's tiles are the level's
/// tiles of that row (`LevelImage.tile` takes the box's part of a tile).
public final class PyramidCutter {
    /// The levels cut, coarsest first.
    public let pyramid: FramePyramid
    /// The rows' format (and every level's).
    public let format: PixelFormat
    /// The band being filled at each level (the pyramid's order); nil once a level is whole.
    private var bands: [Band?]
    /// Bands made whole and not drained yet, in the order they were finished.
    private var finished: [LevelImage] = []

    private struct Band {
        /// The level's part in this row of tiles.
        var box: PyramidLevel
        /// Rows filled so far.
        var filled = 0
        var pixels: [UInt8]

        /// The band of `level` in tile row `row`.
        init(_ level: PyramidLevel, row: Int, bytesPerPixel: Int) {
            let ts = PyramidLevel.tileSize
            let top = max(level.y0, row * ts), bottom = min(level.y0 + level.height, (row + 1) * ts)
            box = PyramidLevel(zoom: level.zoom, x0: level.x0, y0: top, width: level.width, height: bottom - top)
            pixels = [UInt8](repeating: 0, count: box.width * box.height * bytesPerPixel)
        }
    }

    /// A cutter for `pyramid`'s levels of rows in `format`.
    public init(pyramid: FramePyramid, format: PixelFormat) {
        self.pyramid = pyramid
        self.format = format
        bands = pyramid.levels.map { Band($0, row: $0.tileRows.lowerBound, bytesPerPixel: format.bytesPerPixel) }
    }

    /// Rows of the finest level still to come.
    public var rowsToCome: Int {
        let finest = pyramid.finest
        guard let band = bands[bands.count - 1] else { return 0 }
        return finest.y0 + finest.height - (band.box.y0 + band.filled)
    }

    /// Rows of the finest level left in the band being filled: reading that many next
    /// finishes a band.
    public var rowsToNextBand: Int {
        guard let band = bands[bands.count - 1] else { return 0 }
        return band.box.height - band.filled
    }

    /// Takes the finest level's next `count` rows (`width * bytesPerPixel` bytes each,
    /// `stride` apart).
    public func take(rows: UnsafeRawPointer, count: Int, stride: Int) throws(ImageError) {
        guard count <= rowsToCome else {
            throw ImageError(.decode, "\(count) rows given, \(rowsToCome) left in the frame", format: "level")
        }
        append(rows: rows, count: count, stride: stride, depth: bands.count - 1)
    }

    /// The bands made whole since the last call, finest level first within each call's order.
    public func drain() -> [LevelImage] {
        defer { finished.removeAll() }
        return finished
    }
}

private extension PyramidCutter {
    /// Appends rows to the band of the level at `depth`, finishing bands (and feeding the
    /// level above) as they fill.
    func append(rows: UnsafeRawPointer, count: Int, stride: Int, depth: Int) {
        let rowBytes = pyramid.levels[depth].width * format.bytesPerPixel
        var done = 0
        while done < count, var band = bands[depth] {
            let n = min(count - done, band.box.height - band.filled)
            band.pixels.withUnsafeMutableBytes { out in
                for i in 0..<n {
                    (out.baseAddress! + (band.filled + i) * rowBytes).copyMemory(from: rows + (done + i) * stride, byteCount: rowBytes)
                }
            }
            band.filled += n
            done += n
            guard band.filled == band.box.height else {
                bands[depth] = band
                continue
            }
            let image = LevelImage(level: band.box, format: format, pixels: band.pixels)
            finished.append(image)
            let level = pyramid.levels[depth]
            let nextRow = band.box.y0 / PyramidLevel.tileSize + 1
            bands[depth] = nextRow <= level.tileRows.upperBound ? Band(level, row: nextRow, bytesPerPixel: format.bytesPerPixel) : nil
            if depth > 0 {
                let coarse = image.coarser()
                coarse.pixels.withUnsafeBytes { pixels in
                    append(rows: pixels.baseAddress!, count: coarse.level.height, stride: coarse.level.width * format.bytesPerPixel, depth: depth - 1)
                }
            }
        }
    }
}
