/// A PNG could not be read or written; `reason` is libpng's message or ours.
public struct PNGError: Swift.Error, CustomStringConvertible, Equatable, Sendable {
    /// Decoding or encoding.
    public enum Operation: String, Sendable { case decode, encode }

    /// What failed.
    public let operation: Operation
    /// Why, in libpng's words where it said something.
    public let reason: String

    /// Creates an error.
    public init(_ operation: Operation, _ reason: String) {
        self.operation = operation
        self.reason = reason
    }

    public var description: String {
        "PNG \(operation.rawValue) failed: \(reason)"
    }
}
