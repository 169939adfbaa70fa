/// A build that could not finish, by stage, in words a user can act on.
public enum BuildError: Swift.Error, CustomStringConvertible, Sendable {
    /// A stage failed: `stage` is plan, fetch, stitch, publish or pages.
    case stage(String, String)
    /// Tiles could not be had (with `missing: fail`): every one, with its cause.
    case tilesFailed([FailedTile])
    /// The whole build ran past its deadline.
    case deadline(Double)
    /// Another build holds the output's lock.
    case locked(String)

    public var description: String {
        switch self {
        case .stage(let stage, let message):
            return "\(stage): \(message)"
        case .tilesFailed(let tiles):
            let shown = tiles.prefix(50).map { "  - \($0)" }.joined(separator: "\n")
            let more = tiles.count > 50 ? "\n  ... and \(tiles.count - 50) more" : ""
            return "fetch: \(tiles.count) tile(s) could not be had (missing: fail; set missing: transparent to draw them empty):\n\(shown)\(more)"
        case .deadline(let seconds):
            return "the build ran past its deadline of \(Int(seconds)) s (deadline_s) and was stopped; the previous site is unchanged"
        case .locked(let message):
            return message
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
    /// Why it failed.
    public var reason: String

    public var description: String { "\(animation) frame \(frame): \(locator): \(reason)" }
}
