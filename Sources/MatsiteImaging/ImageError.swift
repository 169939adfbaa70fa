/// An image could not be read or written; `reason` is the library's message or ours.
public struct ImageError: Swift.Error, CustomStringConvertible, Equatable, Sendable {
    /// Decoding or encoding.
    public enum Operation: String, Sendable { case decode, encode }

    /// What failed.
    public let operation: Operation
    /// Why, in the library's words where it said something.
    public let reason: String
    /// The format involved ("PNG", "JPEG", "WebP", or "image" when the bytes are none of them).
    public let format: String

    /// Creates an error.
    public init(_ operation: Operation, _ reason: String, format: String = "PNG") {
        self.operation = operation
        self.reason = reason
        self.format = format
    }

    public var description: String {
        "\(format) \(operation.rawValue) failed: \(reason)"
    }
}

/// The error PNG decoding and encoding throw (the name callers knew before JPEG and WebP
/// tiles joined in; every tile decoder throws this same type).
public typealias PNGError = ImageError
