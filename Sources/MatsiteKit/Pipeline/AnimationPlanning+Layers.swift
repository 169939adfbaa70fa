import Foundation
import MatsiteCapabilities

extension AnimationPlanning {
    /// A layered animation's timeline times (nil for a one-source animation): its own
    /// `frames:`, which must give at least one.
    func timelineTimes(of animation: AnimationConfig) throws -> [TimeInstant]? {
        guard animation.isLayered else { return nil }
        let times = try SourceResolver.frames(animation.frames, timeFormat: animation.timeFormat, now: clock.now).compactMap(\.time)
        guard !times.isEmpty else { throw NoFramesError(animation: animation.id) }
        return times
    }

    /// Places a layer's frames on the timeline: keeps in `frames` only those a timeline time
    /// shows, and returns, per timeline time, the position of the frame shown (within the
    /// layer's `max_age`, its default from its cadence).
    ///
    /// With `future` (some layer of the stack has forecast frames), observed frames show up
    /// to now and forecasts after the newest observation (`Timeline.map(_:frames:maxAge:future:)`).
    func place(
        _ layer: LayerConfig, of animation: AnimationConfig, frames source: inout ResolvedSource, on timeline: [TimeInstant],
        future: Timeline.Future? = nil
    ) throws -> (mapping: [Int?], maxAge: ISODuration?) {
        // The config admits only timed frames for a layer: an untimed one is never shown.
        let frames = source.frames.filter { $0.time != nil }
        let frameTimes = frames.compactMap(\.time)
        let maxAge = layer.maxAge ?? Timeline.defaultMaxAge(layer.feed.frames, times: frameTimes, timeline: timeline)
        let placed =
            if let future {
                Timeline.map(timeline, frames: frames.compactMap { frame in frame.time.map { ($0, frame.kind) } }, maxAge: maxAge, future: future)
            } else {
                Timeline.map(timeline, frames: frameTimes, maxAge: maxAge)
            }
        let (used, mapping) = Timeline.used(placed)
        guard !used.isEmpty else {
            throw LayerNotShownError(animation: animation, layer: layer, frames: frameTimes, timeline: timeline, maxAge: maxAge, file: config.file)
        }
        source.frames = used.map { frames[$0] }
        return (mapping, maxAge)
    }

    /// The layered animation's plan: the timeline's times and durations over its layers'
    /// plans. Its geometry is the bottom layer's (every layer covers the same box at the
    /// same zoom).
    func layered(_ animation: AnimationConfig, timeline times: [TimeInstant], stack: [LayerPlan]) throws -> AnimationPlan {
        let bottom = stack[0].plan
        let timeline = times.enumerated().map { position, time in
            FramePlan(
                index: position, time: time,
                durationMs: position == times.count - 1 ? (animation.lastFrameDurationMs ?? animation.frameDurationMs) : animation.frameDurationMs,
                tiles: [], sourceTemplate: nil)
        }
        var plan = AnimationPlan(
            config: animation, layout: bottom.layout, sourceZoom: bottom.sourceZoom, frames: timeline, locate: bottom.locate,
            sourceMaxZoom: bottom.sourceMaxZoom)
        plan.stack = stack
        try plan.checkLimits(config.limits, file: config.file)
        return plan
    }
}

/// A layer none of whose frames any timeline time shows: its frames are all after the
/// timeline, or older than `max_age` at every timeline time (a feed that stopped, a
/// window that does not overlap the timeline). Publishing the animation without it would
/// hide the outage. Named like a config error (`file:line: key.path:`), as the fix is made
/// there; the build fails (exit 1), as for any feed that fails.
struct LayerNotShownError: Swift.Error, CustomStringConvertible {
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
