/// Point data that cannot be used: names the layer, the document (file or URL), the
/// feature or row, the key, and what is wrong.
public struct PointError: Swift.Error, CustomStringConvertible, Sendable, Equatable {
    /// The layer's key path in the config, `animations[0].points[1]`.
    public let layer: String
    /// The file or URL.
    public let document: String
    /// Where in the document: `features[12].geometry.coordinates`, `row 7, column lat`;
    /// empty for the whole of it.
    public let place: String
    /// What is wrong.
    public let message: String

    /// Creates an error.
    public init(layer: String, document: String, place: String, message: String) {
        self.layer = layer
        self.document = document
        self.place = place
        self.message = message
    }

    public var description: String {
        "\(layer): \(document)" + (place.isEmpty ? "" : ": \(place)") + ": \(message)"
    }
}
