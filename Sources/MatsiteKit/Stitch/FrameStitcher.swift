import Foundation
import MatsiteImaging

/// Stitches one frame's tiles into a PNG in the frames folder, band by band on the CPU
/// pool, named for its content (`NNNN-<sha256 prefix>.png`).
struct FrameStitcher: Sendable {
    /// A version tag mixed into every frame's input hash: bump it when stitching changes output.
    static let renderVersion = "matsite-stitch-3"

    /// Frame geometry.
    let layout: FrameLayout
    /// Which tile of the grid each position of the tile list is.
    let grid: TileGrid
    /// zlib level of the frame files.
    let compressionLevel: Int
    /// What a tile that cannot be had becomes.
    let missing: MissingPolicy
    /// Where stitching time is summed.
    let timings: StageTimings

    private var stitcher: Stitcher { Stitcher() }

    /// A stitched frame, in its folder under its final name.
    struct Frame: Sendable {
        var name: String
        var sha256: String
        var bytes: Int
        /// Tiles whose header was fine but whose pixels were not, drawn transparent.
        var drawnTransparent: [(index: Int, reason: String)]
        /// The poster, when asked for.
        var poster: [UInt8]?
    }

    /// What stitching gave: the frame, or the tiles that fail a full decode (with
    /// `missing: fail`, or when a bad tile stops the stitch).
    enum Outcome: Sendable {
        case stitched(Frame)
        case undecodable([(index: Int, reason: String)])
    }

    /// What went into a frame, hashed: these settings and each tile's digest (or its
    /// absence), in order. Equal hashes mean byte-identical frames.
    func inputHash(_ tiles: [TileIdentity]) -> String {
        InputHash.hash(
            "\(Self.renderVersion) \(layout.width)x\(layout.height)+\(layout.originX)+\(layout.originY) s\(layout.shift) "
                + "t\(layout.tileSize) z\(compressionLevel) m\(missing.rawValue)", tiles)
    }

    /// Header checks (sizes, damaged headers) and the frame's pixel format. Tiles with a
    /// bad header are emptied and returned with why.
    func checkHeaders(_ tiles: inout [TileContent]) async throws -> (format: PixelFormat, bad: [(index: Int, reason: String)]) {
        let stitcher = self.stitcher, layout = self.layout, loaded = tiles
        let (format, failures) = try await CPUPool.shared.run { stitcher.plan(layout: layout, tiles: loaded) }
        let bad: [(index: Int, reason: String)] = failures.map { (grid.index(column: $0.column, row: $0.row), $0.reason) }
        for (i, _) in bad { tiles[i] = .empty }
        return (format, bad)
    }

    /// Stitches frame `index` into `folder`, with a poster sampled on the way when asked.
    func stitch(_ tiles: [TileContent], format: PixelFormat, index: Int, into folder: URL, poster: Bool) async throws -> Outcome {
        let temporary = folder.appendingPathComponent(String(format: ".%04d.tmp.png", index))
        let stitcher = self.stitcher, layout = self.layout, level = compressionLevel, timings = self.timings
        let tolerate = missing == .transparent
        let report: StitchReport, sample: [UInt8]?
        do {
            (report, sample) = try await CPUPool.shared.run { () throws -> (StitchReport, [UInt8]?) in
                let started = ContinuousClock.now
                let writer = try PNGWriter(path: temporary.path, width: layout.width, height: layout.height, format: format, level: level)
                let sampler = poster ? RowSampler(sourceWidth: layout.width, sourceHeight: layout.height, format: format) : nil
                let report = try stitcher.stitch(
                    layout: layout, tiles: tiles, format: format, to: writer,
                    tolerateBadTiles: tolerate, sampler: sampler)
                try writer.finish()
                let sample = try sampler?.encode()
                timings.add(stitch: started.duration(to: .now))
                return (report, sample)
            }
        } catch is TileFailure {
            // A tile whose header was fine but whose pixels are not (truncated or corrupt
            // IDAT, a decompression bomb): the stitch stops at the first one. Name every
            // such tile of the frame, like any other failed tile.
            try? FileManager.default.removeItem(at: temporary)
            return .undecodable(try await CPUPool.shared.run { Self.undecodable(tiles, stitcher: stitcher) })
        }
        let drawn: [(index: Int, reason: String)] = report.failedTiles.map { (grid.index(column: $0.column, row: $0.row), $0.reason) }
        let (sha, size) = try FileHash.sha256(of: temporary)
        let name = String(format: "%04d-", index) + sha.prefix(8) + ".png"
        try FileManager.default.moveItem(at: temporary, to: folder.appendingPathComponent(name))
        return .stitched(Frame(name: name, sha256: sha, bytes: size, drawnTransparent: drawn, poster: sample))
    }
}

private extension FrameStitcher {
    /// The tiles (by position) that fail a full decode, with why.
    static func undecodable(_ tiles: [TileContent], stitcher: Stitcher) -> [(index: Int, reason: String)] {
        var failures: [(index: Int, reason: String)] = []
        for (i, tile) in tiles.enumerated() {
            guard case .encoded(let bytes) = tile else { continue }
            do throws(PNGError) { _ = try stitcher.decoder.decode(bytes, keepIndices: false) } catch { failures.append((i, error.reason)) }
        }
        return failures
    }
}
