import Foundation
import MatsiteImaging

/// A time left out of a build, as the animation manifest lists it under `"skipped"`.
public struct SkippedFrame: Codable, Sendable, Equatable {
    /// ISO 8601, UTC.
    public var time: String
    /// Why, in words.
    public var reason: String
}

/// Live feeds publish their newest frame a little after its nominal time. At the newest end
/// of a rolling window or an index, a frame the source has not published yet is left out of
/// this build, so the loop never ends on an empty frame; the next build picks it up. Frames
/// inside the window keep following `missing:`. Not published yet means each of its tiles
/// is absent (HTTP 404/204, no file), or an OGC exception saying the service has no data
/// for that time (`InvalidDimensionValue`...: WMS and WMTS servers answer so with a 200),
/// or, with `blank: skip_newest` (the default), fully transparent (MapServer's answer for
/// an advertised time without data).
///
/// When every frame of the window is absent so, nothing is "not published yet": the URLs
/// are wrong (a `time_format`, a delay, a clock), and the build fails with `EmptyWindowError`.
/// When every frame is absent or blank, with some blank, the blank frames are what the
/// source shows (nothing at all): they are kept.
///
/// The tiles loaded to decide are handed on (`PrefetchedTiles`), so deciding costs no
/// extra request.
enum UnpublishedFrames {
    struct Result {
        var source: ResolvedSource
        var skipped: [SkippedFrame]
        var loaded: [TileLocator: TileOutcome]
    }

    /// Drops the newest frames not published yet; throws `EmptyWindowError` when that is every
    /// frame.
    static func trim(_ source: ResolvedSource, animation: AnimationConfig, loader: any TileLoader, clock: PlanningClock) async throws -> Result {
        guard animation.frames.followsLiveFeed else { return Result(source: source, skipped: [], loaded: [:]) }
        // The newest frames not published yet, newest first.
        var run: [Unpublished] = []
        var remaining = source
        while !remaining.frames.isEmpty {
            let plan = Planner.plan(animation, source: remaining)
            guard let newest = plan.frames.last else { break }
            let outcomes = await withTaskGroup(of: (TileLocator, TileOutcome).self) { group in
                // A cached 404 from the last build is the answer expected to change: ask again.
                for locator in Set(newest.tiles) { group.addTask { (locator, await loader.loadRevalidatingAbsence(locator)) } }
                var out: [TileLocator: TileOutcome] = [:]
                for await (locator, outcome) in group { out[locator] = outcome }
                return out
            }
            guard let found = try await unpublished(newest, outcomes: outcomes, blank: animation.blank) else {
                return Result(source: remaining, skipped: run.reversed().map(\.skipped), loaded: outcomes)
            }
            run.append(found)
            remaining.frames.removeLast()
        }
        guard !run.isEmpty else { return Result(source: source, skipped: [], loaded: [:]) }
        // Not one frame published: wrong URLs, unless some frames are blank (then blank is
        // what the source shows): keep the frames up to the newest blank one.
        guard let newestBlank = run.firstIndex(where: \.blank) else {
            let shown = run[0].plan, oldest = run[run.count - 1]
            throw EmptyWindowError(
                animation: animation, frames: source.frames, tilesPerFrame: oldest.plan.tiles.count,
                problem: oldest.problem ?? .notFound(.file), example: shown.tiles[shown.tiles.count / 2].description, clock: clock)
        }
        var kept = source
        kept.frames.removeLast(newestBlank)
        let loaded = run[newestBlank...].reduce(into: [TileLocator: TileOutcome]()) { all, frame in all.merge(frame.outcomes) { new, _ in new } }
        return Result(source: kept, skipped: run[..<newestBlank].reversed().map(\.skipped), loaded: loaded)
    }
}

private extension UnpublishedFrames {
    /// A newest frame found not published yet.
    struct Unpublished {
        var plan: FramePlan
        var skipped: SkippedFrame
        var outcomes: [TileLocator: TileOutcome]
        /// Its tiles' first answer that says "nothing here" (none when all are blank).
        var problem: TileProblem?
        /// Some of its tiles are fully transparent (the others absent).
        var blank: Bool
    }

    /// The frame as not published yet, or nil when it is published (some tile shows
    /// something, or fails otherwise: `missing:` decides then).
    static func unpublished(_ frame: FramePlan, outcomes: [TileLocator: TileOutcome], blank policy: BlankPolicy) async throws -> Unpublished? {
        var absent: [TileProblem] = []
        var blankTiles: [[UInt8]] = []
        var seen = Set<TileLocator>()
        for locator in frame.tiles where seen.insert(locator).inserted {
            switch outcomes[locator] {
            case .problem(let problem) where problem.mayBeUnpublished: absent.append(problem)
            case .tile(let bytes, _) where policy == .skipNewest: blankTiles.append(bytes)
            default: return nil
            }
        }
        // Decoded only when no tile has already said the frame is published.
        if !blankTiles.isEmpty {
            let decoder = TileDecoder()
            let tiles = blankTiles
            guard try await CPUPool.shared.run({ tiles.allSatisfy(decoder.isFullyTransparent) }) else { return nil }
        }
        let time = frame.time.map(\.manifestText) ?? "frame \(frame.index)"
        let count = seen.count
        let reason =
            if blankTiles.isEmpty {
                "not published yet: all \(count) tiles missing: \(absent[0])"
            } else if absent.isEmpty {
                "not published yet: all \(count) tiles blank (fully transparent; blank: keep publishes such frames)"
            } else {
                "not published yet: \(blankTiles.count) of \(count) tiles blank (fully transparent), the others missing: \(absent[0])"
            }
        return Unpublished(
            plan: frame, skipped: SkippedFrame(time: time, reason: reason), outcomes: outcomes, problem: absent.first, blank: !blankTiles.isEmpty)
    }
}

/// No frame of a live window (or index) has a single tile: the URLs are wrong, not late.
/// Nothing is published, whatever `missing:` says: an empty loop must not pass for a loop.
struct EmptyWindowError: Swift.Error, CustomStringConvertible {
    let animation: AnimationConfig
    let frames: [SourceFrame]
    let tilesPerFrame: Int
    /// The newest frame's first tile's answer.
    let problem: TileProblem
    /// One of the newest frame's tile addresses.
    let example: String
    let clock: PlanningClock

    var description: String {
        let first = frames.first?.time.map(\.manifestText) ?? "?", last = frames.last?.time.map(\.manifestText) ?? "?"
        let span = frames.count == 1 ? "its 1 frame (\(last))" : "all \(frames.count) frames (\(first) .. \(last))"
        var lines = [
            "\(animation.id): no frame of the window has a single tile: \(span) answered \(problem) for each of their \(tilesPerFrame) tiles, so there is no loop to publish (missing: transparent or not)"
        ]
        if let newest = frames.last, let written = newest.timeText {
            lines.append(
                "  the newest frame, \(newest.time.map(\.manifestText) ?? "?"), has {time} = \"\(written)\" (time_format \"\(animation.timeFormat.pattern)\"; \(clock))"
            )
        }
        lines.append("  e.g. \(example)")
        lines.append(
            "  hint: compare that URL with one the feed serves: the {time} written by time_format, frames.delay (how late the feed publishes) and this machine's clock (or --at)"
        )
        return lines.joined(separator: "\n")
    }
}

/// Serves tiles already loaded (by `UnpublishedFrames`) from memory, the rest from the
/// loader it wraps.
struct PrefetchedTiles: TileLoader {
    let base: any TileLoader
    let loaded: [TileLocator: TileOutcome]

    func load(_ locator: TileLocator) async -> TileOutcome {
        if let outcome = loaded[locator] { return outcome }
        return await base.load(locator)
    }

    func freshDigests(_ locators: [TileLocator]) -> [TileDigest]? {
        base.freshDigests(locators)
    }

    func loadRevalidatingAbsence(_ locator: TileLocator) async -> TileOutcome {
        await base.loadRevalidatingAbsence(locator)
    }
}
