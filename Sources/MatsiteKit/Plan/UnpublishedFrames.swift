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
/// The tiles loaded to decide are handed on (`PrefetchedTiles`), so deciding costs no
/// extra request.
enum UnpublishedFrames {
    struct Result {
        var source: ResolvedSource
        var skipped: [SkippedFrame]
        var loaded: [TileLocator: TileOutcome]
    }

    /// Drops the newest frames whose tiles are all absent (keeping at least one frame).
    static func trim(_ source: ResolvedSource, animation: AnimationConfig, loader: any TileLoader) async -> Result {
        var source = source
        var skipped: [SkippedFrame] = []
        var loaded: [TileLocator: TileOutcome] = [:]
        guard animation.frames.followsLiveFeed else { return Result(source: source, skipped: [], loaded: [:]) }
        while source.frames.count > 1 {
            let plan = Planner.plan(animation, source: source)
            guard let newest = plan.frames.last else { break }
            let outcomes = await withTaskGroup(of: (TileLocator, TileOutcome).self) { group in
                // A cached 404 from the last build is the answer expected to change: ask again.
                for locator in Set(newest.tiles) { group.addTask { (locator, await loader.loadRevalidatingAbsence(locator)) } }
                var out: [TileLocator: TileOutcome] = [:]
                for await (locator, outcome) in group { out[locator] = outcome }
                return out
            }
            let absent = outcomes.values.compactMap { outcome -> String? in
                if case .absent(let reason) = outcome { reason } else { nil }
            }
            guard absent.count == outcomes.count, let reason = absent.sorted().first else {
                loaded.merge(outcomes) { new, _ in new }
                break
            }
            let time = newest.time.map(\.manifestText) ?? "frame \(newest.index)"
            skipped.insert(SkippedFrame(time: time, reason: "not published yet: all \(outcomes.count) tiles missing (\(reason))"), at: 0)
            source.frames.removeLast()
        }
        return Result(source: source, skipped: skipped, loaded: loaded)
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
