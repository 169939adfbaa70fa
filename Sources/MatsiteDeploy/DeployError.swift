import MatsiteSupport

/// A deploy that could not finish. A transfer, listing or delete that rclone reported as
/// failed is a failure (exit 1): what was uploaded stays, and running the deploy again
/// resumes from what the target then holds. No built site is what the command asks that
/// cannot be had (exit 2); a missing rclone is a ``ConfigError`` naming `deploy.rclone`.
public enum DeployError: ClassifiedError, CustomStringConvertible, Sendable, Equatable {
    /// The output folder holds no built site (no `manifest.json`).
    case noSite(folder: String)
    /// The site folder (or its snapshot) cannot be read.
    case siteUnreadable(folder: String)
    /// The site itself holds a file under the name the ledger has on the target.
    case ledgerNameTaken(name: String)
    /// `rclone backend features` answered something that is not its description.
    case featuresNotJSON
    /// `rclone lsjson` answered something that is not its listing.
    case listingNotJSON(target: String)
    /// rclone ended with an error while doing `step`: its exit status and its last lines
    /// (secrets redacted).
    case rcloneFailed(step: String, target: String, status: Int32, said: [String])
    /// A connection to the target was refused, reset or timed out while doing `step`, and
    /// the deploy stopped there: rclone's line saying so, and its last lines (redacted).
    case connectionLost(step: String, target: String, cause: String, said: [String])
    /// rclone could not be run to its end (it did not start, or ran past `deploy.timeout_s`
    /// and was stopped): why, secrets redacted.
    case rcloneDidNotFinish(reason: String)

    public var exitClass: ExitClass {
        switch self {
        case .noSite, .ledgerNameTaken: .config
        default: .failed
        }
    }

    public var description: String {
        switch self {
        case .noSite(let folder):
            return "\(folder) holds no built site (no manifest.json): run matsite build first"
        case .ledgerNameTaken(let name):
            return "the site holds a file named \(name), the name deploy keeps its ledger under on the target"
        case .featuresNotJSON:
            return "rclone backend features answered something that is not its JSON description"
        case .siteUnreadable(let folder):
            return "cannot read the site folder \(folder)"
        case .listingNotJSON(let target):
            return "rclone lsjson \(target) answered something that is not its JSON listing"
        case .rcloneFailed(let step, let target, let status, let said):
            let detail = said.isEmpty ? "" : ":\n  " + said.joined(separator: "\n  ")
            return "deploy to \(target) failed while \(step) (rclone exit \(status))\(detail)"
        case .connectionLost(let step, let target, let cause, let said):
            let rest = said.filter { $0 != cause }
            let detail = rest.isEmpty ? "" : "\n  " + rest.joined(separator: "\n  ")
            return "deploy to \(target) failed while \(step): the server refused, dropped or stopped answering a connection, "
                + "so the deploy stopped at once (what landed stays; run it again once the server is back):\n  \(cause)\(detail)"
        case .rcloneDidNotFinish(let reason):
            return reason
        }
    }
}
