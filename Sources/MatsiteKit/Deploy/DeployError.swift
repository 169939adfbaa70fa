/// A deploy that could not finish: a transfer, listing or delete that rclone reported as
/// failed (exit code 1). What was uploaded stays; running the deploy again resumes from
/// what the target then holds.
public struct DeployError: Swift.Error, CustomStringConvertible, Sendable {
    /// What failed and what rclone said, secrets redacted.
    public let message: String

    /// A failure saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
