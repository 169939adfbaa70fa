/// A source tile's bytes, or nothing (a tile the source does not have).
public enum TileContent: Sendable {
    /// Encoded PNG bytes.
    case png([UInt8])
    /// No tile: drawn transparent.
    case empty
}

/// A tile that could not be used, by its place in the layout's grid.
public struct TileFailure: Swift.Error, Sendable, CustomStringConvertible {
    /// Source tile column (unwrapped, as in `FrameLayout.columns`).
    public let column: Int
    /// Source tile row.
    public let row: Int
    /// What was wrong with it.
    public let reason: String

    public var description: String { "tile \(column)/\(row): \(reason)" }
}

/// What a stitch did besides writing rows.
public struct StitchReport: Sendable {
    /// Tiles that failed to decode and were drawn transparent (only when tolerated).
    public var failedTiles: [TileFailure] = []
    /// The format the frame was written in.
    public var format: PixelFormat
}

/// Stitches one frame from source tiles, one band of tiles at a time, straight into a
/// `PNGWriter`: memory grows with the frame's width, never with its area.
public struct Stitcher: Sendable {
    /// The decoder (and its limits) used for every tile.
    public var decoder: PNGDecoder

    /// Creates a stitcher.
    public init(decoder: PNGDecoder = PNGDecoder()) {
        self.decoder = decoder
    }

    /// Reads every tile's header and chooses the frame's format: indexed when all tiles
    /// share one palette (and it has a transparent entry if any tile is empty), else RGBA.
    /// Tiles of the wrong size or with unreadable headers are returned as failures.
    public func plan(layout: FrameLayout, tiles: [TileContent]) -> (format: PixelFormat, failures: [TileFailure]) {
        var palette: Palette?
        var indexed = true
        var anyEmpty = false
        var failures: [TileFailure] = []
        let columns = layout.columns
        for (i, tile) in tiles.enumerated() {
            guard case .png(let bytes) = tile else { anyEmpty = true; continue }
            let column = columns.lowerBound + i % columns.count
            let row = layout.rows.lowerBound + i / columns.count
            do {
                let info = try decoder.info(of: bytes)
                guard info.width == layout.tileSize, info.height == layout.tileSize else {
                    failures.append(TileFailure(column: column, row: row, reason:
                        "tile is \(info.width)x\(info.height) pixels, expected \(layout.tileSize)x\(layout.tileSize)"))
                    continue
                }
                if let tilePalette = info.palette, info.colorType == 3 {
                    if palette == nil { palette = tilePalette } else if palette != tilePalette { indexed = false }
                } else {
                    indexed = false
                }
            } catch {
                failures.append(TileFailure(column: column, row: row, reason: error.reason))
            }
        }
        if !failures.isEmpty { anyEmpty = true }
        guard indexed else { return (.rgba, failures) }
        guard let palette else { return (.indexed(Palette(rgba: [0, 0, 0, 0])), failures) }
        if anyEmpty && palette.transparentIndex == nil { return (.rgba, failures) }
        return (.indexed(palette), failures)
    }

    /// Writes the frame. `tiles` is row-major over `layout.rows` x `layout.columns`.
    /// With `tolerateBadTiles`, a tile that fails to decode is drawn transparent and
    /// reported; otherwise the first such tile throws. `sampler`, when given, sees every
    /// output row (to build a poster while streaming).
    public func stitch(layout: FrameLayout, tiles: [TileContent], format: PixelFormat, to writer: PNGWriter,
                       tolerateBadTiles: Bool, sampler: RowSampler? = nil) throws -> StitchReport {
        precondition(tiles.count == layout.tileCount, "one tile per grid cell")
        var report = StitchReport(format: format)
        let bpp = format.bytesPerPixel
        let ts = layout.tileSize
        let columns = layout.columns
        let bandStride = columns.count * ts * bpp
        let transparent = format.transparentPixel ?? [0, 0, 0, 0]
        var band = [UInt8](repeating: 0, count: bandStride * ts)
        var scaled = [UInt8](repeating: 0, count: layout.shift > 0 ? layout.width * bpp : 0)
        let keepIndices = bpp == 1
        let firstColumnPixel = columns.lowerBound * ts

        for (rowIndex, row) in layout.rows.enumerated() {
            try band.withUnsafeMutableBytes { bandBytes in
                for (columnIndex, column) in columns.enumerated() {
                    let cell = bandBytes.baseAddress! + columnIndex * ts * bpp
                    let tile = tiles[rowIndex * columns.count + columnIndex]
                    var drawn = false
                    if case .png(let bytes) = tile {
                        let space = UnsafeMutableRawBufferPointer(start: cell, count: bandBytes.count - columnIndex * ts * bpp)
                        do throws(PNGError) {
                            let info = try decoder.decode(bytes, keepIndices: keepIndices, into: space, stride: bandStride)
                            guard info.width == ts, info.height == ts else {
                                throw PNGError(.decode, "tile is \(info.width)x\(info.height) pixels, expected \(ts)x\(ts)")
                            }
                            drawn = true
                        } catch {
                            let failure = TileFailure(column: column, row: row, reason: error.reason)
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
                    try writer.write(rows: bandBytes.baseAddress! + start, count: endY - firstY, stride: bandStride)
                    if let sampler {
                        for y in firstY..<endY {
                            sampler.take(row: y - layout.originY,
                                         pixels: bandBytes.baseAddress! + start + (y - firstY) * bandStride)
                        }
                    }
                    return
                }
                var lastSourceRow = -1
                for y in firstY..<endY {
                    let sourceRow = (y >> layout.shift) - sourceTop
                    if sourceRow != lastSourceRow {
                        Self.scaleRow(from: bandBytes.baseAddress! + sourceRow * bandStride, into: &scaled,
                                      layout: layout, firstColumnPixel: firstColumnPixel, bpp: bpp)
                        lastSourceRow = sourceRow
                    }
                    try scaled.withUnsafeBytes { rowBytes in
                        try writer.write(rows: rowBytes.baseAddress!, count: 1, stride: rowBytes.count)
                        sampler?.take(row: y - layout.originY, pixels: rowBytes.baseAddress!)
                    }
                }
            }
        }
        return report
    }
}

private extension Stitcher {
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

    static func scaleRow(from source: UnsafeRawPointer, into row: inout [UInt8], layout: FrameLayout,
                         firstColumnPixel: Int, bpp: Int) {
        row.withUnsafeMutableBytes { out in
            for x in 0..<layout.width {
                let sourceX = ((layout.originX + x) >> layout.shift) - firstColumnPixel
                (out.baseAddress! + x * bpp).copyMemory(from: source + sourceX * bpp, byteCount: bpp)
            }
        }
    }
}
