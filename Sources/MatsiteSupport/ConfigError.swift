/// A config that cannot be used: names the file, the line and the key path.
public struct ConfigError: Swift.Error, CustomStringConvertible, Equatable, Sendable {
    /// The config file's name as given.
    public let file: String
    /// 1-based line, when the problem sits somewhere in the file.
    public let line: Int?
    /// Dotted key path, e.g. `animations[0].source.url`; empty for the whole document.
    public let keyPath: String
    /// What is wrong and, where it helps, what would be right.
    public let message: String

    /// Creates an error.
    public init(file: String, line: Int?, keyPath: String, message: String) {
        self.file = file
        self.line = line
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return keyPath.isEmpty ? "\(place): \(message)" : "\(place): \(keyPath): \(message)"
    }
}
