import Foundation
import MatsiteCapabilities
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
    public var at: TimeInstant?
    /// `--recheck`: ask the feed again for every frame, settled or not (by default a frame
    /// published from the same URLs is carried forward once it is `settle:` old).
    public var recheck = false
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

extension Builder {
    func build() async throws -> BuildSummary {
        let started = Date()
        let output = config.resolve(options.output ?? config.output).standardizedFileURL
        try checkOnly()
        // A whole build holds the lock throughout (overlapping cron runs wait); a shard
        // only while it publishes (see `build(output:...)`).
        let lock = isShard ? nil : try await step(.publish) { try await OutputLock.acquire(for: output, wait: options.lockWait) }
        if !isShard { Staging.recover(output: output) }
        let cache = self.cache()
        let fetcher = config.needsNetwork ? HTTPFetcher(options: config.http, cache: cache, reporter: reporter) : nil
        do {
            let summary = try await build(output: output, fetcher: fetcher, started: started)
            await fetcher?.shutdown()
            // A whole build used every tile its windows need: the rest may go (a shard's may not).
            cache?.finish(evictUnusedOlderThan: isShard ? nil : HTTPCache.evictionGrace)
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
        warnAboutBaseURL()
        // Each loop stands on its own: what fails one animation (its feed, its index, its
        // points) is recorded here, the others go on, and it keeps its published version.
        var failed = LoopFailures()
        // Files the config names are config: a bad one is a config error, found before any request.
        var inputs: [String: AnimationInputs] = [:]
        // An export keeps its encoded frames in the cache folder, so a moved window encodes only what is new.
        let exportCache = config.cache.enabled && options.useCache ? config.resolve(config.cache.path) : nil
        for animation in selected {
            try failed.run(animation.id) {
                inputs[animation.id] = AnimationInputs(legendImage: try LegendImage.read(animation, config: config), exportCache: exportCache)
                for layer in animation.layers {
                    inputs[animation.id]?.layerLegendImages[layer.id] = try LegendImage.read(animation.layerConfig(layer), config: config)
                }
            }
        }
        // Plan: which tiles make which frame.
        let tileLoader = TileSourceLoader(fetcher: fetcher, exceptions: OGCSources.exceptions)
        let clock = PlanningClock(now: options.at ?? TimeInstant(started), fromAt: options.at != nil)
        var (plans, prefetched, loopAlerts) = try await plan(
            fetcher: fetcher, loader: tileLoader, output: output, clock: clock, failed: &failed)
        let previous = PreviousSite(output: output)
        try await fetchInputs(of: plans, into: &inputs, fetcher: fetcher, previous: previous, failed: &failed, alerts: &loopAlerts)

        let staging = try await step(.publish) { try Staging.create(beside: output) }
        do {
            let loader = PrefetchedTiles(base: tileLoader, loaded: prefetched)
            let pages = try await step(.pages) { try PageRenderer(overrides: config.templates.map(config.resolve)) }
            let writer = SiteWriter(root: staging.url, previous: previous)
            let (leaflet, demoBaseMap) = (config.resolve(config.leaflet), config.baseMap?.demo == true)
            let demoDetails = demoBaseMap ? config.animations.compactMap(DemoBaseMap.Detail.init) : []
            // On the CPU pool: hashing the assets and drawing the demo base map's tiles.
            let assets = try await step(.publish) {
                try await CPUPool.shared.run {
                    try SiteAssets.publish(with: writer, pages: pages, leaflet: leaflet, demoBaseMap: demoBaseMap, demoDetails: demoDetails)
                }
            }
            // Fetch + stitch, then the products, animation by animation.
            var rendered: [Rendered] = []
            for plan in plans where !failed.contains(plan.config.id) {
                let id = plan.config.id
                try await failed.run(id) {
                    let made = try await render(
                        plan, inputs: inputs[id] ?? AnimationInputs(), loader: loader, writer: writer, now: clock.now, fetcher: fetcher)
                    rendered.append(made)
                    for alert in made.alerts { loopAlerts[id, default: []].append(alert.description) }
                }
                // What a failed loop staged is dropped: its published version is kept whole.
                if failed.contains(id) { try? FileManager.default.removeItem(at: staging.url.appendingPathComponent(id)) }
            }
            // Nothing to publish: the build fails as a whole, the site stays as it was.
            if rendered.isEmpty, let error = failed.wholeError { throw error }
            var manifests = rendered.compactMap(\.manifest)
            let built = Set(rendered.compactMap(\.manifest?.id))
            // A shard: now, under the lock, the other animations as published at this moment;
            // a whole build: the failed loops as the build found them.
            let (current, shardLock) =
                isShard
                ? try await keepOtherAnimations(&manifests, built: built, output: output, staging: staging)
                : (previous, nil)
            if !isShard, !failed.isEmpty {
                let kept = try await step(.publish) {
                    try ShardAssembly(current: previous, built: built).keepOthers(
                        manifests, config: config, into: writer, only: failed.ids)
                }
                manifests = kept.manifests
                failed.markUnpublished(kept.unpublished)
            }
            let previousStatus = SiteStatus.read(output: current.output)
            let status = SiteStatus.next(
                after: previousStatus, config: config, built: rendered.compactMap(\.manifest), kept: manifests,
                failed: failed, alerts: loopAlerts, now: clock.now)
            // Pages and manifests.
            try await step(.pages) {
                try SitePages(config: config, pages: pages, assets: assets).write(manifests, with: SiteWriter(root: staging.url, previous: current))
            }
            // Publish. The old tree as listed under the lock (when the build began, or for a shard now).
            let staged = TreeComparison.files(staging.url) ?? [:]
            let unchanged = TreeComparison.equal(staging.url, staged, output, current.files.filter { $0.key != SiteStatus.file })
            if unchanged {
                staging.discard()
                if !status.sameApartFromClocks(previousStatus) { try await step(.publish) { try status.write(into: output) } }
            } else {
                try await step(.publish) {
                    try status.write(into: staging.url)
                    try staging.publish()
                }
            }
            withExtendedLifetime(shardLock) {}
            var summary = summary(
                of: plans.filter { built.contains($0.config.id) }, reused: rendered.reduce(0) { $0 + $1.reused }, fetcher: fetcher, started: started)
            summary.unchanged = unchanged
            summary.staleLoops = status.staleLoops(failed: failed)
            // Published or kept, the output now holds exactly the staged files.
            summary.outputBytes = staged.values.reduce(0) { $0 + $1.size }
            summary.output = output.path
            return summary
        } catch {
            staging.discard()
            throw error
        }
    }

    /// What the products need besides tiles, fetched before anything is staged (a failure
    /// leaves the loop's published version as it was): an export's background tiles, the
    /// point layers.
    func fetchInputs(
        of plans: [AnimationPlan], into inputs: inout [String: AnimationInputs], fetcher: HTTPFetcher?, previous: PreviousSite,
        failed: inout LoopFailures, alerts: inout [String: [String]]
    ) async throws {
        for plan in plans {
            let animation = plan.config
            try await failed.run(animation.id) {
                if let template = animation.export?.backgroundTiles, let fetcher {
                    inputs[animation.id]?.exportBackground = try await step(.fetch) {
                        try await ExportBackgroundTiles.fetch(template, layout: plan.layout, zoom: animation.zoom, fetcher: fetcher)
                    }
                }
                let points = try await step(.plan) {
                    try await PointLoader(config: config, fetcher: fetcher, observedThrough: plan.observedThrough).load(
                        animation, frameTimes: plan.frames.map(\.time), previous: previous)
                }
                inputs[animation.id]?.points = points
                for case .kept(let entry, let cause) in points {
                    let alert = LoopAlert.partKept(animation: animation.id, part: "points \(entry.id)", cause: String(describing: cause))
                    reporter.report(.alert(alert))
                    alerts[animation.id, default: []].append(alert.description)
                }
            }
        }
    }

    /// A shard build, under the output's lock (held until it publishes): the other
    /// animations' files as published now (and those of its own that failed), linked into
    /// the staged site, and their manifests with `manifests`. Returns the site as it is now,
    /// and the lock.
    func keepOtherAnimations(
        _ manifests: inout [AnimationManifest], built: Set<String>, output: URL, staging: Staging
    ) async throws -> (PreviousSite, OutputLock?) {
        let lock = try await step(.publish) { try await OutputLock.acquire(for: output, wait: options.lockWait) }
        Staging.recover(output: output)
        let current = PreviousSite(output: output)
        let made = manifests
        let kept = try await step(.publish) {
            try ShardAssembly(current: current, built: built)
                .keepOthers(made, config: config, into: SiteWriter(root: staging.url, previous: current))
        }
        manifests = kept.manifests
        let selectedIds = Set(selected.map(\.id))
        for id in kept.unpublished where !selectedIds.contains(id) {
            reporter.report(.warning(.notPublishedYet(animation: id)))
        }
        return (current, lock)
    }

    /// What this build made (a shard keeps the others as they were) and fetched.
    func summary(of plans: [AnimationPlan], reused: Int, fetcher: HTTPFetcher?, started: Date) -> BuildSummary {
        var summary = BuildSummary()
        summary.animations = plans.count
        summary.frames = plans.reduce(0) { $0 + $1.frameCount }
        summary.framesReused = reused
        summary.tiles = plans.reduce(0) { $0 + $1.tileCount }
        if let stats = fetcher?.statistics {
            summary.requests = stats.requests
            summary.bytesFetched = stats.bytes
            summary.notModified = stats.notModified
        }
        summary.seconds = Date().timeIntervalSince(started)
        return summary
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
    /// returns the tiles loaded while looking for frames not published yet. An animation
    /// whose planning fails is recorded in `failed`, the others planned.
    func plan(
        fetcher: HTTPFetcher?, loader: TileSourceLoader, output: URL, clock: PlanningClock, failed: inout LoopFailures
    ) async throws
        -> (plans: [AnimationPlan], prefetched: [TileLocator: TileOutcome], alerts: [String: [String]])
    {
        let planning = AnimationPlanning(config: config, fetcher: fetcher, loader: loader, clock: clock)
        var plans: [AnimationPlan] = []
        var prefetched: [TileLocator: TileOutcome] = [:]
        var loopAlerts: [String: [String]] = [:]
        for animation in selected where !failed.contains(animation.id) {
            try await failed.run(animation.id) {
                let planned = try await step(.plan) { try await planning.plan(animation) }
                prefetched.merge(planned.prefetched) { new, _ in new }
                // A live feed's newest frames not published yet are left out (a layer's too).
                for (id, skipped) in planned.plan.leftOut {
                    reporter.report(.warning(.newestFrameLeftOut(animation: id, frame: skipped)))
                }
                // A newer model run not complete yet: the run before it stays published.
                for runs in planned.runs where !runs.lacking.isEmpty { reporter.report(.warning(.runIncomplete(runs))) }
                for alert in alerts(for: planned.plan, output: output, now: clock.now) {
                    reporter.report(.alert(alert))
                    loopAlerts[animation.id, default: []].append(alert.description)
                }
                reporter.planned(animation: animation.id, frames: planned.plan.frameCount, tiles: planned.plan.tileCount)
                plans.append(planned.plan)
            }
        }
        return (plans, prefetched, loopAlerts)
    }

    /// What rendering one animation gave: its manifest.
    struct Rendered {
        var manifest: AnimationManifest?
        var reused: Int
        /// Parts of the loop kept as last published (a layer), said as alerts.
        var alerts: [LoopAlert] = []
    }

    /// One animation as the stack of layers it is (a one-source animation's stack is one
    /// layer, its own frames in its own folder): each layer's frames fetched, kept or
    /// stitched by `FramePipeline`, then its products (`AnimationSteps.layer`); then the
    /// animation's products (`AnimationSteps.animation`) over its layers and timeline.
    ///
    /// A layer of `layers:` that cannot be made (its feed down, its tiles missing) keeps its
    /// published version, mapped onto the new timeline within its `max_age`, while the
    /// other layers move on, said as an alert; one never published fails the animation.
    func render(
        _ plan: AnimationPlan, inputs: AnimationInputs, loader: any TileLoader, writer: SiteWriter, now: TimeInstant, fetcher: HTTPFetcher?
    ) async throws -> Rendered {
        var (plan, inputs) = (plan, inputs)
        var layers: [LayerContext] = []
        var alerts: [LoopAlert] = []
        var (reused, poster): (Int, Poster?) = (0, nil)
        for (position, part) in plan.stack.enumerated() {
            let legendImage = part.layer.map { inputs.layerLegendImages[$0.id] } ?? inputs.legendImage
            do {
                let made = try await renderLayer(part, on: plan.frames.compactMap(\.time), legendImage: legendImage, loader: loader, writer: writer, now: now)
                reused += made.reused
                poster = made.poster
                plan.stack[position] = made.layer.layer
                layers.append(made.layer)
            } catch {
                if error is CancellationError || Task.isCancelled { throw error }
                guard let layer = part.layer, let kept = try keepPublished(part, of: plan, loader: loader, writer: writer) else { throw error }
                let alert = LoopAlert.partKept(animation: plan.config.id, part: "layer \(layer.id)", cause: String(describing: error))
                reporter.report(.alert(alert))
                alerts.append(alert)
                plan.stack[position] = kept.layer
                layers.append(kept)
            }
        }
        // A one-source animation some of whose frames were left out (they failed inside the
        // window and were never published): the animation is its one layer as renumbered,
        // and its point layers are counted for the frames that remain.
        if !plan.config.isLayered, let own = plan.stack.first?.plan, own.frames.count != plan.frames.count {
            plan = own.alone()
            if !inputs.points.isEmpty {
                inputs.points = try await step(.plan) {
                    try await PointLoader(config: config, fetcher: fetcher, observedThrough: plan.observedThrough).load(
                        plan.config, frameTimes: plan.frames.map(\.time), previous: writer.previous)
                }
            }
        }
        var context = AnimationContext(
            plan: plan, site: config, inputs: inputs, loader: loader, writer: writer, reporter: reporter, layers: layers,
            timeline: Timeline(plan), poster: poster, now: now)
        for product in AnimationSteps.animation {
            try await step(product.stage) { try await product.run(&context) }
        }
        return Rendered(manifest: context.products[AnimationManifest.self], reused: reused, alerts: alerts)
    }

    /// One layer of a stack: its frames through `FramePipeline` into its folder (a frame
    /// that failed inside the window and was never published left out, the layer placed
    /// again on `timeline`'s times), then its products. The poster is sampled from the last
    /// frame of a one-source animation's only layer.
    func renderLayer(
        _ part: LayerPlan, on timeline: [TimeInstant], legendImage: LegendImage?, loader: any TileLoader, writer: SiteWriter, now: TimeInstant
    ) async throws -> (layer: LayerContext, reused: Int, poster: Poster?) {
        let own = part.layer == nil
        let outcomes = try await renderFrames(part.plan, loader: loader, writer: writer, poster: own, now: now)
        let failures = outcomes.flatMap(\.failures)
        guard failures.isEmpty else {
            // The error groups them by cause; --verbose lists each first.
            for tile in failures { reporter.report(.tileFailed(tile)) }
            throw BuildError.tilesFailed(failures)
        }
        var (part, frames) = (part, outcomes.compactMap(\.frame))
        let leftOut = outcomes.filter { $0.leftOut != nil }
        if !leftOut.isEmpty {
            part = try part.leavingOut(Set(leftOut.map(\.index)), skipped: leftOut.compactMap(\.leftOut), timeline: timeline)
            for i in frames.indices { frames[i].index = i }
        }
        var context = LayerContext(
            layer: part, site: config, legendImage: legendImage, loader: loader, writer: writer, reporter: reporter, frames: frames)
        for product in AnimationSteps.layer {
            try await step(product.stage) { try await product.run(&context) }
        }
        return (context, outcomes.filter(\.reused).count, own ? outcomes.last?.poster : nil)
    }

    /// A plan's frames (an animation's, or a layer's in its folder) fetched, kept or
    /// stitched into `<id>/frames/`, with their costs and transparent tiles reported; a
    /// loop with not one tile fails here. `poster`: sample the last frame for the poster.
    func renderFrames(
        _ plan: AnimationPlan, loader: any TileLoader, writer: SiteWriter, poster: Bool, now: TimeInstant
    ) async throws -> [FramePipeline.Outcome] {
        let animation = plan.config
        let timings = StageTimings()
        var pipeline = FramePipeline(
            animation: animation.id, frames: plan.frames,
            fetcher: FrameFetcher(loader: loader, reporter: reporter),
            reuse: FrameReuse(
                previous: writer.previous, animation: animation.id, grid: plan.grid, lastIndex: poster ? plan.frames.count - 1 : -1),
            stitcher: FrameStitcher(
                layout: plan.layout, grid: plan.grid, compressionLevel: animation.compressionLevel,
                missing: animation.missing, timings: timings, frameFormat: animation.frameFormat),
            reporter: reporter, timings: timings)
        pipeline.carry = CarryForward(
            now: now, settle: animation.settle, recheck: options.recheck,
            publishedNewest: writer.previous.newestTime(animation: animation.id), live: animation.frames.isLive,
            newestIndex: plan.frames.count - 1, mayLeaveOut: true)
        let folder = writer.root.appendingPathComponent(animation.id).appendingPathComponent("frames")
        let outcomes = try await step(.stitch) { try await pipeline.run(into: folder) }
        reporter.report(.framesMade(timings.times(animation: animation.id, frames: plan.frames.count)))
        // Tiles drawn transparent: one warning per cause (a gap is never silent), each tile
        // with --verbose.
        let transparent = outcomes.flatMap(\.transparent)
        for tile in transparent { reporter.report(.tileDrawnTransparent(tile)) }
        try await step(.fetch) { try EmptyLoopError.check(outcomes, frames: plan.frames, animation: animation.id) }
        for line in TileProblemGroups(transparent).transparentWarnings() { reporter.report(.warning(.drawnTransparent(line))) }
        return outcomes
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

    /// What an operator must see about a planned loop (even under `--quiet`): a window
    /// older than the one the site has published (a feed that went back, or a clock that
    /// did), a live feed whose newest time is older than its cadence allows.
    func alerts(for plan: AnimationPlan, output: URL, now: TimeInstant) -> [LoopAlert] {
        let id = plan.config.id
        var alerts: [LoopAlert] = []
        // The observations are what moves on with the clock: forecasts come and go (a
        // nowcast list may be empty, a run may reach less far) whatever the feed's age.
        let observed = plan.frames.filter { $0.kind == .observed }.compactMap(\.time)
        let file = output.appendingPathComponent(id).appendingPathComponent("manifest.json")
        if let newest = observed.last, let data = FileManager.default.contents(atPath: file.path),
            let published = try? JSONDecoder.manifest.decode(AnimationManifest.self, from: data),
            let previous = published.frames.last(where: { $0.kind == nil })?.time, newest < previous
        {
            alerts.append(.olderWindow(animation: id, newest: newest, published: previous))
        }
        if let stalled = FeedCadence(plan.config.frames, times: observed)?.stalled(newest: observed.last, now: now) {
            alerts.append(.feedStalled(animation: id, newest: stalled.newest, age: stalled.age, step: stalled.step))
        }
        return alerts
    }

    func cache() -> HTTPCache? {
        guard config.cache.enabled, options.useCache else { return nil }
        // Uses and eviction follow the build's clock: a run of --at builds (a backfill, a
        // simulated day) ages the cache as the builds' times say.
        let at = options.at
        return HTTPCache(
            directory: config.resolve(config.cache.path), maxSize: config.cache.maxSize, varyHeaders: config.http.headers,
            clock: { at?.date ?? Date() })
    }

    /// The embed code is for other sites: it cannot work there without a whole `base_url`.
    func warnAboutBaseURL() {
        guard !SiteAddress.isAbsolute(config.baseURL), !config.isEmbeddedDemo else { return }
        reporter.report(.warning(.relativeBaseURL(config.baseURL, file: config.file, line: config.baseURLLine)))
    }

    func warnAboutPoliteness() {
        for animation in config.animations.flatMap({ animation in [animation] + animation.layers.map(animation.layerConfig) }) {
            let templates: [TileTemplate] =
                switch (animation.source.kind, animation.frames) {
                case (.url(let template), _): [template]
                case (.perFrame, .templates(let list)): list
                default: []
                }
            if templates.contains(where: { $0.host.map(Self.isOSMTileHost) ?? false }) {
                reporter.report(.warning(.bulkDownloadForbidden(keyPath: animation.keyPath, animation: animation.id)))
            }
        }
    }

    static func isOSMTileHost(_ host: String) -> Bool {
        host == "tile.openstreetmap.org" || host.hasSuffix(".tile.openstreetmap.org")
    }
}
