import Foundation
import MatsiteCapabilities

/// Plans one animation as `build` and `check` both do, so that they agree by construction:
/// resolve the source (capabilities, an index), leave out the newest frames a live feed has
/// not published yet (or fail when the whole window is missing), lay out each frame's
/// tiles, and hold the plan to the config's limits. What either command then does with
/// the plan (fetch and stitch, or probe) is its own.
struct AnimationPlanning: Sendable {
    let config: SiteConfig
    let resolver: SourceResolver
    let loader: any TileLoader
    let clock: PlanningClock

    /// A planning; `fetcher` is needed for capabilities and fetched indexes.
    init(config: SiteConfig, fetcher: HTTPFetcher?, loader: any TileLoader, clock: PlanningClock) {
        self.config = config
        self.resolver = SourceResolver(config: config, fetcher: fetcher, now: clock.now)
        self.loader = loader
        self.clock = clock
    }

    /// One animation planned.
    struct Planned: Sendable {
        /// The plan, with the frames left out as not published yet in `skipped`.
        var plan: AnimationPlan
        /// Tiles loaded while looking for unpublished frames, to be used, not asked again.
        var prefetched: [TileLocator: TileOutcome]
        /// What resolving found (layer, tile matrix set, time extent), for `check`; a
        /// layered animation's are its layers' (`LayerPlan.notes`).
        var notes: [String]
        /// For each of its sources with model runs, the run used and the newer ones passed over.
        var runs: [RunReport] = []
    }

    /// Plans `animation` as a stack of layers, each planned alike (resolved, its
    /// unpublished newest frames left out, its tiles laid out, held to the limits): a
    /// one-source animation is one layer, its own frames; a layered animation's layers keep
    /// only the frames a timeline time shows. Throws what stops it: a source that cannot be
    /// resolved, an empty window (`EmptyWindowError`), no frames, a layer nothing shows
    /// (`LayerNotShownError`), or frames over `limits` (a `ConfigError`).
    func plan(_ animation: AnimationConfig) async throws -> Planned {
        let timeline = try timelineTimes(of: animation)
        var stack: [LayerPlan] = []
        var prefetched: [TileLocator: TileOutcome] = [:]
        var runs: [RunReport] = []
        var resolved: [(layer: LayerConfig?, part: AnimationConfig, trimmed: UnpublishedFrames.Result)] = []
        for layer in animation.isLayered ? animation.layers.map(Optional.some) : [nil] {
            let part = layer.map(animation.layerConfig) ?? animation
            var source = try await resolver.resolve(part)
            var chosen = false
            if !source.runCandidates.isEmpty {
                // The newest complete run; its newest frame is known to be out, so the
                // frames not published yet are not looked for again.
                let choice = try await RunChoice.choose(source, animation: part, loader: loader)
                (source, chosen) = (choice.source, true)
                prefetched.merge(choice.loaded) { new, _ in new }
                runs.append(choice.report)
            }
            let trimmed =
                chosen
                ? UnpublishedFrames.Result(source: source, skipped: [], loaded: [:])
                : try await UnpublishedFrames.trim(source, animation: part, loader: loader, clock: clock)
            prefetched.merge(trimmed.loaded) { new, _ in new }
            resolved.append((layer, part, trimmed))
        }
        // Past meets future: with a layer of forecasts, each time shows observations up to
        // now and forecasts after the newest observation any layer has.
        let all = resolved.flatMap(\.trimmed.source.frames)
        let future =
            all.contains { $0.kind == .forecast }
            ? Timeline.Future(now: clock.now, observedUntil: all.filter { $0.kind == .observed }.compactMap(\.time).max()) : nil
        for (layer, part, trimmed) in resolved {
            var shown = trimmed.source
            var placed: (mapping: [Int?], maxAge: ISODuration?)? = nil
            if let layer, let timeline {
                placed = try place(layer, of: animation, frames: &shown, on: timeline, future: future)
            }
            var plan = Planner.plan(part, source: shown)
            plan.skipped = trimmed.skipped
            guard !plan.frames.isEmpty else { throw NoFramesError(animation: animation.id) }
            // The tile size is final only now (a WMTS layer may bring 512-pixel tiles): check
            // the limits again before any tile is asked for.
            try plan.checkLimits(config.limits, file: config.file)
            stack.append(
                LayerPlan(
                    layer: layer, plan: plan, mapping: placed?.mapping ?? plan.frames.indices.map { $0 }, maxAge: placed?.maxAge,
                    notes: trimmed.source.notes, future: layer == nil ? nil : future))
        }
        guard let timeline else { return Planned(plan: stack[0].plan.alone(), prefetched: prefetched, notes: stack[0].notes, runs: runs) }
        return Planned(plan: try layered(animation, timeline: timeline, stack: stack), prefetched: prefetched, notes: [], runs: runs)
    }
}

/// An animation whose source offers no frame for its `frames:` setting.
struct NoFramesError: Swift.Error, CustomStringConvertible, Equatable {
    let animation: String

    var description: String { "animation \(animation) has no frames" }
}
