import Foundation

/// Keeps the previous build's frame when a frame's inputs did not change: its file is
/// hard-linked into the new site under its name (its content's, so the same name whatever
/// the frame's position), nothing is stitched.
struct FrameReuse: Sendable {
    /// The site being replaced.
    let previous: PreviousSite
    /// The animation's id.
    let animation: String
    /// Position in a frame's tile list <-> world tile.
    let grid: TileGrid
    /// Index of the animation's last frame (the poster is drawn from it).
    let lastIndex: Int

    /// A kept frame.
    struct Kept: Sendable {
        /// The frame, at its new position, retimed and with today's missing tiles.
        var frame: PublishedFrame
        /// Tiles drawn transparent in it, by position, with why, in order.
        var missing: [(index: Int, problem: TileProblem)]
    }

    /// The previous build's frame for these inputs, linked into `folder` under its content's
    /// name, or nil when there is none (or its file is gone). Tiles missing now
    /// are listed with today's reasons; tiles the previous stitch drew transparent keep theirs.
    func keep(_ frame: FramePlan, into folder: URL, inputHash: String, fetchProblems: [(index: Int, problem: TileProblem)]) -> Kept? {
        guard let kept = previous.frame(animation: animation, inputHash: inputHash) else { return nil }
        // The poster is drawn from the last frame: the old one serves only if this kept
        // frame was the old last frame too (a window that shrank moves another one last).
        if frame.index == lastIndex
            && !(previous.isLastFrame(animation: animation, inputHash: inputHash)
                && previous.hasPoster(animation: animation, file: Poster.file(forFrame: kept.url)))
        {
            return nil
        }
        // Named by its bytes (a site from before names by content were used gets them now),
        // in its format's extension: PNG, JPEG or WebP.
        let name = FrameName.file(sha256: kept.sha256, extension: (kept.url as NSString).pathExtension)
        let target = folder.appendingPathComponent(name)
        // Another frame of this loop with the same bytes may have put them there already.
        guard previous.link(animation: animation, relative: kept.url, to: target) || FileManager.default.fileExists(atPath: target.path)
        else { return nil }
        var problems = Dictionary(fetchProblems.map { ($0.index, $0.problem) }, uniquingKeysWith: { a, _ in a })
        if let old = kept.missingTiles, !old.isEmpty {
            for i in frame.tiles.indices where problems[i] == nil {
                let tile = grid.tile(i)
                // The same bytes as last time: the same problem, in the words it was recorded with.
                if let gone = old.first(where: { $0.z == tile.z && $0.x == tile.x && $0.y == tile.y }) { problems[i] = .recorded(gone.reason) }
            }
        }
        let missing = problems.sorted { $0.key < $1.key }.map { (index: $0.key, problem: $0.value) }
        let published = PublishedFrame(
            index: frame.index, time: frame.time, durationMs: frame.durationMs, file: "frames/\(name)", bytes: kept.bytes,
            sha256: kept.sha256, inputHash: kept.inputHash,
            missingTiles: missing.map { PublishedFrame.MissingTile(tile: grid.tile($0.index), reason: $0.problem.description) },
            blank: kept.blank == true)
        return Kept(frame: published, missing: missing)
    }
}
