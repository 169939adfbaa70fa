import Foundation
import MatsiteCapabilities

/// The time a run takes as now, and where it came from, for messages that show it.
struct PlanningClock: Sendable, CustomStringConvertible {
    /// Now, for rolling windows and index times.
    var now: TimeInstant
    /// True when `--at` gave it.
    var fromAt: Bool

    var description: String {
        fromAt ? "--at \(TimeFormat.iso(now))" : "the clock said \(TimeFormat.iso(now))"
    }
}

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
    }

    /// Plans `animation`. Throws what stops it: a source that cannot be resolved, an empty
    /// window (`EmptyWindow`), no frames, or frames over `limits` (a `ConfigError`).
    func plan(_ animation: AnimationConfig) async throws -> Planned {
        if animation.isLayered { return try await planLayers(of: animation) }
        let source = try await resolver.resolve(animation)
        let trimmed = try await UnpublishedFrames.trim(source, animation: animation, loader: loader, clock: clock)
        var plan = Planner.plan(animation, source: trimmed.source)
        plan.skipped = trimmed.skipped
        guard !plan.frames.isEmpty else { throw NoFrames(animation: animation.id) }
        // The tile size is final only now (a WMTS layer may bring 512-pixel tiles): check
        // the limits again before any tile is asked for.
        try plan.checkLimits(config.limits, file: config.file)
        return Planned(plan: plan, prefetched: trimmed.loaded, notes: trimmed.source.notes)
    }
}

/// An animation whose source offers no frame for its `frames:` setting.
struct NoFrames: Swift.Error, CustomStringConvertible, Equatable {
    let animation: String

    var description: String { "animation \(animation) has no frames" }
}
