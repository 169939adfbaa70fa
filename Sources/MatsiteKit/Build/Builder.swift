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
        let lock = try await step(.publish) { try await OutputLock.acquire(for: output, wait: options.lockWait) }
        Staging.recover(output: output)
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
        // Plan: which tiles make which frame.
        let plans = try await step(.plan) { try await plan(fetcher: fetcher) }

        let staging = try await step(.publish) { try Staging.create(beside: output) }
        do {
            let loader = TileSourceLoader(fetcher: fetcher, exceptionMessage: OGCSources.exceptionMessage)
            let previous = PreviousSite(output: output)
            let pages = try await step(.pages) { try PageRenderer(overrides: config.templates.map(config.resolve)) }
            let writer = SiteWriter(root: staging.url, previous: previous)
            let assets = try await step(.publish) {
                try SiteAssets.publish(with: writer, pages: pages, leaflet: config.resolve(config.leaflet),
                                       demoBaseMap: config.baseMap?.demo == true)
            }
            // Fetch + stitch, animation by animation.
            var manifests: [AnimationManifest] = []
            var failures: [FailedTile] = []
            var reused = 0
            for plan in plans {
                let result = try await render(plan, loader: loader, writer: writer)
                failures += result.failures
                reused += result.reused
                if let manifest = result.manifest { manifests.append(manifest) }
            }
            guard failures.isEmpty else { throw BuildError.tilesFailed(failures) }
            // Pages and manifests.
            try await step(.pages) { try SitePages(config: config, pages: pages, assets: assets).write(manifests, with: writer) }
            // Publish.
            var summary = BuildSummary()
            // The old tree was listed when the build began (the lock keeps it as it was).
            let staged = TreeComparison.files(staging.url) ?? [:]
            summary.unchanged = TreeComparison.equal(staging.url, staged, output, previous.files)
            if summary.unchanged { staging.discard() } else { try await step(.publish) { try staging.publish() } }
            summary.animations = manifests.count
            summary.frames = manifests.reduce(0) { $0 + $1.frames.count }
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

    /// Resolves each animation's source and plans its frames, within the limits.
    func plan(fetcher: HTTPFetcher?) async throws -> [AnimationPlan] {
        let resolver = SourceResolver(config: config, fetcher: fetcher)
        var plans: [AnimationPlan] = []
        for animation in config.animations {
            let plan = Planner.plan(animation, source: try await resolver.resolve(animation))
            guard !plan.frames.isEmpty else { throw StepFailure("animation \(animation.id) has no frames") }
            guard plan.frames.count <= config.limits.maxFrames else {
                throw StepFailure("animation \(animation.id) has \(plan.frames.count) frames, over limits.max_frames (\(config.limits.maxFrames))")
            }
            reporter.planned(animation: animation.id, frames: plan.frames.count, tiles: plan.frames.count * plan.layout.tileCount)
            plans.append(plan)
        }
        return plans
    }

    /// What rendering one animation gave: its manifest, or the tiles that failed it.
    struct Rendered {
        var manifest: AnimationManifest?
        var failures: [FailedTile]
        var reused: Int
    }

    /// One animation: its frames fetched, kept or stitched; then its poster, fallback
    /// tiles and manifest, into the staged site.
    func render(_ plan: AnimationPlan, loader: any TileLoader, writer: SiteWriter) async throws -> Rendered {
        let animation = plan.config
        let folder = writer.root.appendingPathComponent(animation.id)
        let timings = StageTimings()
        let pipeline = FramePipeline(
            animation: animation.id, frames: plan.frames,
            fetcher: FrameFetcher(loader: loader, reporter: reporter),
            reuse: FrameReuse(previous: writer.previous, animation: animation.id, grid: plan.grid, lastIndex: plan.frames.count - 1),
            stitcher: FrameStitcher(layout: plan.layout, grid: plan.grid, compressionLevel: animation.compressionLevel,
                                    missing: animation.missing, timings: timings),
            reporter: reporter, timings: timings)
        let outcomes = try await step(.stitch) { try await pipeline.run(into: folder.appendingPathComponent("frames")) }
        reporter.detail("\(animation.id): \(timings.summary(frames: plan.frames.count))")
        let failures = outcomes.flatMap(\.failures)
        guard failures.isEmpty else { return Rendered(manifest: nil, failures: failures, reused: 0) }

        try await step(.stitch) { try Poster.write(outcomes.last?.poster, animation: animation.id, folder: folder, previous: writer.previous) }
        let fallback = try await step(.publish) { try await FallbackTilePublisher(
            animation: animation.id, zoom: animation.zoom, bbox: animation.bbox, tileSize: animation.source.tileSize,
            settings: animation.fallback, sourceMaxZoom: plan.sourceMaxZoom, subdomains: animation.source.subdomains,
            locate: plan.locate, loader: loader, writer: writer
        ).publish(zip(plan.frames, outcomes).map { frame, outcome in
            FallbackTilePublisher.Frame(index: frame.index, sourceTemplate: frame.sourceTemplate,
                  previousIndex: outcome.previousIndex, previousHash: outcome.previousFallbackHash)
        }) }
        if let summary = fallback.summary { reporter.detail(summary) }
        var frames = outcomes.compactMap(\.entry)
        for i in frames.indices {
            frames[i].fallbackHash = fallback.hashes[i]
            if frames[i].missingTiles?.isEmpty == true { frames[i].missingTiles = nil }
        }
        let manifest = AnimationManifest(animation: animation, layout: plan.layout, frames: frames, fallback: fallback.fallback,
                                         baseMap: config.baseMap.flatMap { AnimationManifest.BaseMap($0) },
                                         allowedOrigins: config.embed.allowedOrigins)
        try await step(.publish) { try writer.put(Array(JSONEncoder.manifest.encode(manifest)), at: "\(animation.id)/manifest.json") }
        return Rendered(manifest: manifest, failures: [], reused: outcomes.filter(\.reused).count)
    }

    var needsHTTP: Bool {
        config.animations.contains { animation in
            switch animation.source.kind {
            case .url, .wmts, .wms: return true
            case .perFrame:
                if case .templates(let list) = animation.frames { return list.contains { $0.hasPrefix("http") } }
                return false
            case .path, .mbtiles, .demo: return false
            }
        }
    }

    func cache() -> HTTPCache? {
        guard config.cache.enabled, options.useCache else { return nil }
        return HTTPCache(directory: config.resolve(config.cache.path), maxSize: config.cache.maxSize, varyHeaders: config.http.headers)
    }

    func warnAboutPoliteness() {
        for animation in config.animations {
            var urls: [String] = []
            switch animation.source.kind {
            case .url(let url): urls = [url]
            case .perFrame: if case .templates(let list) = animation.frames { urls = list }
            default: break
            }
            // Templates hold braces, which URL parsing refuses: take the authority by hand.
            let hosts = urls.compactMap { url -> String? in
                guard let scheme = url.range(of: "://") else { return nil }
                let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
                return authority.split(separator: "@").last?.split(separator: ":").first.map { $0.lowercased() }
            }
            if hosts.contains(where: { $0 == "tile.openstreetmap.org" || $0.hasSuffix(".tile.openstreetmap.org") }) {
                reporter.warning("animations \(animation.id): tile.openstreetmap.org's usage policy forbids bulk downloading of its tiles; use it only as base_map (loaded by viewers' browsers), or a provider that allows this")
            }
        }
    }
}
