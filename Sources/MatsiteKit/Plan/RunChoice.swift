import Foundation
import MatsiteCapabilities

/// Which model run a source's forecast frames come from: the newest whose every frame the
/// window asks of it can be had. A run still arriving (some tile answers "not here yet":
/// 404, 204, no data) is passed over for the one before it, which stays published; a build
/// never mixes runs, so a new run replaces all of a loop's forecast frames at once.
///
/// Each candidate's frames are looked at newest first (the longest lead arrives last), and
/// the look stops at the first frame lacking: a run still arriving costs a frame's tiles.
/// The tiles loaded for the run chosen are handed on (`PrefetchedTiles`).
enum RunChoice {
    struct Result {
        /// The source with the run's frames among its own, oldest first, renumbered.
        var source: ResolvedSource
        var loaded: [TileLocator: TileOutcome]
        var report: RunReport
    }

    /// The newest complete candidate; throws `NoCompleteRunError` when none is.
    static func choose(_ source: ResolvedSource, animation: AnimationConfig, loader: any TileLoader) async throws -> Result {
        var lacking: [RunReport.Lack] = []
        for candidate in source.runCandidates {
            let merged = with(candidate, in: source)
            let plan = Planner.plan(animation, source: merged)
            var loaded: [TileLocator: TileOutcome] = [:]
            var lack: RunReport.Lack?
            let asked = plan.frames.filter { $0.run == candidate.run }
            for frame in asked.reversed() {
                let outcomes = await withTaskGroup(of: (TileLocator, TileOutcome).self) { group in
                    for locator in Set(frame.tiles) { group.addTask { (locator, await loader.loadRevalidatingAbsence(locator)) } }
                    var out: [TileLocator: TileOutcome] = [:]
                    for await (locator, outcome) in group { out[locator] = outcome }
                    return out
                }
                loaded.merge(outcomes) { new, _ in new }
                let absent = frame.tiles.first { locator in
                    if case .problem(let problem) = outcomes[locator] { problem.mayBeUnpublished } else { false }
                }
                if let absent, case .problem(let problem) = outcomes[absent], let time = frame.time {
                    lack = RunReport.Lack(run: candidate.run, frame: time, frames: asked.count, problem: problem.description, example: absent.description)
                    break
                }
            }
            if let lack {
                lacking.append(lack)
                continue
            }
            var chosen = merged
            chosen.runCandidates = []
            let report = RunReport(
                animation: animation.id, newest: source.runCandidates[0].run, used: candidate.run, frames: asked.count, lacking: lacking)
            return Result(source: chosen, loaded: loaded, report: report)
        }
        throw NoCompleteRunError(animation: animation.id, lacking: lacking)
    }

    /// The source's own frames (of no run) and the candidate's, oldest first, renumbered.
    static func with(_ candidate: RunCandidate, in source: ResolvedSource) -> ResolvedSource {
        var merged = source
        let frames = (source.frames + candidate.frames).enumerated().sorted { a, b in
            switch (a.element.time, b.element.time) {
            case (let x?, let y?) where x != y: x < y
            default: a.offset < b.offset
            }
        }
        merged.frames = frames.enumerated().map { position, pair in
            var frame = pair.element
            frame.index = position
            return frame
        }
        return merged
    }
}

/// Which run a build used and which newer ones it passed over, with what each lacks: a
/// warning for `build`, facts for `check`.
public struct RunReport: Sendable, Equatable {
    /// A run passed over: its newest frame lacking, with its first missing tile.
    public struct Lack: Sendable, Equatable {
        public var run: TimeInstant
        /// The valid time of the frame lacking (looked at newest first).
        public var frame: TimeInstant
        /// How many frames the window asks of the run.
        public var frames: Int
        /// The tile's answer ("HTTP 404").
        public var problem: String
        /// The tile's address.
        public var example: String
    }

    /// The animation's id (`<animation>/<layer>` for a layer's).
    public var animation: String
    /// The newest run out by the build's clock.
    public var newest: TimeInstant
    /// The run whose frames the build publishes.
    public var used: TimeInstant
    /// Frames the window asks of it.
    public var frames: Int
    /// The runs newer than `used`, newest first, each incomplete.
    public var lacking: [Lack]

    /// The report saying what it is about (`layer radar: ...`).
    func about(_ subject: String) -> RunReport {
        var report = self
        report.animation = "\(subject): \(animation)"
        return report
    }
}

extension RunReport: CustomStringConvertible {
    /// The warning a build gives when it passed over a newer run.
    public var description: String {
        let passed = lacking.map { "run \($0.run.manifestText) lacks its frame for \($0.frame.manifestText) (\($0.problem): \($0.example))" }
        return "\(animation): \(passed.joined(separator: "; ")); run \(used.manifestText) stays published until a newer one has all \(frames) frame(s) out"
    }
}

/// No run the window asks of is complete yet (the newest few, `RunsConfig.candidates`):
/// the loop keeps its published version, or, never published, is not published yet.
struct NoCompleteRunError: Swift.Error, CustomStringConvertible, Equatable {
    let animation: String
    let lacking: [RunReport.Lack]

    var description: String {
        let runs = lacking.map { "run \($0.run.manifestText) lacks \($0.frame.manifestText) (\($0.problem): \($0.example))" }
        return "\(animation): no model run is complete yet: " + runs.joined(separator: "; ")
            + "\n  hint: runs.delay says how long after its start a run is out; a later build picks up the first complete run"
    }
}
