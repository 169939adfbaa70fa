import Foundation
import MatsiteCapabilities

extension AnimationPlanning {
    /// Plans a layered animation: its timeline's times, then each layer as a one-source
    /// animation is planned (resolved, its unpublished newest frames left out, its tiles
    /// laid out, held to the limits), keeping only the layer frames a timeline time shows.
    func planLayers(of animation: AnimationConfig) async throws -> Planned {
        let times = try SourceResolver.frames(animation.frames, timeFormat: animation.timeFormat, now: clock.now).compactMap(\.time)
        guard !times.isEmpty else { throw NoFrames(animation: animation.id) }
        var layers: [LayerPlan] = []
        var prefetched: [TileLocator: TileOutcome] = [:]
        for layer in animation.layers {
            let layerConfig = animation.layerConfig(layer)
            let source = try await resolver.resolve(layerConfig)
            let trimmed = try await UnpublishedFrames.trim(source, animation: layerConfig, loader: loader, clock: clock)
            prefetched.merge(trimmed.loaded) { new, _ in new }
            // The config admits only timed frames for a layer: an untimed one is never shown.
            let frames = trimmed.source.frames.filter { $0.time != nil }
            let frameTimes = frames.compactMap(\.time)
            let maxAge = layer.maxAge ?? Timeline.defaultMaxAge(layer.feed.frames, times: frameTimes, timeline: times)
            let (used, mapping) = Timeline.used(Timeline.map(times, frames: frameTimes, maxAge: maxAge))
            guard !used.isEmpty else {
                throw LayerNotShown(animation: animation, layer: layer, frames: frameTimes, timeline: times, maxAge: maxAge, file: config.file)
            }
            var shown = trimmed.source
            shown.frames = used.map { frames[$0] }
            var plan = Planner.plan(layerConfig, source: shown)
            plan.skipped = trimmed.skipped
            try plan.checkLimits(config.limits, file: config.file)
            layers.append(LayerPlan(layer: layer, plan: plan, mapping: mapping, maxAge: maxAge, notes: trimmed.source.notes))
        }
        // The timeline: times and durations; its pictures are the layers'. Its geometry is
        // the bottom layer's (every layer covers the same box at the same zoom).
        let bottom = layers[0].plan
        let timeline = times.enumerated().map { position, time in
            FramePlan(
                index: position, time: time,
                durationMs: position == times.count - 1 ? (animation.lastFrameDurationMs ?? animation.frameDurationMs) : animation.frameDurationMs,
                tiles: [], sourceTemplate: nil)
        }
        var plan = AnimationPlan(
            config: animation, layout: bottom.layout, sourceZoom: bottom.sourceZoom, frames: timeline, locate: bottom.locate,
            sourceMaxZoom: bottom.sourceMaxZoom)
        plan.layers = layers
        try plan.checkLimits(config.limits, file: config.file)
        return Planned(plan: plan, prefetched: prefetched, notes: [])
    }
}

/// A layer none of whose frames any timeline time shows: its frames are all after the
/// timeline, or older than `max_age` at every timeline time (a feed that stopped, a
/// window that does not overlap the timeline). Publishing the animation without it would
/// hide the outage. Named like a config error (`file:line: key.path:`), as the fix is made
/// there; the build fails (exit 1), as for any feed that fails.
struct LayerNotShown: Swift.Error, CustomStringConvertible {
    let animation: AnimationConfig
    let layer: LayerConfig
    /// The layer's frame times (oldest first).
    let frames: [TimeInstant]
    let timeline: [TimeInstant]
    let maxAge: ISODuration?
    let file: String

    var description: String {
        let path = animation.layerConfig(layer).keyPath
        let span: ([TimeInstant]) -> String = { times in
            guard let first = times.first, let last = times.last else { return "none" }
            return first == last ? first.manifestText : "\(first.manifestText) to \(last.manifestText)"
        }
        let within = maxAge.map { "within max_age \($0) at or before" } ?? "at or before"
        // Where the layer is written, as a config error says it: the feed is stale, but the
        // fix (frames, max_age) is made there.
        let place = layer.line.map { "\(file):\($0)" } ?? file
        return """
            \(place): \(path): layer \(layer.id) of animation \(animation.id) shows nothing: none of its \(frames.count) frame(s) (\(span(frames))) \
            is \(within) a timeline time (\(span(timeline)))
              hint: check the layer's frames against the animation's frames (the timeline), or raise \(path).max_age
            """
    }
}
