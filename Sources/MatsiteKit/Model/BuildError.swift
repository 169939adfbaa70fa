import Foundation

/// The stages of a build, as error messages name them: config -> plan -> fetch -> stitch
/// -> publish (+ pages). `Builder` stamps each step's errors with its stage, once.
public enum BuildStage: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Reading and checking the config.
    case config
    /// Resolving sources and planning each frame's tiles.
    case plan
    /// Loading tiles.
    case fetch
    /// Stitching frames and their posters.
    case stitch
    /// Writing the staged site and swapping it in.
    case publish
    /// Rendering the HTML pages from templates.
    case pages
    /// `matsite init` writing a new project.
    case scaffold = "init"

    public var description: String { rawValue }
}

/// A build that could not finish, by stage, in words a user can act on.
public enum BuildError: Swift.Error, CustomStringConvertible, Sendable {
    /// A step failed: its stage, and the error that stopped it (kept whole: a
    /// `SystemCallError` keeps its errno, a `PNGError` libpng's words).
    case stage(BuildStage, any Error)
    /// Tiles could not be had (with `missing: fail`): every one, with its cause (worded
    /// grouped by cause).
    case tilesFailed([FailedTile])
    /// The whole build ran past its deadline.
    case deadline(Double)
    /// Another build holds the output's lock.
    case locked(String)
    /// Every animation of the build failed, each for its own cause (by id, in the order met).
    case loopsFailed([(id: String, error: any Error)])

    /// The stage that failed, for `.stage`.
    public var failedStage: BuildStage? {
        if case .stage(let stage, _) = self { return stage }
        return nil
    }

    /// The error underneath, for `.stage`.
    public var underlying: (any Error)? {
        if case .stage(_, let error) = self { return error }
        return nil
    }

    public var description: String {
        switch self {
        case .stage(let stage, let error):
            return "\(stage): \(Self.words(for: error))"
        case .tilesFailed(let tiles):
            // One entry per animation and cause, not per tile: the hint is said once.
            let lines = TileProblemGroups(tiles).failureLines().map { "  " + $0 }.joined(separator: "\n")
            return "fetch: \(tiles.count) tile(s) could not be had (missing: fail):\n\(lines)"
        case .deadline(let seconds):
            return "the build ran past its deadline of \(Int(seconds)) s (deadline_s) and was stopped; the previous site is unchanged"
        case .locked(let message):
            return message
        case .loopsFailed(let failures):
            let lines = failures.map { failure in
                "  \(failure.id): " + String(describing: failure.error).replacingOccurrences(of: "\n", with: "\n  ")
            }
            return "no animation could be built; the site stays as it was:\n" + lines.joined(separator: "\n")
        }
    }

    /// `error` with `stage` stamped on it, unless it already says where it belongs: a
    /// `BuildError`, a `ConfigError` (bad config: exit code 2) or a cancellation.
    public static func stamping(_ error: any Error, with stage: BuildStage) -> any Error {
        switch error {
        case is BuildError, is ConfigError, is CancellationError: error
        default: BuildError.stage(stage, error)
        }
    }
}

extension BuildError: ClassifiedError {
    /// A step's error keeps its own class; tiles that could not be had, a deadline and a
    /// lock are failures (another run may succeed).
    public var exitClass: ExitClass {
        switch self {
        case .stage(_, let error): ExitClass.of(error)
        // Only an edit mends a config error: it outranks the failures beside it.
        case .loopsFailed(let failures): failures.map { ExitClass.of($0.error) }.max() ?? .failed
        default: .failed
        }
    }
}

private extension BuildError {
    /// An error in words: Foundation's errors by their localized text (their
    /// descriptions are debugging dumps), others by their description.
    static func words(for error: any Error) -> String {
        switch error {
        case let error as CocoaError: error.localizedDescription
        case let error as POSIXError: error.localizedDescription
        default: String(describing: error)
        }
    }
}

/// A tile that failed, for the final list.
public struct FailedTile: Sendable, CustomStringConvertible {
    /// Animation id.
    public var animation: String
    /// Frame index.
    public var frame: Int
    /// Where it was looked for.
    public var locator: String
    /// What went wrong.
    public var problem: TileProblem

    /// A failed tile.
    public init(animation: String, frame: Int, locator: String, problem: TileProblem) {
        self.animation = animation
        self.frame = frame
        self.locator = locator
        self.problem = problem
    }

    /// The problem in words, for showing (never read back: `problem` is the fact).
    public var reason: String { problem.description }

    public var description: String { "\(animation) frame \(frame): \(locator): \(problem)" }
}
