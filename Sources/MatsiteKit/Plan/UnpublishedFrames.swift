import Foundation

/// A time left out of a build, as the animation manifest lists it under `"skipped"`.
public struct SkippedFrame: Codable, Sendable, Equatable {
    /// ISO 8601, UTC.
    public var time: String
    /// Why, in words.
    public var reason: String
}

/// Live feeds publish their newest frame a little after its nominal time. At the newest end
/// of a rolling window or an index, a frame whose tiles are all missing (HTTP 404/204, no
/// file) is left out of this build, so the loop never ends on an empty frame; the next
/// build picks it up. Frames inside the window keep following `missing:`.
///
/// When every frame of the window is missing so, nothing is "not published yet": the URLs
/// are wrong (a `time_format`, a delay, a clock), and the build fails with `EmptyWindow`.
///
/// The tiles loaded to decide are handed on (`PrefetchedTiles`), so deciding costs no
/// extra request.
enum UnpublishedFrames {
    struct Result {
        var source: ResolvedSource
        var skipped: [SkippedFrame]
        var loaded: [TileLocator: TileOutcome]
    }

    /// Drops the newest frames whose tiles are all absent; throws `EmptyWindow` when that
    /// is every frame.
    static func trim(_ source: ResolvedSource, animation: AnimationConfig, loader: any TileLoader, clock: PlanningClock) async throws -> Result {
        var source = source
        var skipped: [SkippedFrame] = []
        var loaded: [TileLocator: TileOutcome] = [:]
        guard animation.frames.followsLiveFeed else { return Result(source: source, skipped: [], loaded: [:]) }
        let all = source.frames
        var newestOfWindow: FramePlan?
        while !source.frames.isEmpty {
            let plan = Planner.plan(animation, source: source)
            guard let newest = plan.frames.last else { break }
            if newestOfWindow == nil { newestOfWindow = newest }
            let outcomes = await withTaskGroup(of: (TileLocator, TileOutcome).self) { group in
                // A cached 404 from the last build is the answer expected to change: ask again.
                for locator in Set(newest.tiles) { group.addTask { (locator, await loader.loadRevalidatingAbsence(locator)) } }
                var out: [TileLocator: TileOutcome] = [:]
                for await (locator, outcome) in group { out[locator] = outcome }
                return out
            }
            let absent = newest.tiles.compactMap { locator -> TileProblem? in
                if case .problem(let problem) = outcomes[locator], problem.isNotFound { problem } else { nil }
            }
            guard absent.count == newest.tiles.count, let problem = absent.first else {
                loaded.merge(outcomes) { new, _ in new }
                break
            }
            guard source.frames.count > 1 else {
                let shown = newestOfWindow ?? newest
                throw EmptyWindow(
                    animation: animation, frames: all, tilesPerFrame: newest.tiles.count, problem: problem,
                    example: shown.tiles[shown.tiles.count / 2].description, clock: clock)
            }
            let time = newest.time.map(\.manifestText) ?? "frame \(newest.index)"
            skipped.insert(SkippedFrame(time: time, reason: "not published yet: all \(outcomes.count) tiles missing: \(problem)"), at: 0)
            source.frames.removeLast()
        }
        return Result(source: source, skipped: skipped, loaded: loaded)
    }
}

/// No frame of a live window (or index) has a single tile: the URLs are wrong, not late.
/// Nothing is published, whatever `missing:` says: an empty loop must not pass for a loop.
struct EmptyWindow: Swift.Error, CustomStringConvertible {
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
