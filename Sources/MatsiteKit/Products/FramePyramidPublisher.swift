import Foundation
import MatsiteImaging

/// Publishes each frame of an animation as a tile pyramid beside its file:
/// `frames/<hash>/{z}/{x}/{y}.png` (named by the frame's content, as its file), 256-pixel tiles of the global grid at every level
/// from the frame's own zoom down to one that fits a screen (docs/player.md,
/// "Multi-level frames").
///
/// The levels are made from the published frame file, one frame at a time, band by band
/// (`PyramidCutter`): a PNG frame is read a row of tiles at a time, each band of the finest
/// level, once whole, is halved into the band of the level above, and each band's tiles are
/// encoded in parallel on the CPU pool and written straight to their files while the next
/// band is read. Memory is about a band per level: it grows with the frame's width, not
/// its area (a JPEG or WebP frame is decoded whole, as its stitch held it whole).
///
/// The coarsest level is also written whole, as one image beside the tiles
/// (`frames/<hash>/<min_zoom>.png`, its box's pixels only): a player fetches one file a frame
/// to start, not that level's tiles (issue 35 item 3). When it is more than
/// `ReducedLevelsSetting.coarsestMaxEdge` pixels on its longer side, its halvings are images
/// too (`<min_zoom - 1>.png`...: the pyramid's levels continued, cut with the others, down to
/// the first that fits), so a phone starts on the one that fits its view.
///
/// A frame made from the same inputs as a previous frame published with the same levels gets that frame's tiles (and
/// coarsest images) hard-linked under its own folder: nothing decoded or encoded (a folder
/// cannot be hard-linked, so each of its files is).
struct FramePyramidPublisher: Sendable {
    /// The animation's id (its folder in the site).
    let animation: String
    /// The levels, coarsest first.
    let pyramid: FramePyramid
    /// The levels cut from each frame: the pyramid's, and below them the coarsest level's
    /// halvings (published as images only).
    let cutLevels: FramePyramid
    /// zlib level of the tiles (the frames').
    let compressionLevel: Int
    /// Quality of the tiles of lossy frames (the frames' `quality`, else WebP's default).
    let lossyQuality: Int
    /// Lossless WebP frames keep lossless (WebP) tiles.
    let losslessTiles: Bool
    /// Writes into (and links from the previous site into) the staged site.
    let writer: SiteWriter

    /// The publisher for an animation whose frames get levels, or nil when they do not
    /// (`pyramid.publish`, the threshold, or a frame zoom coarser than the 256-pixel grid's 0).
    init?(animation config: AnimationConfig, layout: FrameLayout, writer: SiteWriter) {
        guard config.pyramid.wants(width: layout.width, height: layout.height) else { return nil }
        // Global pixel coordinates count tiles of the source's size: 512-pixel tiles at
        // zoom z are the 256-pixel grid at z + 1.
        let zoom = config.zoom + layout.tileSize.trailingZeroBitCount - PyramidLevel.tileSize.trailingZeroBitCount
        guard zoom >= 0 else { return nil }
        animation = config.id
        pyramid = FramePyramid(zoom: zoom, x0: layout.originX, y0: layout.originY, width: layout.width, height: layout.height)
        cutLevels = FramePyramid(
            zoom: zoom, x0: layout.originX, y0: layout.originY, width: layout.width, height: layout.height,
            coarsestMaxEdge: min(FramePyramid.coarsestMaxEdge, ReducedLevelsSetting.coarsestMaxEdge))
        // Level tiles are zlib's at the frames' level, and its 6 when the frames take
        // libdeflate's (10-12): its CPU, tens of times zlib's, would go to thousands of tiles.
        compressionLevel = config.compressionLevel > 9 ? 6 : config.compressionLevel
        lossyQuality = config.frameFormat.quality ?? 80
        losslessTiles = config.frameFormat.setting == .webpLossless
        self.writer = writer
    }

    /// What publishing the levels cost, per level (coarsest first).
    struct Cost: Sendable {
        var written: [Int]
        var linked: [Int]
        var bytes: [Int]
        var seconds = 0.0
    }

    /// The levels published as one image a frame, coarsest first: the coarsest level's
    /// halvings, then the coarsest level itself.
    var imageLevels: ArraySlice<PyramidLevel> { cutLevels.levels.prefix { $0.zoom <= pyramid.minZoom } }

    /// One frame's coarsest level as one image, and its halvings (coarsest first).
    struct FrameImages: Sendable {
        var coarsest: ReducedLevel
        var halvings: [CoarseImage]
    }

    /// Publishes the levels of `frames` (their files already in the staged site) and
    /// returns each frame's `tiles` template, its coarsest level as images, and the cost.
    func publish(_ frames: [PublishedFrame]) async throws -> (tiles: [String], images: [FrameImages], cost: Cost) {
        let started = ContinuousClock.now
        let zero = [Int](repeating: 0, count: pyramid.levels.count)
        var cost = Cost(written: zero, linked: zero, bytes: zero)
        var tiles: [String] = []
        var images: [FrameImages] = []
        var done: [String: FrameImages] = [:]
        for frame in frames {
            let ext = (frame.file as NSString).pathExtension
            guard let tileExt = Self.tileExtension(frame: ext), PreviousSite.safeRelative(frame.file) else {
                throw LevelsError.notAFrameFile(animation: animation, index: frame.index, url: frame.file)
            }
            let folder = String(frame.file.dropLast(ext.count + 1))
            tiles.append(folder + "/{z}/{x}/{y}.\(tileExt)")
            // Two frames alike in the loop are one file, and so one folder of levels.
            if let image = done[folder] {
                images.append(image)
                continue
            }
            let bytes: [Int]
            if let linked = link(frame, to: folder, tileExt: tileExt) {
                for i in linked.levels.indices {
                    cost.linked[i] += linked.levels[i].tiles
                    cost.bytes[i] += linked.levels[i].bytes
                }
                bytes = linked.images
            } else {
                let made = try await make(frame, into: folder, tileExt: tileExt)
                for i in made.levels.indices {
                    cost.written[i] += made.levels[i].tiles
                    cost.bytes[i] += made.levels[i].bytes
                }
                bytes = made.images
            }
            // The images are the coarsest level's, counted with its tiles.
            cost.bytes[0] += bytes.reduce(0, +)
            let listed = zip(imageLevels, bytes).map { level, bytes in
                CoarseImage(file: Self.coarsestFile(folder, zoom: level.zoom, ext: tileExt), level: level, bytes: bytes)
            }
            let coarse = listed[listed.count - 1]
            let entry = FrameImages(
                coarsest: ReducedLevel(file: coarse.file, width: coarse.level.width, height: coarse.level.height, bytes: coarse.bytes),
                halvings: Array(listed.dropLast()))
            done[folder] = entry
            images.append(entry)
        }
        let elapsed = started.duration(to: .now).components
        cost.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return (tiles, images, cost)
    }

    /// The coarsest level's one image (or one of its halvings') in a frame's folder of
    /// levels: `<folder>/<zoom>.<ext>`.
    static func coarsestFile(_ folder: String, zoom: Int, ext: String) -> String { "\(folder)/\(zoom).\(ext)" }

    /// What the levels cost, level by level, as the build reports it.
    func report(_ cost: Cost, frames: Int) -> LevelsReport {
        LevelsReport(
            animation: animation, frames: frames,
            levels: pyramid.levels.indices.map { i in
                .init(zoom: pyramid.levels[i].zoom, written: cost.written[i], linked: cost.linked[i], bytes: cost.bytes[i])
            }, seconds: cost.seconds)
    }
}

private extension FramePyramidPublisher {
    /// The level tiles' format for a frame file's: PNG frames keep PNG tiles; a lossy
    /// frame's tiles are lossy WebP, which (unlike JPEG) keeps the transparency outside the
    /// box at the edges.
    static func tileExtension(frame ext: String) -> String? {
        switch ext {
        case "png": "png"
        case "jpg", "webp": "webp"
        default: nil
        }
    }

    /// Tiles and bytes of one level of one frame.
    typealias LevelCost = (tiles: Int, bytes: Int)

    /// What one frame's levels cost: per level, and the bytes of each of its images
    /// (`imageLevels`' order).
    typealias FrameCost = (levels: [LevelCost], images: [Int])

    /// Links the previous build's tiles (and coarsest images) of a frame with these inputs and
    /// levels; nil (and nothing left behind) when there are none or any one is gone (a site
    /// from before the coarsest images were published gets its levels made afresh).
    func link(_ frame: PublishedFrame, to folder: String, tileExt: String) -> FrameCost? {
        guard let old = writer.previous.levelFolder(animation: animation, inputHash: frame.inputHash, pyramid: pyramid, tileExt: tileExt)
        else { return nil }
        var images: [Int] = []
        for level in imageLevels {
            let image = "\(animation)/" + Self.coarsestFile(old, zoom: level.zoom, ext: tileExt)
            guard let imageFile = writer.previous.regularFile(image),
                (try? writer.link(from: image, "\(animation)/" + Self.coarsestFile(folder, zoom: level.zoom, ext: tileExt))) == true
            else {
                try? FileManager.default.removeItem(atPath: staged(folder))
                return nil
            }
            images.append(imageFile.size)
        }
        var costs: [LevelCost] = []
        for level in pyramid.levels {
            var cost: LevelCost = (0, 0)
            for x in level.tileColumns {
                for y in level.tileRows {
                    let tile = "/\(level.zoom)/\(x)/\(y).\(tileExt)"
                    guard let file = writer.previous.regularFile("\(animation)/\(old)\(tile)"),
                        (try? writer.link(from: "\(animation)/\(old)\(tile)", "\(animation)/\(folder)\(tile)")) == true
                    else {
                        // Made afresh instead: written files must not land on linked inodes
                        // (that would change the previous site's bytes).
                        try? FileManager.default.removeItem(atPath: staged(folder))
                        return nil
                    }
                    cost.tiles += 1
                    cost.bytes += file.size
                }
            }
            costs.append(cost)
        }
        return (costs, images)
    }

    /// Reads the staged frame file a band of rows at a time and writes its levels as their
    /// bands fill (`PyramidCutter`): memory grows with the frame's width, not its area. The
    /// next band is read and cut while the last one's tiles are encoded. The coarsest level's
    /// bands, and its halvings', are kept and written at the end as one image each.
    func make(_ frame: PublishedFrame, into folder: String, tileExt: String) async throws -> FrameCost {
        let finest = pyramid.finest
        let path = writer.root.path + "/" + animation + "/" + frame.file
        let cut = try await CPUPool.shared.run { () throws -> LevelCut in
            // A lossy frame is decoded whole: read its bytes first.
            let data = tileExt == "png" ? nil : FileManager.default.contents(atPath: path)
            if tileExt != "png" && data == nil { throw LevelsError.unreadable(path) }
            do throws(ImageError) {
                let rows: FrameRows
                if let data {
                    rows = try FrameRows(decoding: Array(data), width: finest.width, height: finest.height, what: path)
                } else {
                    rows = try FrameRows(png: path, width: finest.width, height: finest.height)
                }
                return LevelCut(rows: rows, pyramid: cutLevels)
            } catch {
                throw LevelsError.undecodable(path, error)
            }
        }
        for level in pyramid.levels {
            for x in level.tileColumns {
                try FileManager.default.createDirectory(atPath: "\(staged(folder))/\(level.zoom)/\(x)", withIntermediateDirectories: true)
            }
        }
        var costs = [LevelCost](repeating: (0, 0), count: pyramid.levels.count)
        var coarse: [Int: [LevelImage]] = [:]
        let minZoom = pyramid.minZoom
        var bands = try await cut.next(path: path)
        while !bands.isEmpty {
            for band in bands where band.level.zoom <= minZoom { coarse[band.level.zoom, default: []].append(band) }
            async let following = cut.next(path: path)
            // The halvings are images only, no tiles.
            let written = try await write(bands.filter { $0.level.zoom >= minZoom }, into: staged(folder), tileExt: tileExt)
            for (zoom, cost) in written {
                costs[zoom - pyramid.minZoom].tiles += cost.tiles
                costs[zoom - pyramid.minZoom].bytes += cost.bytes
            }
            bands = try await following
        }
        var images: [Int] = []
        for level in imageLevels {
            let path = staged(Self.coarsestFile(folder, zoom: level.zoom, ext: tileExt))
            images.append(try await writeWhole(coarse[level.zoom] ?? [], of: level, to: path, tileExt: tileExt))
        }
        return (costs, images)
    }

    /// Writes a level's bands (top to bottom, each the level's whole width) as one image of
    /// the level's box, in the tiles' format; returns its bytes.
    func writeWhole(_ bands: [LevelImage], of level: PyramidLevel, to path: String, tileExt: String) async throws -> Int {
        guard let first = bands.first, bands.reduce(0, { $0 + $1.level.height }) == level.height else {
            throw LevelsError.undecodable(path, ImageError(.decode, "the rows of level \(level.zoom) did not all come", format: "level"))
        }
        let pixels = bands.flatMap(\.pixels), format = first.format
        let compression = compressionLevel, webp: FrameFormat = losslessTiles ? .webpLossless : .webp(quality: lossyQuality)
        return try await CPUPool.shared.run { () throws -> Int in
            if tileExt == "webp" {
                let encoded = try pixels.withUnsafeBytes { rows in
                    try webp.encode(rgba: rows, width: level.width, height: level.height, stride: level.width * 4)
                }
                try FileWrite.write(encoded, to: path)
                return encoded.count
            }
            do throws(PNGError) {
                let writer = try PNGWriter(path: path, width: level.width, height: level.height, format: format, level: compression)
                try writer.write(rows: pixels)
                try writer.finish()
                return Int(writer.bytesWritten)
            } catch {
                throw LevelsError.cannotWrite(path, error)
            }
        }
    }

    /// Writes every tile of the level bands `images`, in parallel chunks on the CPU pool;
    /// returns the tiles and bytes per zoom.
    func write(_ images: [LevelImage], into folder: String, tileExt: String) async throws -> [Int: LevelCost] {
        let tiles = images.flatMap { image in
            image.level.tileColumns.flatMap { x in image.level.tileRows.map { y in (image, x, y) } }
        }
        // A few chunks per core: enough to keep every core busy, few enough to be cheap to schedule.
        let chunks = min(tiles.count, 4 * ProcessInfo.processInfo.activeProcessorCount)
        let compression = compressionLevel, tileFormat: FrameFormat = losslessTiles ? .webpLossless : .webp(quality: lossyQuality)
        return try await withThrowingTaskGroup(of: [Int: LevelCost].self) { group in
            for chunk in 0..<chunks {
                let mine = Swift.stride(from: chunk, to: tiles.count, by: chunks).map { tiles[$0] }
                group.addTask {
                    try await CPUPool.shared.run { () throws -> [Int: LevelCost] in
                        var costs: [Int: LevelCost] = [:]
                        for (image, x, y) in mine {
                            let path = "\(folder)/\(image.level.zoom)/\(x)/\(y).\(tileExt)"
                            var bytes = 0
                            if tileExt == "webp" {
                                let size = PyramidLevel.tileSize
                                let encoded = try image.tile(column: x, row: y).withUnsafeBytes { rows in
                                    try tileFormat.encode(rgba: rows, width: size, height: size, stride: size * 4)
                                }
                                try FileWrite.write(encoded, to: path)
                                bytes = encoded.count
                            } else {
                                do throws(PNGError) {
                                    let writer = try PNGWriter(
                                        path: path, width: PyramidLevel.tileSize, height: PyramidLevel.tileSize, format: image.tileFormat,
                                        level: compression)
                                    try writer.write(rows: image.tile(column: x, row: y))
                                    try writer.finish()
                                    bytes = Int(writer.bytesWritten)
                                } catch {
                                    throw LevelsError.cannotWrite(path, error)
                                }
                            }
                            costs[image.level.zoom, default: (0, 0)].tiles += 1
                            costs[image.level.zoom, default: (0, 0)].bytes += bytes
                        }
                        return costs
                    }
                }
            }
            var costs: [Int: LevelCost] = [:]
            for try await written in group {
                for (zoom, cost) in written {
                    costs[zoom, default: (0, 0)].tiles += cost.tiles
                    costs[zoom, default: (0, 0)].bytes += cost.bytes
                }
            }
            return costs
        }
    }

    /// `folder` (relative to the animation's) in the staged site.
    func staged(_ folder: String) -> String {
        writer.root.path + "/" + animation + "/" + folder
    }
}

/// One frame's rows and the levels being cut from them: used by one CPU job at a time (each
/// `next` is awaited before the following one starts), so it crosses threads safely.
private final class LevelCut: @unchecked Sendable {
    let rows: FrameRows
    let cutter: PyramidCutter

    init(rows: FrameRows, pyramid: FramePyramid) {
        self.rows = rows
        cutter = PyramidCutter(pyramid: pyramid, format: rows.format)
    }

    /// Reads the rows that finish the next band of the finest level and returns the level
    /// bands they finish (none once the frame is read).
    func next(path: String) async throws -> [LevelImage] {
        try await CPUPool.shared.run { () throws -> [LevelImage] in
            let cutter = self.cutter
            guard cutter.rowsToCome > 0 else { return [] }
            do throws(ImageError) {
                try self.rows.read(cutter.rowsToNextBand, into: cutter)
            } catch {
                throw LevelsError.undecodable(path, error)
            }
            return cutter.drain()
        }
    }
}

/// A frame's levels could not be cut or written.
enum LevelsError: Swift.Error, CustomStringConvertible {
    /// The manifest names a frame file that is not an image in `frames/`.
    case notAFrameFile(animation: String, index: Int, url: String)
    /// The staged frame file cannot be read.
    case unreadable(String)
    /// The staged frame file does not decode, or is not the planned size.
    case undecodable(String, ImageError)
    /// A level tile cannot be written.
    case cannotWrite(String, ImageError)
    /// A frame's reduced copy (`levels:`) cannot be written.
    case cannotWriteCopy(String, ImageError)
    /// The frames' first backgrounds cannot be stacked into a sheet.
    case cannotMakeSheet(animation: String, first: String, ImageError)

    var description: String {
        switch self {
        case .notAFrameFile(let animation, let index, let url):
            "\(animation): frame \(index) is not a PNG, JPEG or WebP file in frames/ (\(url)): cannot cut levels from it"
        case .unreadable(let path): "cannot read \(path) to cut its levels"
        case .undecodable(let path, let error): "cannot decode \(path) to cut its levels: \(error)"
        case .cannotWrite(let path, let error): "cannot write level tile \(path): \(error.reason)"
        case .cannotWriteCopy(let path, let error): "cannot write the frame's reduced copy \(path): \(error.reason)"
        case .cannotMakeSheet(let animation, let first, let error):
            "\(animation): cannot stack the first backgrounds from \(first) on into one sheet: \(error.reason)"
        }
    }
}
