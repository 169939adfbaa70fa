import Foundation
import MatsiteImaging

/// Stitches one frame's tiles into a file in the frames folder, on the CPU pool, named by
/// its content only (`<sha256 prefix>.<png|jpg|webp>`, `FrameName`): a PNG streamed band by
/// band, or a JPEG/WebP encoded from the whole frame when the animation's `format:` picks one.
struct FrameStitcher: Sendable {
    /// A version tag mixed into every frame's input hash: bump it when stitching changes output.
    static let renderVersion = "matsite-stitch-5"

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
    /// `format:` and `quality:`.
    var frameFormat = FrameFormatChoice()
    /// Frames stitched from lossy and lossless tiles together, for the build's one-line note.
    let mixed = MixedTiles()

    private var stitcher: Stitcher { Stitcher() }

    /// A stitched frame, in its folder under its final name (shared with any other frame of
    /// the loop whose bytes are the same).
    struct Frame: Sendable {
        var name: String
        /// The format it was written in.
        var format: FrameFormat
        var sha256: String
        var bytes: Int
        /// Tiles whose header was fine but whose pixels were not, drawn transparent.
        var drawnTransparent: [(index: Int, problem: TileProblem)]
        /// The poster, when asked for.
        var poster: [UInt8]?
        /// Every pixel fully transparent.
        var blank = false
    }

    /// What stitching gave: the frame, or the tiles that fail a full decode (with
    /// `missing: fail`, or when a bad tile stops the stitch).
    enum Outcome: Sendable {
        case stitched(Frame)
        case undecodable([(index: Int, problem: TileProblem)])
    }

    /// What went into a frame, hashed: these settings and each tile's digest (or its
    /// absence), in order. Equal hashes mean byte-identical frames.
    func inputHash(_ tiles: [TileIdentity]) -> String {
        InputHash.hash(
            "\(Self.renderVersion) \(layout.width)x\(layout.height)+\(layout.originX)+\(layout.originY) s\(layout.shift) "
                + "t\(layout.tileSize) z\(compressionLevel) m\(missing.rawValue) f\(frameFormat.tag)", tiles)
    }

    /// Where a frame's tiles come from, with these settings, hashed: equal hashes mean a
    /// frame made again would be asked of the same URLs and made alike.
    func sourceHash(_ tiles: [TileLocator]) -> String {
        var hash = SHA256()
        hash.update(Array(inputHash([]).utf8))
        for tile in tiles { hash.update(Array((tile.description + "\n").utf8)) }
        return hash.hexDigest()
    }

    /// Header checks (sizes, damaged headers) and the frame's pixel format. Tiles with a
    /// bad header are emptied and returned with why.
    func checkHeaders(_ tiles: inout [TileContent]) async throws -> (format: PixelFormat, bad: [(index: Int, problem: TileProblem)]) {
        let stitcher = self.stitcher, layout = self.layout, loaded = tiles
        let (format, failures) = try await CPUPool.shared.run { stitcher.plan(layout: layout, tiles: loaded) }
        let bad: [(index: Int, problem: TileProblem)] = failures.map { (grid.index(column: $0.column, row: $0.row), TileProblem($0.problem)) }
        for (i, _) in bad { tiles[i] = .empty }
        return (format, bad)
    }

    /// Stitches frame `index` into `folder`, with a poster sampled on the way when asked.
    func stitch(_ tiles: [TileContent], format: PixelFormat, index: Int, into folder: URL, poster: Bool) async throws -> Outcome {
        let temporary = folder.appendingPathComponent(String(format: ".%04d.tmp", index))
        let stitcher = self.stitcher, layout = self.layout, level = compressionLevel, timings = self.timings
        let choice = frameFormat
        let tolerate = missing == .transparent
        let report: StitchReport, sample: [UInt8]?, written: FrameFormat
        do {
            (report, sample, written) = try await CPUPool.shared.run { () throws -> (StitchReport, [UInt8]?, FrameFormat) in
                let started = ContinuousClock.now
                defer { timings.add(stitch: started.duration(to: .now)) }
                let kinds = FrameFormatChoice.tileKinds(tiles, decoder: stitcher.decoder)
                let lossy = choice.wantsLossy(pixelFormat: format, tiles: kinds)
                if choice.setting == .auto && !format.isIndexedFrame && kinds.lossy > 0 && kinds.lossless > 0 { mixed.add(kinds, lossy: lossy) }
                guard lossy else {
                    let writer = try PNGWriter(path: temporary.path, width: layout.width, height: layout.height, format: format, level: level)
                    let sampler = poster ? RowSampler(sourceWidth: layout.width, sourceHeight: layout.height, format: format) : nil
                    let report = try stitcher.stitch(
                        layout: layout, tiles: tiles, format: format, to: writer, tolerateBadTiles: tolerate, sampler: sampler)
                    try writer.finish()
                    return (report, try sampler?.encode(), .png)
                }
                // JPEG and WebP encode a whole picture: stitch RGBA into memory, then encode.
                let buffer = FrameBuffer(width: layout.width, height: layout.height)
                let sampler = poster ? RowSampler(sourceWidth: layout.width, sourceHeight: layout.height, format: .rgba) : nil
                let report = try stitcher.stitch(
                    layout: layout, tiles: tiles, format: .rgba, to: buffer, tolerateBadTiles: tolerate, sampler: sampler)
                let chosen = choice.lossyFormat(
                    opaque: buffer.isOpaque, sourceQuality: FrameFormatChoice.tilesQuality(tiles, decoder: stitcher.decoder))
                try FileWrite.write(try buffer.encode(chosen), to: temporary)
                return (report, try sampler?.encode(as: chosen), chosen)
            }
        } catch is UnusableTileError {
            // A tile whose header was fine but whose pixels are not (truncated or corrupt
            // IDAT, a decompression bomb): the stitch stops at the first one. Name every
            // such tile of the frame, like any other failed tile.
            try? FileManager.default.removeItem(at: temporary)
            return .undecodable(try await CPUPool.shared.run { Self.undecodable(tiles, stitcher: stitcher) })
        }
        let drawn: [(index: Int, problem: TileProblem)] = report.failedTiles.map { (grid.index(column: $0.column, row: $0.row), TileProblem($0.problem)) }
        let (sha, size) = try FileHash.sha256(of: temporary)
        let name = FrameName.file(sha256: sha, extension: written.fileExtension)
        try Self.place(temporary, at: folder.appendingPathComponent(name))
        return .stitched(
            Frame(name: name, format: written, sha256: sha, bytes: size, drawnTransparent: drawn, poster: sample, blank: report.blank))
    }
}

private extension FrameStitcher {
    /// Gives a finished frame file its name. The name is the content: when another frame of
    /// the loop with the same bytes got there first, its file serves both (`link` never
    /// replaces, so a file kept from the previous build keeps its inode).
    static func place(_ temporary: URL, at target: URL) throws {
        defer { try? FileManager.default.removeItem(at: temporary) }
        let result = Foundation.link(temporary.path, target.path)
        let code = errno
        if result == -1 && code != EEXIST {
            throw SystemCallError("cannot name the frame file \(target.path)", call: "link", errno: code)
        }
    }

    /// The tiles (by position) that fail a full decode, with why.
    static func undecodable(_ tiles: [TileContent], stitcher: Stitcher) -> [(index: Int, problem: TileProblem)] {
        var failures: [(index: Int, problem: TileProblem)] = []
        for (i, tile) in tiles.enumerated() {
            guard case .encoded(let bytes) = tile else { continue }
            do throws(PNGError) { _ = try stitcher.decoder.decode(bytes, keepIndices: false) } catch { failures.append((i, .undecodable(error.reason))) }
        }
        return failures
    }
}

/// Counts the frames an animation's build stitched from lossy and lossless tiles together,
/// and what `format: auto` made of them, for one report at the end of the stitch.
final class MixedTiles: Sendable {
    private let counts = LockedBox((frames: 0, lossy: 0, lossless: 0, writtenLossy: 0))

    func add(_ kinds: TileKinds, lossy: Bool) {
        counts.withLock {
            $0.frames += 1
            $0.lossy += kinds.lossy
            $0.lossless += kinds.lossless
            if lossy { $0.writtenLossy += 1 }
        }
    }

    /// What was counted, or nil when no frame was mixed.
    func report(animation: String) -> MixedTilesReport? {
        let c = counts.withLock { $0 }
        guard c.frames > 0 else { return nil }
        return MixedTilesReport(animation: animation, frames: c.frames, lossyTiles: c.lossy, losslessTiles: c.lossless, framesWrittenLossy: c.writtenLossy)
    }
}

private extension PixelFormat {
    var isIndexedFrame: Bool {
        if case .indexed = self { return true }
        return false
    }
}

extension TileProblem {
    /// The stitcher's finding about a tile.
    init(_ problem: UnusableTileError.Problem) {
        switch problem {
        case .wrongSize(let width, let height, let expected): self = .wrongSize(width: width, height: height, expected: expected)
        case .undecodable(let error): self = .undecodable(error.reason)
        }
    }
}
