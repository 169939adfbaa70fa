import Foundation
import MatsiteCapabilities
import MatsiteImaging

/// One frame: when it is, how long it shows, and where each of its tiles comes from.
struct FramePlan: Sendable {
    /// Position in the animation.
    let index: Int
    /// The instant the frame shows, when the source is timed.
    let time: TimeInstant?
    /// How long the player shows it.
    let durationMs: Int
    /// Row-major over the layout's rows x columns.
    let tiles: [TileLocator]
    /// The source template of this frame with `{time}`/`{frame}` filled, for the player's
    /// straight-from-source fallback (URL sources only).
    let sourceTemplate: String?
    /// Observed (at or before now) or forecast (after now).
    var kind = FrameKind.observed
    /// The model run a forecast frame belongs to, where the source has runs.
    var run: TimeInstant? = nil
}

/// Whether a frame shows what was (observed, the default: every frame before issue 37) or
/// what a forecast says will be (a time after the build's now).
enum FrameKind: String, Sendable, Equatable {
    case observed, forecast
}

/// Everything the fetch and stitch stages need for one animation.
struct AnimationPlan: Sendable {
    /// The animation's settings.
    let config: AnimationConfig
    /// Frame geometry.
    let layout: FrameLayout
    /// Zoom the source tiles are fetched at (the frame zoom, or `max_zoom` when lower).
    let sourceZoom: Int
    /// The frames, oldest first.
    let frames: [FramePlan]
    /// Where a tile of any zoom comes from for a frame (used for published fallback tiles).
    let locate: @Sendable (_ frame: Int, _ z: Int, _ x: Int, _ y: Int) -> TileLocator
    /// Deepest zoom the source has, if known.
    let sourceMaxZoom: Int?
    /// Times left out of this build (not published yet), for the manifest's `skipped`.
    var skipped: [SkippedFrame] = []
    /// The stack of layers the animation shows, bottom to top, each planned as a
    /// one-source animation of its own: a one-source animation's is one layer (`layer`
    /// nil), its own frames in its own folder; a layered animation's, its layers, and
    /// then `frames` is the timeline (times and durations, no tiles).
    var stack: [LayerPlan] = []

    /// The layers of a layered animation (none for a one-source one).
    var layers: [LayerPlan] { stack.filter { $0.layer != nil } }

    /// The frames this plan makes: its stack's.
    var frameCount: Int { stack.isEmpty ? frames.count : stack.reduce(0) { $0 + $1.plan.frames.count } }

    /// Every time left out of this build, its own and its layers', each with the id of the
    /// animation or layer (`<animation>/<layer>`) it was left out of.
    var leftOut: [(id: String, frame: SkippedFrame)] {
        skipped.map { (config.id, $0) } + layers.flatMap { layer in layer.plan.skipped.map { (layer.plan.config.id, $0) } }
    }

    /// The tiles this plan asks for: its stack's.
    var tileCount: Int { stack.isEmpty ? frames.count * layout.tileCount : stack.reduce(0) { $0 + $1.plan.tileCount } }

    /// A one-source animation's plan as the stack of one layer: its own frames, shown each
    /// at its own time.
    func alone() -> AnimationPlan {
        var plan = self
        plan.stack = [LayerPlan(layer: nil, plan: self, mapping: frames.indices.map { $0 }, maxAge: nil)]
        return plan
    }

    /// The source tiles of a frame: position in `FramePlan.tiles` <-> world tile.
    var grid: TileGrid { TileGrid(layout: layout, zoom: sourceZoom) }
}

/// One layer of an animation's stack: its plan (its config's id is `<animation>/<layer>`,
/// its folder in the site; a one-source animation's only layer is the animation itself)
/// and where its frames fall on the timeline.
struct LayerPlan: Sendable {
    /// The layer's settings; nil for a one-source animation's only layer.
    let layer: LayerConfig?
    /// The layer's frames: only those some timeline time shows.
    let plan: AnimationPlan
    /// Per timeline time, the position in `plan.frames` of the frame shown, or nil.
    let mapping: [Int?]
    /// The age limit the mapping used (nil: none).
    let maxAge: ISODuration?
    /// What resolving its source found (layer, tile matrix set, time extent), for `check`.
    var notes: [String] = []
    /// Where the stack splits past and future, when a layer of it has forecast frames: the
    /// mapping keeps to it when the layer is placed again.
    var future: Timeline.Future? = nil
    /// For a layer kept as published (`Builder.keepPublished`), the kind, run and time of
    /// each published frame its mapping points at; nil for a layer built now.
    var kept: [(kind: FrameKind, run: TimeInstant?, time: TimeInstant?)]? = nil

    /// Where its files are, relative to the animation's folder: `<layer>/`, or nothing for
    /// a one-source animation's.
    var folder: String { layer.map { "\($0.id)/" } ?? "" }
}

/// A frame of a source before its tiles are planned: its index, time and time text.
struct SourceFrame: Sendable {
    var index: Int
    var time: TimeInstant?
    /// `{time}` as written into URLs.
    var timeText: String?
    /// Values a frame index gives its placeholders (`{path}`, `{host}`).
    var fields: [String: String] = [:]
    /// Observed, or a forecast (a time after now: a window's `next`, an index's forecast list).
    var kind = FrameKind.observed
    /// The model run of a forecast frame, where the source has runs (`{run}`).
    var run: TimeInstant? = nil
}

/// A source with its frames known: what the planner turns into tile locators.
struct ResolvedSource: Sendable {
    /// The frames it offers for this animation.
    var frames: [SourceFrame]
    /// Deepest zoom, if the source says.
    var maxZoom: Int?
    /// Tile edge in pixels, if the source says (WMTS); else the config's.
    var tileSize: Int?
    /// Locator of tile (z, x, y) of a frame (x wrapped, y in XYZ order).
    var locate: @Sendable (_ frame: SourceFrame, _ z: Int, _ x: Int, _ y: Int) -> TileLocator
    /// Template for the player's from-source fallback, per frame (URL sources).
    var playerTemplate: (@Sendable (_ frame: SourceFrame) -> String)?

    /// A resolved source.
    init(
        frames: [SourceFrame], maxZoom: Int? = nil, tileSize: Int? = nil,
        locate: @escaping @Sendable (_ frame: SourceFrame, _ z: Int, _ x: Int, _ y: Int) -> TileLocator,
        playerTemplate: (@Sendable (_ frame: SourceFrame) -> String)? = nil, notes: [String] = []
    ) {
        self.frames = frames
        self.maxZoom = maxZoom
        self.tileSize = tileSize
        self.locate = locate
        self.playerTemplate = playerTemplate
        self.notes = notes
    }
    /// What resolving found, for `matsite check` (layer, tile matrix set, time extent).
    var notes: [String] = []
    /// With model runs, the runs on offer, newest first, each with its frames (forecast
    /// frames carrying the run; `frames` then holds the frames of no run, if any). The
    /// planner takes the newest complete one (`RunChoice`). A template with `{run}` gets
    /// its candidates from `runs:`; a WMS/WMTS source may give its own (`reference_time`).
    var runCandidates: [RunCandidate] = []
}

/// One model run a source offers: its time and the frames the window asks of it.
struct RunCandidate: Sendable {
    /// The run's time (its reference time).
    var run: TimeInstant
    /// Its frames, oldest first, each `kind: .forecast` with `run` set.
    var frames: [SourceFrame]

    /// The candidates of a `{run}` template: for each run `runs` offers at `now`, newest
    /// first, the window's times from the run on, with `{run}` and `{lead}` filled. Runs
    /// the window asks nothing of are left out.
    static func candidates(of frames: [SourceFrame], runs: RunsConfig, now: TimeInstant) -> [RunCandidate] {
        runs.runs(now: now).compactMap { run in
            let own = frames.filter { ($0.time ?? run) >= run }.enumerated().map { position, frame in
                var frame = frame
                frame.index = position
                frame.kind = .forecast
                frame.run = run
                frame.fields["run"] = runs.format.format(run)
                frame.fields["lead"] = RunsConfig.lead(from: run, to: frame.time ?? run)
                return frame
            }
            return own.isEmpty ? nil : RunCandidate(run: run, frames: own)
        }
    }
}

/// Turns an animation and its resolved source into frames of tile locators.
enum Planner {
    /// Plans an animation.
    static func plan(_ animation: AnimationConfig, source: ResolvedSource) -> AnimationPlan {
        let maxZoom = animation.source.maxZoom ?? source.maxZoom
        let sourceZoom = min(animation.zoom, maxZoom ?? animation.zoom)
        let layout = WebMercator.layout(
            of: animation.bbox, zoom: animation.zoom, sourceZoom: sourceZoom,
            tileSize: source.tileSize ?? animation.source.tileSize)
        let grid = TileGrid(layout: layout, zoom: sourceZoom).tiles
        let frames = source.frames.enumerated().map { position, frame in
            let tiles = grid.map { source.locate(frame, $0.z, $0.x, $0.y) }
            let last = position == source.frames.count - 1
            return FramePlan(
                index: position, time: frame.time,
                durationMs: last ? (animation.lastFrameDurationMs ?? animation.frameDurationMs) : animation.frameDurationMs,
                tiles: tiles, sourceTemplate: source.playerTemplate?(frame), kind: frame.kind, run: frame.run)
        }
        let frameList = source.frames
        return AnimationPlan(
            config: animation, layout: layout, sourceZoom: sourceZoom, frames: frames,
            locate: { index, z, x, y in source.locate(frameList[index], z, x, y) },
            sourceMaxZoom: maxZoom)
    }
}

extension AnimationPlan {
    /// Checks the frame size and count against `limits` once the plan is final: the config
    /// can only check with `source.tile_size`, while a WMTS layer's tile size (512 px, say)
    /// is known only after its capabilities are read. Runs before any tile is requested.
    func checkLimits(_ limits: Limits, file: String) throws {
        let path = config.keyPath
        guard layout.width <= limits.maxFrameWidth, layout.height <= limits.maxFrameHeight else {
            throw ConfigError(
                file: file, line: config.line, keyPath: "\(path).zoom",
                message:
                    "frames would be \(layout.width)x\(layout.height) pixels (\(layout.tileSize) px tiles), over the limit of \(limits.maxFrameWidth)x\(limits.maxFrameHeight) (limits.max_frame_width / max_frame_height); lower the zoom or shrink the box"
            )
        }
        guard frames.count <= limits.maxFrames else {
            throw ConfigError(
                file: file, line: config.line, keyPath: "\(path).frames",
                message: "\(frames.count) frames, over the limit of \(limits.maxFrames) (limits.max_frames)")
        }
    }
}

extension AnimationPlan {
    /// The plan without the frames at `indices` (each of which failed inside the window and
    /// was never published), the others renumbered in order, the left-out ones in `skipped`.
    func leavingOut(_ indices: Set<Int>, skipped left: [SkippedFrame]) -> AnimationPlan {
        let kept = frames.filter { !indices.contains($0.index) }
        let renumbered = kept.enumerated().map { position, frame in
            FramePlan(
                index: position, time: frame.time, durationMs: frame.durationMs, tiles: frame.tiles, sourceTemplate: frame.sourceTemplate,
                kind: frame.kind, run: frame.run)
        }
        // The locator closure is by source position: map the new positions back to it.
        let original = kept.map(\.index)
        let locate = self.locate
        var plan = AnimationPlan(
            config: config, layout: layout, sourceZoom: sourceZoom, frames: renumbered,
            locate: { index, z, x, y in locate(original[index], z, x, y) }, sourceMaxZoom: sourceMaxZoom)
        plan.skipped = (skipped + left).sorted { $0.time < $1.time }
        plan.stack = stack
        return plan
    }
}

extension LayerPlan {
    /// The layer without the frames at `indices` (each failed inside the window and was
    /// never published), as a one-source frame with no tile is left out. A one-source
    /// animation's newest frame left so fails it (`LastFrameLeftOutError`: nothing newer to end
    /// the loop on); a layer of `layers:` is placed again on `timeline`'s times, each
    /// showing the older frame while it is within `max_age`, and fails only when it would
    /// show nothing.
    func leavingOut(_ indices: Set<Int>, skipped left: [SkippedFrame], timeline: [TimeInstant]) throws -> LayerPlan {
        let kept = plan.leavingOut(indices, skipped: left)
        guard layer != nil else {
            guard !indices.contains(plan.frames.count - 1) else { throw LastFrameLeftOutError(animation: plan.config.id, skipped: left) }
            return LayerPlan(layer: nil, plan: kept, mapping: kept.frames.indices.map { $0 }, maxAge: maxAge, notes: notes)
        }
        let mapping =
            if let future {
                Timeline.map(timeline, frames: kept.frames.compactMap { frame in frame.time.map { ($0, frame.kind) } }, maxAge: maxAge, future: future)
            } else {
                Timeline.map(timeline, frames: kept.frames.compactMap(\.time), maxAge: maxAge)
            }
        guard mapping.contains(where: { $0 != nil }) else { throw LastFrameLeftOutError(animation: plan.config.id, skipped: left) }
        return LayerPlan(layer: layer, plan: kept, mapping: mapping, maxAge: maxAge, notes: notes, future: future)
    }
}

/// The newest frame of a loop failed, inside the window the site publishes, and no build
/// published it: with nothing newer to end the loop on, the loop keeps its published version.
struct LastFrameLeftOutError: Swift.Error, CustomStringConvertible {
    let animation: String
    let skipped: [SkippedFrame]

    var description: String {
        let frames = skipped.map { "\($0.time): \($0.reason)" }.joined(separator: "; ")
        return "animation \(animation): its newest frame could not be made and was never published (\(frames))"
    }
}
