import Foundation
import MatsiteImaging

/// Fetches and stitches one animation's frames into the staging folder, and writes its
/// poster, fallback tiles and manifest entries.
struct AnimationRenderer: Sendable {
    let plan: AnimationPlan
    let site: SiteConfig
    let staging: URL
    let loader: any TileLoader
    let previous: PreviousSite
    let reporter: any BuildReporter

    struct Result: Sendable {
        var manifest: AnimationManifest?
        var failures: [FailedTile]
        var reused: Int
    }

    /// A version tag mixed into every frame's input hash: bump it when stitching changes output.
    static let renderVersion = "matsite-stitch-1"

    /// Where an animation's time went, for `--verbose`.
    let timings = StageTimings()

    func render() async throws -> Result {
        let id = plan.config.id
        let folder = staging.appendingPathComponent(id)
        let framesFolder = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: framesFolder, withIntermediateDirectories: true)

        // Frames in flight are bounded so that fetched-but-unstitched tiles stay few.
        let inFlight = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        var outcomes: [FrameOutcome] = []
        try await withThrowingTaskGroup(of: FrameOutcome.self) { group in
            var running = 0
            for frame in plan.frames {
                if running >= inFlight, let done = try await group.next() {
                    outcomes.append(done)
                    running -= 1
                }
                group.addTask { try await self.renderFrame(frame, into: framesFolder) }
                running += 1
            }
            for try await done in group { outcomes.append(done) }
        }
        outcomes.sort { $0.index < $1.index }
        reporter.detail("\(id): \(timings.summary(frames: plan.frames.count))")

        let failures = outcomes.flatMap(\.failures)
        guard failures.isEmpty else { return Result(manifest: nil, failures: failures, reused: 0) }
        var frames = outcomes.compactMap(\.entry)
        try writePoster(outcomes.last, folder: folder)
        let fallback = try await publishFallbackTiles(folder: folder)
        for i in frames.indices where frames[i].missingTiles?.isEmpty == true { frames[i].missingTiles = nil }
        let manifest = makeManifest(frames: frames, fallback: fallback)
        try JSONEncoder.manifest.encode(manifest).write(to: folder.appendingPathComponent("manifest.json"))
        return Result(manifest: manifest, failures: [], reused: outcomes.filter(\.reused).count)
    }
}

/// What became of one frame.
struct FrameOutcome: Sendable {
    var index: Int
    var entry: AnimationManifest.Frame?
    var failures: [FailedTile] = []
    var reused = false
    var poster: [UInt8]?
}

private extension AnimationRenderer {
    func renderFrame(_ frame: FramePlan, into folder: URL) async throws -> FrameOutcome {
        let layout = plan.layout
        let tolerate = plan.config.missing == .transparent
        // Fetch every tile of the frame at once; the fetcher bounds requests per host.
        var contents = [TileContent](repeating: .empty, count: frame.tiles.count)
        var problems: [(Int, String)] = []
        let fetchStarted = ContinuousClock.now
        await withTaskGroup(of: (Int, TileOutcome).self) { group in
            for (i, locator) in frame.tiles.enumerated() {
                group.addTask { (i, await loader.load(locator)) }
            }
            for await (i, outcome) in group {
                switch outcome {
                case .tile(let bytes):
                    contents[i] = .png(bytes)
                    reporter.tileLoaded(bytes: bytes.count)
                case .absent(let reason), .failed(let reason):
                    problems.append((i, reason))
                    reporter.tileLoaded(bytes: 0)
                }
            }
        }
        timings.add(fetch: fetchStarted.duration(to: .now))
        try Task.checkCancellation()

        // Header checks (sizes, damaged headers) and the frame's pixel format.
        let stitcher = Stitcher()
        let loaded = contents
        let (format, headerFailures) = try await CPUPool.shared.run { stitcher.plan(layout: layout, tiles: loaded) }
        for failure in headerFailures {
            let i = (failure.row - layout.rows.lowerBound) * layout.columns.count + (failure.column - layout.columns.lowerBound)
            problems.append((i, failure.reason))
            contents[i] = .empty
        }
        if !problems.isEmpty && !tolerate {
            return FrameOutcome(index: frame.index, failures: problems.sorted { $0.0 < $1.0 }.map { i, reason in
                FailedTile(animation: plan.config.id, frame: frame.index, locator: frame.tiles[i].description, reason: reason)
            })
        }
        for (i, _) in problems { contents[i] = .empty }

        let inputHash = Self.inputHash(layout: layout, level: plan.config.compressionLevel, contents: contents)
        let isLast = frame.index == plan.frames.count - 1
        var missing = problems.map { i, reason in missingTile(i, reason: reason) }
        // missing: transparent warns per tile, so a gap is never silent.
        for (i, reason) in problems.sorted(by: { $0.0 < $1.0 }) { warnTransparent(frame, locator: frame.tiles[i], reason: reason) }

        // Unchanged inputs: keep the previous build's file.
        if let kept = previous.frame(animation: plan.config.id, inputHash: inputHash),
           !isLast || previous.poster(animation: plan.config.id) != nil {
            // A rolling window shifts indices: the kept bytes get this frame's name.
            let name = String(format: "%04d-", frame.index) + kept.sha256.prefix(8) + ".png"
            if previous.link(animation: plan.config.id, relative: kept.url, to: folder.appendingPathComponent(name)) {
                reporter.frameDone(animation: plan.config.id, index: frame.index, reused: true)
                var entry = kept
                entry.index = frame.index
                entry.url = "frames/\(name)"
                entry.time = frame.time.map(TimeFormat.iso)
                entry.durationMs = frame.durationMs
                entry.missingTiles = missing
                return FrameOutcome(index: frame.index, entry: entry, reused: true,
                                    poster: isLast ? previous.poster(animation: plan.config.id) : nil)
            }
        }

        // Stitch band by band straight into the file.
        let temporary = folder.appendingPathComponent(String(format: ".%04d.tmp.png", frame.index))
        let level = plan.config.compressionLevel
        let tiles = contents
        let report: StitchReport, poster: [UInt8]?
        do {
            let timings = self.timings
            (report, poster) = try await CPUPool.shared.run { () throws -> (StitchReport, [UInt8]?) in
                let started = ContinuousClock.now
                let writer = try PNGWriter(path: temporary.path, width: layout.width, height: layout.height, format: format, level: level)
                let sampler = isLast ? RowSampler(sourceWidth: layout.width, sourceHeight: layout.height, format: format) : nil
                let report = try stitcher.stitch(layout: layout, tiles: tiles, format: format, to: writer,
                                                 tolerateBadTiles: tolerate, sampler: sampler)
                try writer.finish()
                let poster = try sampler?.encode()
                timings.add(stitch: started.duration(to: .now))
                return (report, poster)
            }
        } catch is TileFailure {
            // A tile whose header was fine but whose pixels are not (truncated or corrupt
            // IDAT, a decompression bomb): the stitch stops at the first one. Name every
            // such tile of the frame, with its locator, like any other failed tile.
            try? FileManager.default.removeItem(at: temporary)
            let failures = try await CPUPool.shared.run { Self.undecodable(tiles, layout: layout, stitcher: stitcher) }
            return FrameOutcome(index: frame.index, failures: failures.map { i, reason in
                FailedTile(animation: plan.config.id, frame: frame.index, locator: frame.tiles[i].description, reason: reason)
            })
        }
        for failure in report.failedTiles {
            let i = (failure.row - layout.rows.lowerBound) * layout.columns.count + (failure.column - layout.columns.lowerBound)
            missing.append(missingTile(i, reason: failure.reason))
            warnTransparent(frame, locator: frame.tiles[i], reason: failure.reason)
        }
        let (sha, size) = try FileHash.sha256(of: temporary)
        let name = String(format: "%04d-", frame.index) + sha.prefix(8) + ".png"
        try FileManager.default.moveItem(at: temporary, to: folder.appendingPathComponent(name))
        reporter.frameDone(animation: plan.config.id, index: frame.index, reused: false)
        let entry = AnimationManifest.Frame(index: frame.index, url: "frames/\(name)", time: frame.time.map(TimeFormat.iso),
                                            durationMs: frame.durationMs, bytes: size, sha256: sha,
                                            missingTiles: missing, inputHash: inputHash)
        return FrameOutcome(index: frame.index, entry: entry, poster: poster)
    }

    /// The tiles (by index) that fail a full decode, with why.
    static func undecodable(_ tiles: [TileContent], layout: FrameLayout, stitcher: Stitcher) -> [(Int, String)] {
        var failures: [(Int, String)] = []
        for (i, tile) in tiles.enumerated() {
            guard case .png(let bytes) = tile else { continue }
            do throws(PNGError) { _ = try stitcher.decoder.decode(bytes, keepIndices: false) } catch { failures.append((i, error.reason)) }
        }
        return failures
    }

    func warnTransparent(_ frame: FramePlan, locator: TileLocator, reason: String) {
        reporter.warning("\(plan.config.id) frame \(frame.index): \(locator): \(reason); drawn transparent (missing: transparent)")
    }

    func missingTile(_ i: Int, reason: String) -> AnimationManifest.MissingTile {
        let (z, x, y) = plan.tileCoordinate(i)
        return AnimationManifest.MissingTile(z: z, x: x, y: y, bounds: WebMercator.tileBounds(z: z, x: x, y: y), reason: reason)
    }

    static func inputHash(layout: FrameLayout, level: Int, contents: [TileContent]) -> String {
        var hash = SHA256()
        hash.update(Array("\(renderVersion) \(layout.width)x\(layout.height)+\(layout.originX)+\(layout.originY) s\(layout.shift) t\(layout.tileSize) z\(level)\n".utf8))
        for content in contents {
            switch content {
            case .png(let bytes):
                hash.update(Array("png \(bytes.count)\n".utf8))
                hash.update(bytes)
            case .empty:
                hash.update(Array("empty\n".utf8))
            }
        }
        return hash.hexDigest()
    }

    func writePoster(_ last: FrameOutcome?, folder: URL) throws {
        guard let poster = last?.poster else {
            throw BuildError.stage("stitch", "animation \(plan.config.id): no poster could be made from the last frame")
        }
        try Data(poster).write(to: folder.appendingPathComponent("poster.png"))
    }

    /// Tiles deeper than the frames' zoom, for the player's zoom fallback, copied as the
    /// source serves them (deeper than the source's max zoom, the player scales up).
    func publishFallbackTiles(folder: URL) async throws -> AnimationManifest.Fallback? {
        let config = plan.config
        if config.fallback.fromSource, let templates = Optional(plan.frames.compactMap(\.sourceTemplate)),
           templates.count == plan.frames.count, templates.allSatisfy({ !$0.isEmpty }) {
            return AnimationManifest.Fallback(url: nil, templates: templates, minZoom: config.zoom + 1,
                                              maxNativeZoom: plan.sourceMaxZoom ?? 22, subdomains: config.source.subdomains)
        }
        let deepest = min(config.zoom + config.fallback.levels, plan.sourceMaxZoom ?? 22)
        guard config.fallback.levels > 0, deepest > config.zoom else { return nil }
        var published = 0
        for zoom in (config.zoom + 1)...deepest {
            let layout = WebMercator.layout(of: config.bbox, zoom: zoom, sourceZoom: zoom, tileSize: config.source.tileSize)
            let n = 1 << zoom
            for frame in plan.frames {
                let frameFolder = folder.appendingPathComponent("tiles").appendingPathComponent(String(format: "%04d", frame.index))
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for row in layout.rows {
                        for column in layout.columns {
                            let x = ((column % n) + n) % n
                            let locator = plan.locate(frame.index, zoom, x, row)
                            group.addTask {
                                guard case .tile(let bytes) = await loader.load(locator) else { return 0 }
                                let file = frameFolder.appendingPathComponent("\(zoom)/\(x)/\(row).png")
                                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                                try Data(bytes).write(to: file)
                                return 1
                            }
                        }
                    }
                    for try await count in group { published += count }
                }
            }
        }
        reporter.detail("\(config.id): published \(published) fallback tiles (zoom \(config.zoom + 1)-\(deepest))")
        return AnimationManifest.Fallback(url: "tiles/{frame}/{z}/{x}/{y}.png", templates: nil, minZoom: config.zoom + 1,
                                          maxNativeZoom: deepest, subdomains: [])
    }

    func makeManifest(frames: [AnimationManifest.Frame], fallback: AnimationManifest.Fallback?) -> AnimationManifest {
        let config = plan.config
        var baseMap: AnimationManifest.BaseMap?
        if let map = site.baseMap {
            if map.demo {
                baseMap = .init(url: "../assets/demo-basemap/{z}/{x}/{y}.png", attributionHtml: Attribution.html(map.attribution),
                                maxZoom: 22, maxNativeZoom: DemoBaseMap.maxZoom, subdomains: [])
            } else if let url = map.url {
                baseMap = .init(url: url, attributionHtml: Attribution.html(map.attribution), maxZoom: max(map.maxZoom, 22),
                                maxNativeZoom: map.maxZoom, subdomains: map.subdomains)
            }
        }
        return AnimationManifest(id: config.id, title: config.title, bounds: config.bbox, zoom: config.zoom,
                                 width: plan.layout.width, height: plan.layout.height, tileSize: config.source.tileSize,
                                 attribution: config.attribution, attributionHtml: Attribution.html(config.attribution),
                                 crossfadeMs: config.crossfadeMs, loop: config.loop, poster: "poster.png",
                                 baseMap: baseMap, fallback: fallback,
                                 embed: .init(allowedOrigins: site.embed.allowedOrigins), frames: frames)
    }
}

/// Hashes files without holding them whole.
enum FileHash {
    static func sha256(of url: URL) throws -> (hex: String, size: Int) {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw BuildError.stage("stitch", "cannot read back \(url.path)")
        }
        defer { try? handle.close() }
        var hash = SHA256()
        var size = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            size += chunk.count
            chunk.withUnsafeBytes { hash.update($0) }
        }
        return (hash.hexDigest(), size)
    }
}

/// Summed durations of an animation's stages (thread-safe).
final class StageTimings: @unchecked Sendable {
    private let lock = NSLock()
    private var fetch = Duration.zero
    private var stitch = Duration.zero

    func add(fetch duration: Duration) {
        lock.lock(); defer { lock.unlock() }
        fetch += duration
    }

    func add(stitch duration: Duration) {
        lock.lock(); defer { lock.unlock() }
        stitch += duration
    }

    func summary(frames: Int) -> String {
        lock.lock(); defer { lock.unlock() }
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let n = Double(max(1, frames))
        return String(format: "waiting for tiles %.2f s per frame; stitching %.3f s per frame (%.2f s in all, on %d cores)",
                      seconds(fetch) / n, seconds(stitch) / n, seconds(stitch), ProcessInfo.processInfo.activeProcessorCount)
    }
}
