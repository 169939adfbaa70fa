import Foundation
import MatsiteImaging

/// Publishes each frame's reduced copies beside it (`levels:`, docs/player.md "Reduced
/// levels"): `frames/<hash>/r1.<ext>` is the frame halved, `r2` halved again, down to the
/// first at most `ReducedLevelsSetting.coarsestMaxEdge` pixels on its longer side, in the
/// frame's content-named folder, so they are as immutable as the frame.
///
/// Each halving is the pyramid levels' (`LevelImage.coarser`): a palette frame keeps its
/// palette (the most frequent of the four pixels, ties to the more opaque colour, then to
/// the first in reading order), an RGBA frame takes the premultiplied box average. The pairs
/// are the frame's own columns and rows from its top-left (`FramePyramid(halving:)`): an odd
/// size gives ceil(size / 2) pixels, the last made from the one column or row there is.
///
/// A frame is read once, band by band (`PyramidCutter`), each band halved into the next
/// level's as it fills, every copy written as its rows come: a PNG frame's copies are PNGs in
/// its format (palette or RGBA) at the frames' compression level, written row by row; a JPEG
/// frame's are JPEGs at the quality the frame file's tables say; a WebP frame's are WebP,
/// lossless for a lossless frame, else at the frames' `quality` (WebP's default without
/// one). One frame is one job on the CPU pool; frames run side by side.
///
/// A frame made from the same inputs as a previous frame published with copies of the same
/// sizes gets those files hard-linked: nothing decoded or encoded.
struct ReducedLevelsPublisher: Sendable {
    /// The animation's id (its folder in the site): `<animation>/<layer>` for a layer.
    let animation: String
    /// The frame's own box and its halvings, coarsest (zoom 0) first.
    let halvings: FramePyramid
    /// Compression level of PNG copies (the frames').
    let compressionLevel: Int
    /// Quality of lossy WebP copies (the frames' `quality`, else WebP's default).
    let webpQuality: Int
    /// Writes into (and links from the previous site into) the staged site.
    let writer: SiteWriter

    /// The publisher for an animation (or layer) whose frames get reduced copies, or nil
    /// when they get none (`levels: never`, or frames that already fit).
    init?(animation config: AnimationConfig, layout: FrameLayout, writer: SiteWriter) {
        guard config.levels == .auto else { return nil }
        halvings = FramePyramid(halving: layout.width, height: layout.height, coarsestMaxEdge: ReducedLevelsSetting.coarsestMaxEdge)
        guard halvings.levels.count > 1 else { return nil }
        animation = config.id
        compressionLevel = config.compressionLevel
        webpQuality = config.frameFormat.quality ?? FrameFormatChoice.defaultWebPQuality
        self.writer = writer
    }

    /// How many copies each frame gets.
    var count: Int { halvings.levels.count - 1 }

    /// The copies' sizes, coarsest first (as the manifest lists them).
    var sizes: [(width: Int, height: Int)] { halvings.levels.dropLast().map { ($0.width, $0.height) } }

    /// What the copies cost, per copy (coarsest first).
    struct Cost: Sendable {
        var written: [Int]
        var linked: [Int]
        var bytes: [Int]
        var seconds = 0.0
    }

    /// Publishes the copies of `frames` (their files already in the staged site) and returns
    /// each frame's copies, coarsest first, and the cost.
    func publish(_ frames: [PublishedFrame]) async throws -> (levels: [[ReducedLevel]], cost: Cost) {
        let started = ContinuousClock.now
        let zero = [Int](repeating: 0, count: count)
        var cost = Cost(written: zero, linked: zero, bytes: zero)
        var folders: [String] = []
        var made: [String: [ReducedLevel]] = [:]
        var toMake: [(folder: String, ext: String, frame: PublishedFrame)] = []
        for frame in frames {
            let ext = (frame.file as NSString).pathExtension
            guard ["png", "jpg", "webp"].contains(ext), PreviousSite.safeRelative(frame.file) else {
                throw LevelsError.notAFrameFile(animation: animation, index: frame.index, url: frame.file)
            }
            let folder = String(frame.file.dropLast(ext.count + 1))
            folders.append(folder)
            // Two frames alike in the loop are one file, and so one folder of copies.
            guard made[folder] == nil, !toMake.contains(where: { $0.folder == folder }) else { continue }
            if let linked = link(frame, to: folder, ext: ext) {
                made[folder] = linked
                for (i, level) in linked.enumerated() {
                    cost.linked[i] += 1
                    cost.bytes[i] += level.bytes
                }
            } else {
                toMake.append((folder, ext, frame))
            }
        }
        try await withThrowingTaskGroup(of: (String, [ReducedLevel]).self) { group in
            for (folder, ext, frame) in toMake {
                group.addTask { (folder, try await make(frame, into: folder, ext: ext)) }
            }
            for try await (folder, levels) in group {
                made[folder] = levels
                for (i, level) in levels.enumerated() {
                    cost.written[i] += 1
                    cost.bytes[i] += level.bytes
                }
            }
        }
        let elapsed = started.duration(to: .now).components
        cost.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return (folders.map { made[$0] ?? [] }, cost)
    }

    /// What the copies cost, copy by copy, as the build reports it.
    func report(_ cost: Cost, frames: Int) -> ReducedLevelsReport {
        ReducedLevelsReport(
            animation: animation, frames: frames,
            levels: sizes.indices.map { i in
                .init(
                    halvings: count - i, width: sizes[i].width, height: sizes[i].height, written: cost.written[i], linked: cost.linked[i],
                    bytes: cost.bytes[i])
            }, seconds: cost.seconds)
    }
}

private extension ReducedLevelsPublisher {
    /// The copy `halvings` times halved, relative to the animation's folder.
    func file(_ folder: String, halvings: Int, ext: String) -> String {
        "\(folder)/r\(halvings).\(ext)"
    }

    /// Links the previous build's copies of a frame with these inputs and sizes; nil (and
    /// nothing left behind) when there are none or any one is gone.
    func link(_ frame: PublishedFrame, to folder: String, ext: String) -> [ReducedLevel]? {
        guard let old = writer.previous.reducedLevels(animation: animation, inputHash: frame.inputHash), old.count == count else { return nil }
        var linked: [ReducedLevel] = []
        for (i, level) in old.enumerated() {
            let name = file(folder, halvings: count - i, ext: ext)
            guard level.width == sizes[i].width, level.height == sizes[i].height, (level.url as NSString).pathExtension == ext,
                let previous = writer.previous.regularFile("\(animation)/\(level.url)"), previous.size == level.bytes,
                (try? writer.link(from: "\(animation)/\(level.url)", "\(animation)/\(name)")) == true
            else {
                // Made afresh instead: written files must not land on linked inodes (that
                // would change the previous site's bytes).
                for done in linked { unlink(staged(done.file)) }
                return nil
            }
            linked.append(ReducedLevel(file: name, width: level.width, height: level.height, bytes: level.bytes))
        }
        return linked
    }

    /// Reads the staged frame file once, a band of rows at a time, and writes its copies as
    /// their rows come; one CPU job.
    func make(_ frame: PublishedFrame, into folder: String, ext: String) async throws -> [ReducedLevel] {
        let path = staged(frame.file)
        let files = (1...count).reversed().map { file(folder, halvings: $0, ext: ext) }
        let paths = files.map(staged)
        let halvings = self.halvings, compression = compressionLevel, webpQuality = self.webpQuality
        let bytes = try await CPUPool.shared.run { () throws -> [Int] in
            try FileManager.default.createDirectory(atPath: staged(folder), withIntermediateDirectories: true)
            let finest = halvings.finest
            // A lossy frame is decoded whole (as its stitch held it whole): its bytes first.
            let encoded = ext == "png" ? nil : FileManager.default.contents(atPath: path).map { [UInt8]($0) }
            if ext != "png" && encoded == nil { throw LevelsError.unreadable(path) }
            var lossy: FrameFormat?
            let rows: FrameRows
            do throws(ImageError) {
                if let encoded {
                    lossy = try Self.lossyFormat(of: encoded, ext: ext, size: finest, webpQuality: webpQuality)
                    rows = try FrameRows(decoding: encoded, width: finest.width, height: finest.height, what: path)
                } else {
                    rows = try FrameRows(png: path, width: finest.width, height: finest.height)
                }
            } catch {
                throw LevelsError.undecodable(path, error)
            }
            let copies = try zip(halvings.levels.dropLast(), paths).map { level, path in
                // A file linked there would be written through to the previous site's inode.
                unlink(path)
                return try CopyWriter(path: path, level: level, format: rows.format, lossy: lossy, compression: compression)
            }
            let cutter = PyramidCutter(pyramid: halvings, format: rows.format)
            while cutter.rowsToCome > 0 {
                do throws(ImageError) {
                    try rows.read(cutter.rowsToNextBand, into: cutter)
                } catch {
                    throw LevelsError.undecodable(path, error)
                }
                // The frame's own bands are the frame: only the halved ones are written.
                for band in cutter.drain() where band.level.zoom < halvings.maxZoom {
                    try copies[band.level.zoom].take(band)
                }
            }
            return try copies.map { try $0.finish() }
        }
        return zip(files, zip(halvings.levels, bytes)).map { file, sized in
            ReducedLevel(file: file, width: sized.0.width, height: sized.0.height, bytes: sized.1)
        }
    }

    /// The format of a lossy frame's copies: a JPEG's at the quality its tables say, a WebP's
    /// lossless when the frame is, else at the frames' quality.
    static func lossyFormat(of bytes: [UInt8], ext: String, size: PyramidLevel, webpQuality: Int) throws(ImageError) -> FrameFormat {
        let decoder = TileDecoder(maxWidth: size.width, maxHeight: size.height)
        if ext == "jpg" { return .jpeg(quality: try decoder.jpeg.quality(of: bytes) ?? FrameFormatChoice.defaultJPEGQuality) }
        return try decoder.webp.isLossy(bytes) ? .webp(quality: webpQuality) : .webpLossless
    }

    /// `relative` (to the animation's folder) in the staged site.
    func staged(_ relative: String) -> String {
        writer.root.path + "/" + animation + "/" + relative
    }
}

/// One copy being written as its bands come: a PNG row by row, or a lossy one gathered whole
/// and encoded at the end.
private final class CopyWriter {
    let path: String
    let level: PyramidLevel
    private let png: PNGWriter?
    private let lossy: FrameFormat?
    private var pixels: [UInt8] = []

    init(path: String, level: PyramidLevel, format: PixelFormat, lossy: FrameFormat?, compression: Int) throws {
        self.path = path
        self.level = level
        self.lossy = lossy
        if lossy != nil {
            png = nil
            pixels = [UInt8](repeating: 0, count: level.width * level.height * 4)
        } else {
            do throws(ImageError) {
                png = try PNGWriter(path: path, width: level.width, height: level.height, format: format, level: compression)
            } catch {
                throw LevelsError.cannotWriteCopy(path, error)
            }
        }
    }

    /// Takes the next band of the copy's rows.
    func take(_ band: LevelImage) throws {
        if let png {
            do throws(ImageError) { try png.write(rows: band.pixels) } catch { throw LevelsError.cannotWriteCopy(path, error) }
        } else {
            let offset = (band.level.y0 - level.y0) * level.width * 4
            pixels.replaceSubrange(offset..<(offset + band.pixels.count), with: band.pixels)
        }
    }

    /// Finishes the file; returns its bytes.
    func finish() throws -> Int {
        let encoded: [UInt8]
        do {
            if let png {
                try png.finish()
                return Int(png.bytesWritten)
            }
            encoded = try pixels.withUnsafeBytes { rows throws(ImageError) in
                try lossy!.encode(rgba: rows, width: level.width, height: level.height, stride: level.width * 4)
            }
        } catch let error as ImageError {
            throw LevelsError.cannotWriteCopy(path, error)
        }
        try FileWrite.write(encoded, to: path)
        return encoded.count
    }
}
