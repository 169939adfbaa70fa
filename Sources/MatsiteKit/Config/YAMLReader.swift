import Foundation
import Yams

/// Typed access to a composed YAML tree, with errors that carry the key path and line.
///
/// Every mapping is read through `fields(_:allowed:)`, which refuses unknown keys, so a
/// typo never silently falls back to a default.
struct YAMLReader {
    let file: String
    /// Nodes visited so far: alias-heavy documents cannot make the walk explode.
    private var visits = 0
    private let maxVisits = 200_000

    init(file: String) { self.file = file }

    func error(_ node: Node?, _ path: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: node?.mark?.line, keyPath: path, message: message)
    }

    /// The fields of a mapping, checked against `allowed`.
    mutating func fields(_ node: Node, _ path: String, allowed: [String]) throws -> Fields {
        try visit(node, path)
        guard case .mapping(let mapping) = node else {
            throw error(node, path, "expected a mapping (key: value lines), found \(describe(node))")
        }
        var values: [String: Node] = [:]
        for (key, value) in mapping {
            try visit(key, path)
            guard case .scalar(let scalar) = key else { throw error(key, path, "keys must be plain words") }
            let name = scalar.string
            let keyPath = path.isEmpty ? name : "\(path).\(name)"
            guard allowed.contains(name) else {
                let hint = Self.closest(name, in: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw ConfigError(
                    file: file, line: key.mark?.line, keyPath: keyPath,
                    message: "unknown key\(hint); allowed here: \(allowed.joined(separator: ", "))")
            }
            guard values[name] == nil else { throw error(key, keyPath, "key given twice") }
            values[name] = value
        }
        return Fields(node: node, path: path, values: values)
    }

    mutating func string(_ node: Node, _ path: String) throws -> String {
        try visit(node, path)
        guard case .scalar(let scalar) = node else { throw error(node, path, "expected text, found \(describe(node))") }
        return scalar.string
    }

    mutating func int(_ node: Node, _ path: String, in range: ClosedRange<Int>) throws -> Int {
        let text = try string(node, path)
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")) else {
            throw error(node, path, "expected a whole number, found \"\(text)\"")
        }
        guard range.contains(value) else {
            throw error(node, path, "must be from \(range.lowerBound) to \(range.upperBound) (found \(value))")
        }
        return value
    }

    mutating func double(_ node: Node, _ path: String, in range: ClosedRange<Double>) throws -> Double {
        let text = try string(node, path)
        guard let value = Double(text), value.isFinite else { throw error(node, path, "expected a number, found \"\(text)\"") }
        guard range.contains(value) else {
            throw error(node, path, "must be from \(range.lowerBound) to \(range.upperBound) (found \(text))")
        }
        return value
    }

    mutating func bool(_ node: Node, _ path: String) throws -> Bool {
        let text = try string(node, path)
        switch text.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw error(node, path, "expected true or false, found \"\(text)\"")
        }
    }

    mutating func list(_ node: Node, _ path: String) throws -> [(Node, String)] {
        try visit(node, path)
        guard case .sequence(let sequence) = node else {
            throw error(node, path, "expected a list ([a, b] or '- ' lines), found \(describe(node))")
        }
        return sequence.enumerated().map { ($1, "\(path)[\($0)]") }
    }

    mutating func strings(_ node: Node, _ path: String) throws -> [String] {
        try list(node, path).map { try string($0.0, $0.1) }
    }

    mutating func choice<T: RawRepresentable>(
        _ node: Node, _ path: String, _: T.Type,
        options: [T]
    ) throws -> T where T.RawValue == String {
        let text = try string(node, path)
        guard let value = T(rawValue: text) else {
            throw error(node, path, "must be one of \(options.map(\.rawValue).joined(separator: ", ")) (found \"\(text)\")")
        }
        return value
    }

    private mutating func visit(_ node: Node, _ path: String) throws {
        visits += 1
        guard visits <= maxVisits else {
            throw error(node, path, "the document is too large or expands too much (YAML aliases?)")
        }
    }

    private func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): "\"\(scalar.string)\""
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    /// The allowed key nearest to a misspelt one (edit distance at most 2).
    private static func closest(_ name: String, in allowed: [String]) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, ca) in a.enumerated() {
                var current = [i + 1]
                for (j, cb) in b.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
                }
                previous = current
            }
            return previous[b.count]
        }
        let best = allowed.map { ($0, distance(Array(name), Array($0))) }.min { $0.1 < $1.1 }
        return best.flatMap { $0.1 <= 2 ? $0.0 : nil }
    }
}

/// A checked mapping's values by key.
struct Fields {
    let node: Node
    let path: String
    let values: [String: Node]

    subscript(_ key: String) -> Node? { values[key] }

    func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The keys present among `keys`.
    func present(_ keys: [String]) -> [String] { keys.filter { values[$0] != nil } }
}
