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

    /// What became of one frame: its manifest entry, or the tiles that failed it.
    struct Outcome: Sendable {
        var index: Int
        var entry: AnimationManifest.Frame?
        var failures: [FailedTile] = []
        /// Tiles drawn transparent (`missing: transparent`), for the build's grouped warnings.
        var transparent: [FailedTile] = []
        var reused = false
        /// From the last frame: the poster.
        var poster: Poster?
        /// For a kept frame: its index and fallback tiles' hash in the previous build.
        var previousIndex: Int?
        var previousFallbackHash: String?
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
        // Frames from lossy and lossless tiles together: what became of them, in one line.
        if let note = stitcher.mixed.note(animation: animation) {
            if note.advice { reporter.warning(note.text) } else { reporter.detail(note.text) }
        }
        return outcomes.sorted { $0.index < $1.index }
    }
}

private extension FramePipeline {
    func render(_ frame: FramePlan, into folder: URL) async throws -> Outcome {
        // Unchanged inputs known without loading a tile (fresh cache entries, through the
        // cache's index): keep the previous build's file and read nothing.
        if let known = fetcher.knownIdentities(frame.tiles),
            let kept = keep(frame, into: folder, inputHash: stitcher.inputHash(known), fetchProblems: [])
        {
            return kept
        }

        let fetchStarted = ContinuousClock.now
        var tiles = await fetcher.fetch(frame.tiles)
        timings.add(fetch: fetchStarted.duration(to: .now))
        try Task.checkCancellation()
        let tolerate = stitcher.missing == .transparent
        if !tiles.problems.isEmpty && !tolerate { return failed(frame, tiles.problems) }

        // Unchanged inputs: keep the previous build's file.
        let inputHash = stitcher.inputHash(tiles.identities)
        if let kept = keep(frame, into: folder, inputHash: inputHash, fetchProblems: tiles.problems) { return kept }

        var problems = tiles.problems
        let (format, bad) = try await stitcher.checkHeaders(&tiles.contents)
        problems += bad
        if !problems.isEmpty && !tolerate { return failed(frame, problems) }

        let isLast = frame.index == reuse.lastIndex
        switch try await stitcher.stitch(tiles.contents, format: format, index: frame.index, into: folder, poster: isLast) {
        case .undecodable(let bad):
            return failed(frame, bad, sorted: false)
        case .stitched(let stitched):
            // In tile order, as a kept frame lists them: fetch completion order would make the
            // manifest differ between two builds of the same inputs.
            let missing = (problems.sorted { $0.index < $1.index } + stitched.drawnTransparent).map {
                AnimationManifest.MissingTile(reuse.grid.tile($0.index), reason: $0.reason)
            }
            reporter.frameDone(animation: animation, index: frame.index, reused: false)
            let entry = AnimationManifest.Frame(
                index: frame.index, url: "frames/\(stitched.name)", time: frame.time.map(TimeFormat.iso),
                durationMs: frame.durationMs, bytes: stitched.bytes, sha256: stitched.sha256,
                missingTiles: missing, inputHash: inputHash)
            // missing: transparent is never silent: the builder warns once per cause.
            return Outcome(
                index: frame.index, entry: entry, transparent: drawnTransparent(frame, problems + stitched.drawnTransparent),
                poster: stitched.poster.map(Poster.made))
        }
    }

    func keep(_ frame: FramePlan, into folder: URL, inputHash: String, fetchProblems: [(index: Int, reason: String)]) -> Outcome? {
        guard let kept = reuse.keep(frame, into: folder, inputHash: inputHash, fetchProblems: fetchProblems) else { return nil }
        reporter.frameDone(animation: animation, index: frame.index, reused: true)
        return Outcome(
            index: frame.index, entry: kept.entry, transparent: drawnTransparent(frame, kept.missing), reused: true,
            poster: frame.index == reuse.lastIndex ? .previous : nil,
            previousIndex: kept.previousIndex, previousFallbackHash: kept.previousFallbackHash)
    }

    func failed(_ frame: FramePlan, _ problems: [(index: Int, reason: String)], sorted: Bool = true) -> Outcome {
        let ordered = sorted ? problems.sorted { $0.index < $1.index } : problems
        return Outcome(
            index: frame.index,
            failures: ordered.map {
                FailedTile(animation: animation, frame: frame.index, locator: frame.tiles[$0.index].description, reason: $0.reason)
            })
    }

    func drawnTransparent(_ frame: FramePlan, _ problems: [(index: Int, reason: String)]) -> [FailedTile] {
        problems.sorted { $0.index < $1.index }.map {
            FailedTile(animation: animation, frame: frame.index, locator: frame.tiles[$0.index].description, reason: $0.reason)
        }
    }
}
