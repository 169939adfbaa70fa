import Foundation
import MatsiteImaging

/// Options of one build run, beyond the config.
public struct BuildOptions: Sendable {
    /// Output folder overriding the config's `output`.
    public var output: String?
    /// Use the tile cache (`--no-cache` turns it off).
    public var useCache = true
    /// Seconds to wait for another build holding the output's lock.
    public var lockWait: Double = 120
    /// The time the build takes as now (`--at`): where rolling windows end and which index
    /// times count as published. nil: the clock.
    public var at: Date?
    /// The animations to build (`--only`); nil: all. The others' published files are kept
    /// as they are, and the site index is written from every animation's manifest. Such a
    /// shard build takes the output's lock only to publish, so shards run in parallel.
    public var only: [String]?

    /// Default options.
    public init() {}
}

/// `matsite build`: config -> plan -> fetch -> stitch -> publish.
///
/// `run()` reads top to bottom as the pipeline: resolve each source and plan its frames,
/// render every animation (fetching overlaps stitching; frames run across cores) into a
/// staging folder, render pages, then swap the staging folder in for the output. Any
/// failure before the swap leaves the previous site exactly as it was.
public struct Builder: Sendable {
    /// The validated config.
    public let config: SiteConfig
    /// Run options.
    public let options: BuildOptions
    /// Where progress goes.
    public let reporter: any BuildReporter

    /// Creates a builder.
    public init(config: SiteConfig, options: BuildOptions = BuildOptions(), reporter: any BuildReporter = SilentReporter()) {
        self.config = config
        self.options = options
        self.reporter = reporter
    }

    /// Builds and publishes the site.
    public func run() async throws -> BuildSummary {
        let deadline = config.deadlineSeconds
        return try await withThrowingTaskGroup(of: BuildSummary?.self) { group in
            group.addTask { try await self.build() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(deadline * 1_000_000_000))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let summary = first else { throw BuildError.deadline(deadline) }
            return summary
        }
    }
}

private extension Builder {
    func build() async throws -> BuildSummary {
        let started = Date()
        let output = config.resolve(options.output ?? config.output).standardizedFileURL
        try checkOnly()
        // A whole build holds the lock throughout (overlapping cron runs wait); a shard
        // only while it publishes (see `build(output:...)`).
        let lock = isShard ? nil : try await step(.publish) { try await OutputLock.acquire(for: output, wait: options.lockWait) }
        if !isShard { Staging.recover(output: output) }
        let cache = self.cache()
        let fetcher = needsHTTP ? HTTPFetcher(options: config.http, cache: cache) : nil
        do {
            let summary = try await build(output: output, fetcher: fetcher, started: started)
            await fetcher?.shutdown()
            cache?.finish()
            withExtendedLifetime(lock) {}
            return summary
        } catch {
            // What was fetched is good: keep it (and the index that finds it) for the retry.
            await fetcher?.shutdown()
            cache?.finish()
            throw error
        }
    }

    func build(output: URL, fetcher: HTTPFetcher?, started: Date) async throws -> BuildSummary {
        warnAboutPoliteness()
        // Files the config names are config: a bad one is a config error, found before any request.
        var legendImages: [String: LegendImage] = [:]
        for animation in selected { legendImages[animation.id] = try LegendImage.read(animation, config: config) }
        // Plan: which tiles make which frame.
        let tileLoader = TileSourceLoader(fetcher: fetcher, exceptionMessage: OGCSources.exceptionMessage)
        var (plans, prefetched) = try await step(.plan) { try await plan(fetcher: fetcher, loader: tileLoader, output: output) }
        for i in plans.indices { plans[i].legendImage = legendImages[plans[i].config.id] }
        // An export's background tiles, fetched before anything is staged (a failure leaves the site as it was).
        for i in plans.indices {
            guard let template = plans[i].config.export?.backgroundTiles, let fetcher else { continue }
            let (layout, zoom) = (plans[i].layout, plans[i].config.zoom)
            plans[i].exportBackground = try await step(.fetch) {
                try await ExportBackgroundTiles.fetch(template, layout: layout, zoom: zoom, fetcher: fetcher)
            }
        }
        let previous = PreviousSite(output: output)
        let frameTimes = Dictionary(plans.map { ($0.config.id, $0.frames.map(\.time)) }, uniquingKeysWith: { a, _ in a })
        let points = try await step(.plan) {
            try await PointLoader(config: config, fetcher: fetcher).loadAll(selected, frameTimes: frameTimes, previous: previous)
        }

        let staging = try await step(.publish) { try Staging.create(beside: output) }
        do {
            let loader = PrefetchedTiles(base: tileLoader, loaded: prefetched)
            let pages = try await step(.pages) { try PageRenderer(overrides: config.templates.map(config.resolve)) }
            let writer = SiteWriter(root: staging.url, previous: previous)
            let assets = try await step(.publish) {
                try SiteAssets.publish(
                    with: writer, pages: pages, leaflet: config.resolve(config.leaflet),
                    demoBaseMap: config.baseMap?.demo == true)
            }
            // Fetch + stitch, animation by animation.
            var manifests: [AnimationManifest] = []
            var failures: [FailedTile] = []
            var reused = 0
            for plan in plans {
                let result = try await render(plan, loader: loader, writer: writer, points: points[plan.config.id] ?? [])
                failures += result.failures
                reused += result.reused
                if let manifest = result.manifest { manifests.append(manifest) }
            }
            guard failures.isEmpty else {
                // The error groups them by cause; --verbose lists each first.
                for tile in failures { reporter.detail("failed: \(tile)") }
                throw BuildError.tilesFailed(failures)
            }
            // A shard: now, under the lock, the other animations as published at this moment.
            var current = previous
            var shardLock: OutputLock?
            if isShard {
                shardLock = try await step(.publish) { try await OutputLock.acquire(for: output, wait: options.lockWait) }
                Staging.recover(output: output)
                current = PreviousSite(output: output)
                let kept = try await step(.publish) {
                    try ShardAssembly(current: current, built: Set(selected.map(\.id)))
                        .keepOthers(manifests, config: config, into: SiteWriter(root: staging.url, previous: current))
                }
                manifests = kept.manifests
                for id in kept.unpublished {
                    reporter.warning("\(id): not published yet, so not in the site index; it will be once its shard has built it")
                }
            }
            // Pages and manifests.
            try await step(.pages) {
                try SitePages(config: config, pages: pages, assets: assets).write(manifests, with: SiteWriter(root: staging.url, previous: current))
            }
            // Publish.
            var summary = BuildSummary()
            // The old tree as listed under the lock (when the build began, or for a shard now).
            let staged = TreeComparison.files(staging.url) ?? [:]
            summary.unchanged = TreeComparison.equal(staging.url, staged, output, current.files)
            if summary.unchanged { staging.discard() } else { try await step(.publish) { try staging.publish() } }
            withExtendedLifetime(shardLock) {}
            // What this build made (a shard keeps the others as they were).
            summary.animations = plans.count
            summary.frames = plans.reduce(0) { $0 + $1.frames.count }
            summary.framesReused = reused
            summary.tiles = plans.reduce(0) { $0 + $1.frames.count * $1.layout.tileCount }
            if let stats = fetcher?.statistics {
                summary.requests = stats.requests
                summary.bytesFetched = stats.bytes
                summary.notModified = stats.notModified
            }
            // Published or kept, the output now holds exactly the staged files.
            summary.outputBytes = staged.values.reduce(0) { $0 + $1.size }
            summary.seconds = Date().timeIntervalSince(started)
            summary.output = output.path
            return summary
        } catch {
            staging.discard()
            throw error
        }
    }

    /// Runs one step of the pipeline, stamping what it throws with the step's stage: the
    /// only place a stage is given to an error.
    func step<T>(_ stage: BuildStage, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw BuildError.stamping(error, with: stage)
        }
    }

    /// Resolves each animation's source and plans its frames, within the limits; also
    /// returns the tiles loaded while looking for frames not published yet.
    func plan(
        fetcher: HTTPFetcher?, loader: TileSourceLoader, output: URL
    ) async throws
        -> (plans: [AnimationPlan], prefetched: [TileLocator: TileOutcome])
    {
        let resolver = SourceResolver(config: config, fetcher: fetcher, now: options.at ?? Date())
        var plans: [AnimationPlan] = []
        var prefetched: [TileLocator: TileOutcome] = [:]
        for animation in selected {
            // A live feed's newest frames may not be published yet: leave them out.
            let trimmed = await UnpublishedFrames.trim(try await resolver.resolve(animation), animation: animation, loader: loader)
            prefetched.merge(trimmed.loaded) { new, _ in new }
            for skipped in trimmed.skipped {
                reporter.warning("\(animation.id): \(skipped.time) left out of this build: \(skipped.reason); the next build picks it up")
            }
            var plan = Planner.plan(animation, source: trimmed.source)
            plan.skipped = trimmed.skipped
            warnIfOlder(plan, output: output)
            guard !plan.frames.isEmpty else { throw StepFailure("animation \(animation.id) has no frames") }
            // The tile size is final only now (a WMTS layer may bring 512-pixel tiles):
            // check the limits again before any tile is asked for.
            try plan.checkLimits(config.limits, file: config.file)
            reporter.planned(animation: animation.id, frames: plan.frames.count, tiles: plan.frames.count * plan.layout.tileCount)
            plans.append(plan)
        }
        return (plans, prefetched)
    }

    /// What rendering one animation gave: its manifest, or the tiles that failed it.
    struct Rendered {
        var manifest: AnimationManifest?
        var failures: [FailedTile]
        var reused: Int
    }

    /// One animation: its frames fetched, kept or stitched; then its poster, fallback
    /// tiles and manifest, into the staged site.
    func render(_ plan: AnimationPlan, loader: any TileLoader, writer: SiteWriter, points: [LoadedPointLayer]) async throws -> Rendered {
        let animation = plan.config
        let folder = writer.root.appendingPathComponent(animation.id)
        let timings = StageTimings()
        let pipeline = FramePipeline(
            animation: animation.id, frames: plan.frames,
            fetcher: FrameFetcher(loader: loader, reporter: reporter),
            reuse: FrameReuse(previous: writer.previous, animation: animation.id, grid: plan.grid, lastIndex: plan.frames.count - 1),
            stitcher: FrameStitcher(
                layout: plan.layout, grid: plan.grid, compressionLevel: animation.compressionLevel,
                missing: animation.missing, timings: timings, frameFormat: animation.frameFormat),
            reporter: reporter, timings: timings)
        let outcomes = try await step(.stitch) { try await pipeline.run(into: folder.appendingPathComponent("frames")) }
        reporter.detail("\(animation.id): \(timings.summary(frames: plan.frames.count))")
        // Tiles drawn transparent: one warning per cause (a gap is never silent), each tile
        // with --verbose.
        let transparent = outcomes.flatMap(\.transparent)
        for tile in transparent { reporter.detail("drawn transparent: \(tile)") }
        for line in TileProblemGroups(transparent).transparentWarnings() { reporter.warning(line) }
        let failures = outcomes.flatMap(\.failures)
        guard failures.isEmpty else { return Rendered(manifest: nil, failures: failures, reused: 0) }

        try await step(.stitch) { try Poster.write(outcomes.last?.poster, animation: animation.id, folder: folder, previous: writer.previous) }
        let fallback = try await step(.publish) {
            try await FallbackTilePublisher(
                animation: animation.id, zoom: animation.zoom, bbox: animation.bbox, tileSize: plan.layout.tileSize,
                settings: animation.fallback, sourceMaxZoom: plan.sourceMaxZoom, subdomains: animation.source.subdomains,
                locate: plan.locate, loader: loader, writer: writer
            ).publish(
                zip(plan.frames, outcomes).map { frame, outcome in
                    FallbackTilePublisher.Frame(
                        index: frame.index, sourceTemplate: frame.sourceTemplate,
                        previousIndex: outcome.previousIndex, previousHash: outcome.previousFallbackHash)
                })
        }
        if let summary = fallback.summary { reporter.detail(summary) }
        var frames = outcomes.compactMap(\.entry)
        for i in frames.indices {
            frames[i].fallbackHash = fallback.hashes[i]
            frames[i].tiles = nil
            if frames[i].missingTiles?.isEmpty == true { frames[i].missingTiles = nil }
        }
        // Levels: large frames also as tile pyramids, cut from the frame files just staged.
        var pyramid: AnimationManifest.Pyramid?
        if let levels = FramePyramidPublisher(animation: animation, layout: plan.layout, writer: writer) {
            let published = try await step(.publish) { try await levels.publish(frames) }
            for i in frames.indices { frames[i].tiles = published.tiles[i] }
            pyramid = levels.manifest
            reporter.levelsPublished(animation: animation.id, summary: levels.summary(published.cost, frames: frames.count))
        }
        var manifest = AnimationManifest(
            animation: animation, layout: plan.layout, frames: frames, fallback: fallback.fallback,
            baseMap: config.baseMap.flatMap { AnimationManifest.BaseMap($0) },
            allowedOrigins: config.embed.allowedOrigins, skipped: plan.skipped)
        if let image = plan.legendImage {
            try await step(.publish) { try writer.put(image.bytes, at: "\(animation.id)/\(image.name)") }
            manifest.legend?.image = image.name
        }
        manifest.pyramid = pyramid
        // Exported loops (MP4, GIF, WebP), from the frames just staged.
        if let settings = animation.export {
            var exporter = LoopExporter(
                animation: animation, settings: settings, layout: plan.layout, demoBaseMap: config.baseMap?.demo == true,
                writer: writer, reporter: reporter)
            exporter.backgroundTiles = plan.exportBackground
            exporter.cacheFolder = config.cache.enabled && options.useCache ? config.resolve(config.cache.path) : nil
            let exported = try await step(.publish) { try await exporter.export(frames) }
            for line in exported.lines { reporter.exported(animation: animation.id, summary: line) }
            manifest.exports = exported.exports
        }
        if !points.isEmpty {
            var layers: [AnimationManifest.PointLayer] = []
            for (config, set) in zip(animation.points, points) {
                let started = ContinuousClock.now
                let (layer, reused) = try await step(.publish) {
                    try PointPublisher(animation: animation.id, layer: config, frameTimes: plan.frames.map(\.time)).publish(set, with: writer)
                }
                if let skipped = layer.skipped {
                    reporter.warning("\(animation.id): points \(layer.id): \(skipped) invalid feature(s) or row(s) skipped (skip_invalid: true)")
                }
                let elapsed = started.duration(to: .now)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let how = reused ? "unchanged, linked" : "clustered and written"
                reporter.detail(
                    "\(animation.id): points \(layer.id): \(layer.count) points \(how) in \(String(format: "%.2f", seconds)) s, \(layer.levels.count) levels, \(layer.levels.reduce(0) { $0 + $1.bytes }) bytes"
                )
                layers.append(layer)
            }
            manifest.points = layers
        }
        try await step(.publish) { try writer.put(Array(JSONEncoder.manifest.encode(manifest)), at: "\(animation.id)/manifest.json") }
        return Rendered(manifest: manifest, failures: [], reused: outcomes.filter(\.reused).count)
    }

    /// A shard build: `--only` names some animations.
    var isShard: Bool { options.only != nil }

    /// The animations this build makes, in config order.
    var selected: [AnimationConfig] {
        guard let only = options.only else { return config.animations }
        return config.animations.filter { only.contains($0.id) }
    }

    /// `--only` must name animations of the config: a typo would otherwise build nothing.
    func checkOnly() throws {
        guard let only = options.only else { return }
        let known = config.animations.map(\.id)
        let unknown = only.filter { !known.contains($0) }
        guard unknown.isEmpty, !only.isEmpty else {
            throw ConfigError(
                file: config.file, line: nil, keyPath: "animations",
                message:
                    "--only names \(unknown.isEmpty ? "no animation" : unknown.joined(separator: ", ")), not an animation id of this config (ids: \(known.joined(separator: ", ")))"
            )
        }
    }

    var needsHTTP: Bool {
        config.animations.contains { animation in
            if case .index(let index) = animation.frames, case .url = index.location { return true }
            if animation.points.contains(where: { if case .url = $0.source { true } else { false } }) { return true }
            if animation.export?.backgroundTiles != nil { return true }
            switch animation.source.kind {
            case .url, .wmts, .wms: return true
            case .perFrame:
                if case .templates(let list) = animation.frames { return list.contains(where: \.isHTTP) }
                return false
            case .path, .mbtiles, .demo: return false
            }
        }
    }

    /// Says so when this build can only publish an older window than the site holds (a
    /// feed that went back, or a clock that did): cron runs should not regress silently.
    func warnIfOlder(_ plan: AnimationPlan, output: URL) {
        let id = plan.config.id
        let file = output.appendingPathComponent(id).appendingPathComponent("manifest.json")
        guard let newest = plan.frames.last?.time, let data = FileManager.default.contents(atPath: file.path),
            let published = try? JSONDecoder.manifest.decode(AnimationManifest.self, from: data),
            let text = published.frames.last?.time, let previous = TimeFormat.parseISO(text), newest < previous
        else { return }
        reporter.warning(
            "\(id): this build's newest frame (\(TimeFormat.iso(newest))) is older than the published site's (\(text)): the window it publishes is older than the previous one"
        )
    }

    func cache() -> HTTPCache? {
        guard config.cache.enabled, options.useCache else { return nil }
        return HTTPCache(directory: config.resolve(config.cache.path), maxSize: config.cache.maxSize, varyHeaders: config.http.headers)
    }

    func warnAboutPoliteness() {
        for animation in config.animations {
            let templates: [TileTemplate] =
                switch (animation.source.kind, animation.frames) {
                case (.url(let template), _): [template]
                case (.perFrame, .templates(let list)): list
                default: []
                }
            if templates.contains(where: { $0.host.map(Self.isOSMTileHost) ?? false }) {
                reporter.warning(
                    "\(animation.keyPath) (\(animation.id)): tile.openstreetmap.org's usage policy forbids bulk downloading of its tiles; use it only as base_map (loaded by viewers' browsers), or a provider that allows this"
                )
            }
        }
    }

    static func isOSMTileHost(_ host: String) -> Bool {
        host == "tile.openstreetmap.org" || host.hasSuffix(".tile.openstreetmap.org")
    }
}
