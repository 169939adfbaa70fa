import Foundation
import MatsiteImaging

/// Takes each frame of an animation through fetch -> reuse -> stitch: frames whose inputs
/// did not change keep the previous build's file, the others are stitched. Frames run
/// concurrently (fetching overlaps stitching), a bounded number at a time.
struct FramePipeline: Sendable {
    /// The animation's id, for messages.
    let animation: String
    /// The frames, oldest first.
    let frames: [FramePlan]
    let fetcher: FrameFetcher
    let reuse: FrameReuse
    let stitcher: FrameStitcher
    let reporter: any BuildReporter
    let timings: StageTimings
    /// Which published frames are kept without asking, or despite a failure.
    var carry = CarryForward.none

    /// What became of one frame: the frame as published, or the tiles that failed it.
    struct Outcome: Sendable {
        var index: Int
        var frame: PublishedFrame?
        var failures: [FailedTile] = []
        /// Tiles drawn transparent (`missing: transparent`), for the build's grouped warnings.
        var transparent: [FailedTile] = []
        var reused = false
        /// From the last frame: the poster.
        var poster: Poster?
        /// Set when the frame failed inside the window and was never published: it is left
        /// out of this build, with why.
        var leftOut: SkippedFrame?
    }

    /// Every frame's outcome, in frame order; frame files go into `folder`.
    func run(into folder: URL) async throws -> [Outcome] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Frames in flight are bounded so that fetched-but-unstitched tiles stay few.
        let inFlight = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        var outcomes: [Outcome] = []
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            var running = 0
            for frame in frames {
                if running >= inFlight, let done = try await group.next() {
                    outcomes.append(done)
                    running -= 1
                }
                group.addTask { try await self.render(frame, into: folder) }
                running += 1
            }
            for try await done in group { outcomes.append(done) }
        }
        // Frames from lossy and lossless tiles together: what became of them, said once.
        if let mixed = stitcher.mixed.report(animation: animation) {
            reporter.report(mixed.framesWrittenLossy == mixed.frames ? .mixedTilesWrittenLossy(mixed) : .warning(.mixedTilesKeptPNG(mixed)))
        }
        return outcomes.sorted { $0.index < $1.index }
    }
}

private extension FramePipeline {
    func render(_ frame: FramePlan, into folder: URL) async throws -> Outcome {
        let sourceHash = carry.applies(to: frame) ? stitcher.sourceHash(frame.tiles) : nil
        // A settled frame already published from the same URLs: kept, the feed not asked.
        if let sourceHash, carry.isSettled(frame), let kept = keepPublished(frame, sourceHash: sourceHash, into: folder) {
            return kept
        }
        // Unchanged inputs known without loading a tile (fresh cache entries, through the
        // cache's index): keep the previous build's file and read nothing.
        if let known = fetcher.knownIdentities(frame.tiles),
            var kept = keep(frame, into: folder, inputHash: stitcher.inputHash(known), fetchProblems: [])
        {
            kept.frame?.sourceHash = sourceHash
            return kept
        }

        let fetchStarted = ContinuousClock.now
        var tiles = await fetcher.fetch(frame.tiles)
        timings.add(fetch: fetchStarted.duration(to: .now))
        try Task.checkCancellation()
        let tolerate = stitcher.missing == .transparent
        if !tiles.problems.isEmpty && !tolerate { return failed(frame, tiles.problems, sourceHash: sourceHash, into: folder) }

        // Unchanged inputs: keep the previous build's file.
        let inputHash = stitcher.inputHash(tiles.identities)
        if var kept = keep(frame, into: folder, inputHash: inputHash, fetchProblems: tiles.problems) {
            kept.frame?.sourceHash = sourceHash
            return kept
        }

        var problems = tiles.problems
        let (format, bad) = try await stitcher.checkHeaders(&tiles.contents)
        problems += bad
        if !problems.isEmpty && !tolerate { return failed(frame, problems, sourceHash: sourceHash, into: folder) }

        let isLast = frame.index == reuse.lastIndex
        switch try await stitcher.stitch(tiles.contents, format: format, index: frame.index, into: folder, poster: isLast) {
        case .undecodable(let bad):
            return failed(frame, bad, sorted: false, sourceHash: sourceHash, into: folder)
        case .stitched(let stitched):
            // In tile order, as a kept frame lists them: fetch completion order would make the
            // manifest differ between two builds of the same inputs.
            let missing = (problems.sorted { $0.index < $1.index } + stitched.drawnTransparent).map {
                PublishedFrame.MissingTile(tile: reuse.grid.tile($0.index), reason: $0.problem.description)
            }
            reporter.report(.frameDone(animation: animation, index: frame.index, reused: false))
            let published = PublishedFrame(
                index: frame.index, time: frame.time, durationMs: frame.durationMs, file: "frames/\(stitched.name)",
                bytes: stitched.bytes, sha256: stitched.sha256, inputHash: inputHash, sourceHash: sourceHash, missingTiles: missing,
                blank: stitched.blank)
            // missing: transparent is never silent: the builder warns once per cause.
            return Outcome(
                index: frame.index, frame: published, transparent: drawnTransparent(frame, problems + stitched.drawnTransparent),
                poster: stitched.poster.map(Poster.made))
        }
    }

    func keep(_ frame: FramePlan, into folder: URL, inputHash: String, fetchProblems: [(index: Int, problem: TileProblem)]) -> Outcome? {
        guard let kept = reuse.keep(frame, into: folder, inputHash: inputHash, fetchProblems: fetchProblems) else { return nil }
        reporter.report(.frameDone(animation: animation, index: frame.index, reused: true))
        return Outcome(
            index: frame.index, frame: kept.frame, transparent: drawnTransparent(frame, kept.missing), reused: true,
            poster: frame.index == reuse.lastIndex ? .previous : nil)
    }

    /// The published frame made from the same URLs, kept without asking the feed.
    func keepPublished(_ frame: FramePlan, sourceHash: String, into folder: URL) -> Outcome? {
        guard let published = reuse.previous.frame(animation: reuse.animation, sourceHash: sourceHash),
            var kept = keep(frame, into: folder, inputHash: published.inputHash, fetchProblems: [])
        else { return nil }
        kept.frame?.sourceHash = sourceHash
        return kept
    }

    /// A frame whose tiles could not all be had: inside the published window, its
    /// published version is kept (or, never published, it is left out); a new frame fails.
    func failed(
        _ frame: FramePlan, _ problems: [(index: Int, problem: TileProblem)], sorted: Bool = true, sourceHash: String?, into folder: URL
    ) -> Outcome {
        if carry.isPast(frame), let time = frame.time, let first = problems.first?.problem {
            let failure = FrameFailure(animation: animation, time: time, failed: problems.count, tiles: frame.tiles.count, problem: first)
            if let sourceHash, let kept = keepPublished(frame, sourceHash: sourceHash, into: folder) {
                reporter.report(.warning(.frameKeptDespiteFailure(failure)))
                return kept
            }
            if carry.mayLeaveOut {
                reporter.report(.warning(.frameLeftOut(failure)))
                return Outcome(index: frame.index, leftOut: SkippedFrame(time: time.manifestText, reason: failure.reason))
            }
        }
        return failed(frame, problems, sorted: sorted)
    }

    func failed(_ frame: FramePlan, _ problems: [(index: Int, problem: TileProblem)], sorted: Bool = true) -> Outcome {
        let ordered = sorted ? problems.sorted { $0.index < $1.index } : problems
        return Outcome(
            index: frame.index,
            failures: ordered.map {
                FailedTile(animation: animation, frame: frame.index, locator: frame.tiles[$0.index].description, problem: $0.problem)
            })
    }

    func drawnTransparent(_ frame: FramePlan, _ problems: [(index: Int, problem: TileProblem)]) -> [FailedTile] {
        problems.sorted { $0.index < $1.index }.map {
            FailedTile(animation: animation, frame: frame.index, locator: frame.tiles[$0.index].description, problem: $0.problem)
        }
    }
}
