/// A source tile's bytes, or nothing (a tile the source does not have).
public enum TileContent: Sendable {
    /// Encoded tile bytes: PNG, JPEG or WebP, told apart by their first bytes.
    case encoded([UInt8])
    /// No tile: drawn transparent.
    case empty

    /// Encoded PNG bytes (the same as `encoded`: the format is read from the bytes).
    public static func png(_ bytes: [UInt8]) -> TileContent { .encoded(bytes) }
}

/// A tile that could not be used, by its place in the layout's grid.
public struct UnusableTileError: Swift.Error, Sendable, CustomStringConvertible {
    /// Source tile column (unwrapped, as in `FrameLayout.columns`).
    public let column: Int
    /// Source tile row.
    public let row: Int
    /// What was wrong with it.
    public let problem: Problem

    /// What can be wrong with a tile that arrived.
    public enum Problem: Sendable, Equatable {
        /// Its pixel size is not the layout's tile size.
        case wrongSize(width: Int, height: Int, expected: Int)
        /// It does not decode.
        case undecodable(ImageError)
    }

    /// What was wrong with it, in words.
    public var reason: String {
        switch problem {
        case .wrongSize(let width, let height, let expected): "tile is \(width)x\(height) pixels, expected \(expected)x\(expected)"
        case .undecodable(let error): error.reason
        }
    }

    public var description: String { "tile \(column)/\(row): \(reason)" }
}

/// What a stitch did besides writing rows.
public struct StitchReport: Sendable {
    /// Tiles that failed to decode and were drawn transparent (only when tolerated).
    public var failedTiles: [UnusableTileError] = []
    /// The format the frame was written in.
    public var format: PixelFormat
    /// True when every pixel of the frame is fully transparent (nothing drawn at all).
    public var blank = false
}

/// Stitches one frame from source tiles, one band of tiles at a time, straight into a
/// `PNGWriter`: memory grows with the frame's width, never with its area.
public struct Stitcher: Sendable {
    /// The decoders (and their limits) used for every tile.
    public var decoder: TileDecoder

    /// Creates a stitcher.
    public init(decoder: TileDecoder = TileDecoder()) {
        self.decoder = decoder
    }

    /// Creates a stitcher whose PNG decoder's limits apply to every tile format.
    public init(decoder: PNGDecoder) {
        self.decoder = TileDecoder(decoder)
    }

    /// Chooses the frame's format, smallest first: indexed with the tiles' own palette when
    /// all tiles are palette PNGs sharing one (with a transparent entry if any tile is
    /// empty); else indexed with a palette of the frame's own colours when the frame shows at
    /// most 256 distinct RGBA colours (whatever the tiles' formats); else RGBA.
    ///
    /// Reads every tile's header; counting colours also decodes tiles (one at a time, only
    /// their pixels inside the frame count), stopping at the 257th colour. Tiles of the
    /// wrong size or that fail to decode are returned as failures (and count as transparent).
    public func plan(layout: FrameLayout, tiles: [TileContent]) -> (format: PixelFormat, failures: [UnusableTileError]) {
        var palette: Palette?
        var sharedPalette = true
        var failures: [UnusableTileError] = []
        var readable = [Bool](repeating: false, count: tiles.count)
        for (i, tile) in tiles.enumerated() {
            guard case .encoded(let bytes) = tile else { continue }
            let (column, row) = Self.cell(i, layout)
            do throws(ImageError) {
                let info = try decoder.info(of: bytes)
                guard info.width == layout.tileSize, info.height == layout.tileSize else {
                    failures.append(
                        UnusableTileError(
                            column: column, row: row, problem: .wrongSize(width: info.width, height: info.height, expected: layout.tileSize)))
                    continue
                }
                readable[i] = true
                if let tilePalette = info.palette {
                    if palette == nil { palette = tilePalette } else if palette != tilePalette { sharedPalette = false }
                } else {
                    sharedPalette = false
                }
            } catch {
                failures.append(UnusableTileError(column: column, row: row, problem: .undecodable(error)))
            }
        }
        let anyEmpty = readable.contains(false)
        if sharedPalette {
            guard let palette else { return (.indexed(Palette(rgba: [0, 0, 0, 0])), failures) }
            if !anyEmpty || palette.transparentIndex != nil { return (.indexed(palette), failures) }
        }
        // Count the colours the frame shows (every cell shows some pixels of its tile).
        var table = ColorTable()
        if anyEmpty { _ = table.insert(0) }
        let ts = layout.tileSize
        var scratch = [UInt8](repeating: 0, count: ts * ts * 4)
        var fits = true
        for (i, tile) in tiles.enumerated() where readable[i] && fits {
            guard case .encoded(let bytes) = tile else { continue }
            let (column, row) = Self.cell(i, layout)
            let window = Self.visible(column: column, row: row, layout: layout)
            scratch.withUnsafeMutableBytes { buffer in
                do throws(ImageError) {
                    _ = try decoder.decode(bytes, keepIndices: false, into: buffer, stride: ts * 4)
                    fits = table.insert(
                        rows: buffer.baseAddress! + (window.y.lowerBound * ts + window.x.lowerBound) * 4,
                        width: window.x.count, height: window.y.count, stride: ts * 4)
                } catch {
                    failures.append(UnusableTileError(column: column, row: row, problem: .undecodable(error)))
                    fits = table.insert(0)
                }
            }
        }
        return (fits ? .indexed(table.orderedPalette()) : .rgba, failures)
    }

    /// Writes the frame. `tiles` is row-major over `layout.rows` x `layout.columns`.
    /// With `tolerateBadTiles`, a tile that fails to decode is drawn transparent and
    /// reported; otherwise the first such tile throws. `sampler`, when given, sees every
    /// output row (to build a poster while streaming).
    public func stitch(
        layout: FrameLayout, tiles: [TileContent], format: PixelFormat, to writer: some RowSink,
        tolerateBadTiles: Bool, sampler: RowSampler? = nil
    ) throws -> StitchReport {
        precondition(tiles.count == layout.tileCount, "one tile per grid cell")
        var report = StitchReport(format: format)
        let bpp = format.bytesPerPixel
        let ts = layout.tileSize
        let columns = layout.columns
        let bandStride = columns.count * ts * bpp
        let transparent = format.transparentPixel ?? [0, 0, 0, 0]
        var band = [UInt8](repeating: 0, count: bandStride * ts)
        var scaled = [UInt8](repeating: 0, count: layout.shift > 0 ? layout.width * bpp : 0)
        let firstColumnPixel = columns.lowerBound * ts
        // An indexed frame takes a palette PNG tile's indices as they are when the tile
        // has the frame's own palette; any other tile is decoded to RGBA and mapped.
        var framePalette: Palette?
        if case .indexed(let palette) = format { framePalette = palette }
        var table = framePalette.map(ColorTable.init(palette:))
        let unknownIndex = framePalette?.transparentIndex ?? 0
        var scratch = [UInt8](repeating: 0, count: framePalette == nil ? 0 : ts * ts * 4)
        // Whether anything shows, read from the rows as they are written.
        var scan = TransparencyScan(format: format)

        for (rowIndex, row) in layout.rows.enumerated() {
            try band.withUnsafeMutableBytes { bandBytes in
                for (columnIndex, column) in columns.enumerated() {
                    let cell = bandBytes.baseAddress! + columnIndex * ts * bpp
                    let tile = tiles[rowIndex * columns.count + columnIndex]
                    var drawn = false
                    if case .encoded(let bytes) = tile {
                        let space = UnsafeMutableRawBufferPointer(start: cell, count: bandBytes.count - columnIndex * ts * bpp)
                        do throws(ImageError) {
                            let size: (width: Int, height: Int)
                            if let framePalette, try decoder.info(of: bytes).palette != framePalette {
                                let decoded: Result<(width: Int, height: Int), ImageError> = scratch.withUnsafeMutableBytes { buffer in
                                    do throws(ImageError) {
                                        let size = try decoder.decode(bytes, keepIndices: false, into: buffer, stride: ts * 4)
                                        if size.width == ts && size.height == ts {
                                            Self.map(
                                                buffer.baseAddress!, into: cell, stride: bandStride, table: &table!,
                                                window: Self.visible(column: column, row: row, layout: layout),
                                                tileSize: ts, unknown: unknownIndex)
                                        }
                                        return .success(size)
                                    } catch { return .failure(error) }
                                }
                                size = try decoded.get()
                            } else {
                                size = try decoder.decode(bytes, keepIndices: bpp == 1, into: space, stride: bandStride)
                            }
                            guard size.width == ts, size.height == ts else {
                                throw ImageError(.decode, "tile is \(size.width)x\(size.height) pixels, expected \(ts)x\(ts)")
                            }
                            drawn = true
                        } catch {
                            let failure = UnusableTileError(column: column, row: row, problem: .undecodable(error))
                            guard tolerateBadTiles else { throw failure }
                            report.failedTiles.append(failure)
                        }
                    }
                    if !drawn { Self.fill(cell, rows: ts, width: ts, stride: bandStride, pixel: transparent) }
                }
            }
            // Output rows whose source row lies in this band.
            let sourceTop = row * ts
            let firstY = max(layout.originY, sourceTop << layout.shift)
            let endY = min(layout.originY + layout.height, (sourceTop + ts) << layout.shift)
            guard firstY < endY else { continue }
            try band.withUnsafeBytes { bandBytes in
                if layout.shift == 0 {
                    let start = (firstY - sourceTop) * bandStride + (layout.originX - firstColumnPixel) * bpp
                    scan.look(rows: bandBytes.baseAddress! + start, count: endY - firstY, stride: bandStride, width: layout.width)
                    try writer.write(rows: bandBytes.baseAddress! + start, count: endY - firstY, stride: bandStride)
                    if let sampler {
                        for y in firstY..<endY {
                            sampler.take(
                                row: y - layout.originY,
                                pixels: bandBytes.baseAddress! + start + (y - firstY) * bandStride)
                        }
                    }
                    return
                }
                var lastSourceRow = -1
                for y in firstY..<endY {
                    let sourceRow = (y >> layout.shift) - sourceTop
                    if sourceRow != lastSourceRow {
                        Self.scaleRow(
                            from: bandBytes.baseAddress! + sourceRow * bandStride, into: &scaled,
                            layout: layout, firstColumnPixel: firstColumnPixel, bpp: bpp)
                        lastSourceRow = sourceRow
                    }
                    try scaled.withUnsafeBytes { rowBytes in
                        scan.look(rows: rowBytes.baseAddress!, count: 1, stride: rowBytes.count, width: layout.width)
                        try writer.write(rows: rowBytes.baseAddress!, count: 1, stride: rowBytes.count)
                        sampler?.take(row: y - layout.originY, pixels: rowBytes.baseAddress!)
                    }
                }
            }
        }
        report.blank = !scan.sawVisible
        return report
    }
}

private extension Stitcher {
    /// Grid column and row of tile `i` (row-major over the layout's grid).
    static func cell(_ i: Int, _ layout: FrameLayout) -> (column: Int, row: Int) {
        let columns = layout.columns
        return (columns.lowerBound + i % columns.count, layout.rows.lowerBound + i / columns.count)
    }

    /// The tile's own pixel columns and rows that the frame shows (source pixels: with
    /// overzoom each is drawn 2^shift times).
    static func visible(column: Int, row: Int, layout: FrameLayout) -> (x: Range<Int>, y: Range<Int>) {
        let ts = layout.tileSize
        let firstX = layout.originX >> layout.shift, lastX = (layout.originX + layout.width - 1) >> layout.shift
        let firstY = layout.originY >> layout.shift, lastY = (layout.originY + layout.height - 1) >> layout.shift
        let x0 = max(firstX - column * ts, 0), x1 = min(lastX - column * ts + 1, ts)
        let y0 = max(firstY - row * ts, 0), y1 = min(lastY - row * ts + 1, ts)
        return (x0..<max(x0, x1), y0..<max(y0, y1))
    }

    /// Writes the palette index of each shown RGBA pixel of a tile into its band cell; a
    /// colour the palette lacks (possible only when the format was not planned from these
    /// tiles) becomes `unknown`.
    static func map(
        _ rgba: UnsafeRawPointer, into cell: UnsafeMutableRawPointer, stride: Int, table: inout ColorTable,
        window: (x: Range<Int>, y: Range<Int>), tileSize: Int, unknown: UInt8
    ) {
        for y in window.y {
            let source = rgba + y * tileSize * 4
            let target = cell + y * stride
            for x in window.x {
                let color = source.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                target.storeBytes(of: table.index(of: color) ?? unknown, toByteOffset: x, as: UInt8.self)
            }
        }
    }

    static func fill(_ start: UnsafeMutableRawPointer, rows: Int, width: Int, stride: Int, pixel: [UInt8]) {
        for y in 0..<rows {
            let row = start + y * stride
            if pixel.allSatisfy({ $0 == pixel[0] }) {
                row.initializeMemory(as: UInt8.self, repeating: pixel[0], count: width * pixel.count)
            } else {
                for x in 0..<width {
                    for (i, byte) in pixel.enumerated() { row.storeBytes(of: byte, toByteOffset: x * pixel.count + i, as: UInt8.self) }
                }
            }
        }
    }

    static func scaleRow(
        from source: UnsafeRawPointer, into row: inout [UInt8], layout: FrameLayout,
        firstColumnPixel: Int, bpp: Int
    ) {
        row.withUnsafeMutableBytes { out in
            for x in 0..<layout.width {
                let sourceX = ((layout.originX + x) >> layout.shift) - firstColumnPixel
                (out.baseAddress! + x * bpp).copyMemory(from: source + sourceX * bpp, byteCount: bpp)
            }
        }
    }
}
