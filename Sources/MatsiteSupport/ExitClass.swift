/// How a failed command ends, by who can mend it: the exit status of `matsite`'s contract.
public enum ExitClass: Int32, Sendable, Comparable {
    /// 1: the network, a server or this machine failed (fetch, decode, write); running
    /// again later, unchanged, may succeed.
    case failed = 1
    /// 2: the config or the command line asks for what cannot be had (a key, a limit, a
    /// projection, times or an archive that the source does not offer); only an edit mends it.
    case config = 2

    public static func < (a: ExitClass, b: ExitClass) -> Bool { a.rawValue < b.rawValue }

    /// The class `error` says it belongs to; errors that do not say are failures.
    public static func of(_ error: any Error) -> ExitClass {
        (error as? any ClassifiedError)?.exitClass ?? .failed
    }
}

/// An error that says which exit class it belongs to, so that `build`, `check` and
/// `deploy` end alike for the same cause, whatever step met it.
public protocol ClassifiedError: Error {
    /// The exit class.
    var exitClass: ExitClass { get }
}

extension ConfigError: ClassifiedError {
    public var exitClass: ExitClass { .config }
}
