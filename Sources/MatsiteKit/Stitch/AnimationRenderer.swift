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
    static let renderVersion = "matsite-stitch-2"

    /// Writes into the staging folder, linking what the previous site already has.
    var writer: SiteWriter { SiteWriter(root: staging, previous: previous) }

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
        let fallback = try await publishFallbackTiles(folder: folder, frames: &frames, outcomes: outcomes)
        for i in frames.indices where frames[i].missingTiles?.isEmpty == true { frames[i].missingTiles = nil }
        let manifest = makeManifest(frames: frames, fallback: fallback)
        try writer.put(Array(JSONEncoder.manifest.encode(manifest)), at: "\(id)/manifest.json")
        return Result(manifest: manifest, failures: [], reused: outcomes.filter(\.reused).count)
    }
}

/// A tile as a frame's input hash sees it.
enum TileIdentity: Sendable {
    case png(TileDigest)
    case absent
}

/// What became of one frame.
struct FrameOutcome: Sendable {
    var index: Int
    var entry: AnimationManifest.Frame?
    var failures: [FailedTile] = []
    var reused = false
    var poster: Poster?
    /// For a kept frame: its index and fallback tiles' hash in the previous build.
    var previousIndex: Int?
    var previousFallbackHash: String?
}

/// Where the animation's poster comes from: the last frame, or the previous build's
/// poster when the last frame is the previous build's last frame, kept.
enum Poster: Sendable {
    case made([UInt8])
    case previous
}

private extension AnimationRenderer {
    func renderFrame(_ frame: FramePlan, into folder: URL) async throws -> FrameOutcome {
        let layout = plan.layout
        let tolerate = plan.config.missing == .transparent

        // Unchanged inputs known without loading a tile (fresh cache entries, through the
        // cache's index): keep the previous build's file and read nothing.
        if let known = loader.freshDigests(frame.tiles),
           let kept = keep(frame, into: folder, inputHash: self.inputHash(known.map { .png($0) }), fetchProblems: []) {
            return kept
        }

        // Fetch every tile of the frame at once; the fetcher bounds requests per host.
        var contents = [TileContent](repeating: .empty, count: frame.tiles.count)
        var identities = [TileIdentity](repeating: .absent, count: frame.tiles.count)
        var problems: [(Int, String)] = []
        let fetchStarted = ContinuousClock.now
        await withTaskGroup(of: (Int, TileOutcome).self) { group in
            for (i, locator) in frame.tiles.enumerated() {
                group.addTask {
                    // Hash here, in parallel, unless the cache already knows the digest.
                    let outcome = await loader.load(locator)
                    if case .tile(let bytes, .none) = outcome { return (i, .tile(bytes, digest: TileDigest(of: bytes))) }
                    return (i, outcome)
                }
            }
            for await (i, outcome) in group {
                switch outcome {
                case .tile(let bytes, let digest):
                    contents[i] = .png(bytes)
                    identities[i] = .png(digest ?? TileDigest(of: bytes))
                    reporter.tileLoaded(bytes: bytes.count)
                case .absent(let reason), .failed(let reason):
                    problems.append((i, reason))
                    reporter.tileLoaded(bytes: 0)
                }
            }
        }
        timings.add(fetch: fetchStarted.duration(to: .now))
        try Task.checkCancellation()
        if !problems.isEmpty && !tolerate { return failed(frame, problems) }

        // Unchanged inputs: keep the previous build's file.
        let inputHash = inputHash(identities)
        if let kept = keep(frame, into: folder, inputHash: inputHash, fetchProblems: problems) { return kept }

        // Header checks (sizes, damaged headers) and the frame's pixel format.
        let stitcher = Stitcher()
        let loaded = contents
        let (format, headerFailures) = try await CPUPool.shared.run { stitcher.plan(layout: layout, tiles: loaded) }
        for failure in headerFailures {
            let i = (failure.row - layout.rows.lowerBound) * layout.columns.count + (failure.column - layout.columns.lowerBound)
            problems.append((i, failure.reason))
            contents[i] = .empty
        }
        if !problems.isEmpty && !tolerate { return failed(frame, problems) }
        let isLast = frame.index == plan.frames.count - 1
        var missing = problems.map { i, reason in missingTile(i, reason: reason) }
        // missing: transparent warns per tile, so a gap is never silent.
        for (i, reason) in problems.sorted(by: { $0.0 < $1.0 }) { warnTransparent(frame, locator: frame.tiles[i], reason: reason) }

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
        return FrameOutcome(index: frame.index, entry: entry, poster: poster.map(Poster.made))
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

    /// What went into a frame, hashed: the render settings and each tile's digest (or its
    /// absence), in order. Equal hashes mean byte-identical frames.
    func inputHash(_ tiles: [TileIdentity]) -> String {
        let layout = plan.layout
        return Self.hash("\(Self.renderVersion) \(layout.width)x\(layout.height)+\(layout.originX)+\(layout.originY) s\(layout.shift) "
            + "t\(layout.tileSize) z\(plan.config.compressionLevel) m\(plan.config.missing.rawValue)", tiles)
    }

    /// A header line and each tile's digest (or its absence), in order, hashed.
    static func hash(_ header: String, _ tiles: [TileIdentity]) -> String {
        var hash = SHA256()
        hash.update(Array((header + "\n").utf8))
        for tile in tiles {
            switch tile {
            case .png(let digest): hash.update(Array("png \(digest.size) \(digest.sha256)\n".utf8))
            case .absent: hash.update(Array("absent\n".utf8))
            }
        }
        return hash.hexDigest()
    }

    /// The previous build's frame for these inputs, hard-linked under this frame's name,
    /// or nil when there is none (or its file is gone). Tiles missing now are listed with
    /// today's reasons; tiles the previous stitch drew transparent keep theirs.
    func keep(_ frame: FramePlan, into folder: URL, inputHash: String, fetchProblems: [(Int, String)]) -> FrameOutcome? {
        let id = plan.config.id
        let isLast = frame.index == plan.frames.count - 1
        guard let kept = previous.frame(animation: id, inputHash: inputHash) else { return nil }
        // The poster is drawn from the last frame: the old one serves only if this kept
        // frame was the old last frame too (a window that shrank moves another one last).
        if isLast && !(previous.isLastFrame(animation: id, inputHash: inputHash) && previous.hasPoster(animation: id)) { return nil }
        // A rolling window shifts indices: the kept bytes get this frame's name.
        let name = String(format: "%04d-", frame.index) + kept.sha256.prefix(8) + ".png"
        guard previous.link(animation: id, relative: kept.url, to: folder.appendingPathComponent(name)) else { return nil }
        var reasons = Dictionary(fetchProblems, uniquingKeysWith: { a, _ in a })
        if let old = kept.missingTiles, !old.isEmpty {
            for i in frame.tiles.indices where reasons[i] == nil {
                let (z, x, y) = plan.tileCoordinate(i)
                if let tile = old.first(where: { $0.z == z && $0.x == x && $0.y == y }) { reasons[i] = tile.reason }
            }
        }
        let missing = reasons.sorted { $0.key < $1.key }
        for (i, reason) in missing { warnTransparent(frame, locator: frame.tiles[i], reason: reason) }
        reporter.frameDone(animation: id, index: frame.index, reused: true)
        var entry = kept
        entry.index = frame.index
        entry.fallbackHash = nil
        entry.url = "frames/\(name)"
        entry.time = frame.time.map(TimeFormat.iso)
        entry.durationMs = frame.durationMs
        entry.missingTiles = missing.map { missingTile($0.key, reason: $0.value) }
        return FrameOutcome(index: frame.index, entry: entry, reused: true, poster: isLast ? .previous : nil,
                            previousIndex: kept.index, previousFallbackHash: kept.fallbackHash)
    }

    func failed(_ frame: FramePlan, _ problems: [(Int, String)]) -> FrameOutcome {
        FrameOutcome(index: frame.index, failures: problems.sorted { $0.0 < $1.0 }.map { i, reason in
            FailedTile(animation: plan.config.id, frame: frame.index, locator: frame.tiles[i].description, reason: reason)
        })
    }

    func writePoster(_ last: FrameOutcome?, folder: URL) throws {
        let target = folder.appendingPathComponent("poster.png")
        switch last?.poster {
        case .made(let bytes):
            try FileWrite.write(bytes, to: target)
        case .previous where previous.link(animation: plan.config.id, relative: "poster.png", to: target):
            break
        default:
            throw BuildError.stage("stitch", "animation \(plan.config.id): no poster could be made from the last frame")
        }
    }

    /// Tiles deeper than the frames' zoom, for the player's zoom fallback, copied as the
    /// source serves them (deeper than the source's max zoom, the player scales up).
    ///
    /// Each frame's set gets a hash of its tiles' digests (`fallback_hash`). A kept frame
    /// whose tiles are all fresh in the cache with that same hash has its previous tiles
    /// hard-linked under its new index: nothing loaded, nothing written.
    func publishFallbackTiles(folder: URL, frames: inout [AnimationManifest.Frame], outcomes: [FrameOutcome]) async throws
        -> AnimationManifest.Fallback? {
        let config = plan.config
        if config.fallback.fromSource, let templates = Optional(plan.frames.compactMap(\.sourceTemplate)),
           templates.count == plan.frames.count, templates.allSatisfy({ !$0.isEmpty }) {
            return AnimationManifest.Fallback(url: nil, templates: templates, minZoom: config.zoom + 1,
                                              maxNativeZoom: plan.sourceMaxZoom ?? 22, subdomains: config.source.subdomains)
        }
        let deepest = min(config.zoom + config.fallback.levels, plan.sourceMaxZoom ?? 22)
        guard config.fallback.levels > 0, deepest > config.zoom else { return nil }
        // The same tiles (zoom, x, y) for every frame, only their locators differ.
        var tiles: [(z: Int, x: Int, y: Int)] = []
        for zoom in (config.zoom + 1)...deepest {
            let layout = WebMercator.layout(of: config.bbox, zoom: zoom, sourceZoom: zoom, tileSize: config.source.tileSize)
            let n = 1 << zoom
            for row in layout.rows {
                for column in layout.columns { tiles.append((zoom, ((column % n) + n) % n, row)) }
            }
        }
        var published = 0, linked = 0
        for (i, frame) in plan.frames.enumerated() where i < frames.count {
            let locators = tiles.map { plan.locate(frame.index, $0.z, $0.x, $0.y) }
            let frameFolder = String(format: "tiles/%04d", frame.index)
            if let digests = loader.freshDigests(locators), let old = outcomes[i].previousIndex,
               let hash = Optional(fallbackHash(digests.map { .png($0) })), hash == outcomes[i].previousFallbackHash,
               try linkFallback(tiles, from: String(format: "tiles/%04d", old), to: frameFolder) {
                frames[i].fallbackHash = hash
                linked += tiles.count
                continue
            }
            let target = folder.appendingPathComponent(frameFolder)
            let identities = try await withThrowingTaskGroup(of: (Int, TileIdentity).self) { group in
                for (t, locator) in locators.enumerated() {
                    let tile = tiles[t]
                    group.addTask {
                        guard case .tile(let bytes, let digest) = await loader.load(locator) else { return (t, .absent) }
                        let file = target.appendingPathComponent("\(tile.z)/\(tile.x)/\(tile.y).png")
                        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                        try FileWrite.write(bytes, to: file)
                        return (t, .png(digest ?? TileDigest(of: bytes)))
                    }
                }
                var identities = [TileIdentity](repeating: .absent, count: locators.count)
                for try await (t, identity) in group { identities[t] = identity }
                return identities
            }
            published += identities.filter { if case .png = $0 { true } else { false } }.count
            frames[i].fallbackHash = fallbackHash(identities)
        }
        reporter.detail("\(config.id): published \(published + linked) fallback tiles (zoom \(config.zoom + 1)-\(deepest)), \(linked) of them kept")
        return AnimationManifest.Fallback(url: "tiles/{frame}/{z}/{x}/{y}.png", templates: nil, minZoom: config.zoom + 1,
                                          maxNativeZoom: deepest, subdomains: [])
    }

    /// A frame's fallback tiles, hashed: their digests (or absence) in order.
    func fallbackHash(_ tiles: [TileIdentity]) -> String {
        Self.hash("fallback \(plan.config.zoom) \(plan.config.fallback.levels)", tiles)
    }

    /// Hard-links a kept frame's previous fallback tiles into its new folder; false (with
    /// what was linked removed) when one is not there.
    func linkFallback(_ tiles: [(z: Int, x: Int, y: Int)], from old: String, to new: String) throws -> Bool {
        let id = plan.config.id
        for tile in tiles where try !writer.link(from: "\(id)/\(old)/\(tile.z)/\(tile.x)/\(tile.y).png",
                                                 "\(id)/\(new)/\(tile.z)/\(tile.x)/\(tile.y).png") {
            try? FileManager.default.removeItem(at: staging.appendingPathComponent("\(id)/\(new)"))
            return false
        }
        return true
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
                                 embed: .init(allowedOrigins: site.embed.allowedOrigins), frames: frames,
                                 opacity: config.opacity, legend: config.legend, timeZone: config.timeZone, timeLabel: config.timeLabel)
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
