/// Every tile of every frame of an animation could not be had, and `missing: transparent`
/// drew them all empty: publishing that loop would pass an outage (or a wrong URL) off as
/// a quiet map. The build fails instead, and the published site stays as it was.
struct EmptyLoopError: Swift.Error, CustomStringConvertible {
    let animation: String
    /// Every tile, with its problem.
    let tiles: [FailedTile]

    /// Throws when no frame of `outcomes` has a single tile drawn.
    static func check(_ outcomes: [FramePipeline.Outcome], frames: [FramePlan], animation: String) throws {
        guard !frames.isEmpty, outcomes.count == frames.count,
            zip(outcomes, frames).allSatisfy({ $0.transparent.count >= $1.tiles.count })
        else { return }
        throw EmptyLoopError(animation: animation, tiles: outcomes.flatMap(\.transparent))
    }

    var description: String {
        let lines = TileProblemGroups(tiles).failureLines(tolerated: true).map { "  " + $0 }
        return
            (["\(animation): not one tile of any frame could be had; missing: transparent would publish an empty loop, so nothing was published:"]
            + lines + ["  hint: check the source's URL, bbox, zoom and times against what it serves (matsite check probes one tile per frame)"])
            .joined(separator: "\n")
    }
}
