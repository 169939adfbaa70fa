/// A tile address template with `{z} {x} {y} {-y} {s} {time} {frame}` placeholders.
public struct TileTemplate: Sendable, Equatable {
    /// A placeholder's name.
    public enum Placeholder: String, Sendable, CaseIterable {
        case z, x, y, minusY = "-y", s, time, frame
    }

    private enum Part: Sendable, Equatable {
        case literal(String)
        case placeholder(Placeholder)
        /// A name filled from a frame index's item or root fields (`{path}`, `{host}`).
        case field(String)
    }

    /// The template as written.
    public let text: String
    /// The lowercased host of an `http://` or `https://` template (no port, no user), nil
    /// for anything else: read once here, so later stages never scan the text.
    public let host: String?
    private let parts: [Part]

    /// True for an `http://` or `https://` template (fetched over the network).
    public var isHTTP: Bool { host != nil }

    /// Parses a template; an unknown or unclosed placeholder is an error naming it.
    /// `fields` are extra placeholder names a frame index fills.
    public init(_ text: String, fields: Set<String> = []) throws(TemplateError) {
        self.text = text
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw TemplateError(template: text, message: "\"{\" is never closed")
            }
            let name = String(rest[rest.index(after: open)..<close])
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
            if let placeholder = Placeholder(rawValue: name) {
                parts.append(.placeholder(placeholder))
            } else if fields.contains(name) {
                parts.append(.field(name))
            } else {
                let known = (Placeholder.allCases.map(\.rawValue) + fields.sorted()).map { "{\($0)}" }.joined(separator: " ")
                throw TemplateError(template: text, message: "unknown placeholder {\(name)}; known: \(known)")
            }
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        self.host = HTTPURL.host(ofTemplate: text)
    }

    /// The placeholders used.
    public var placeholders: Set<Placeholder> {
        Set(parts.compactMap { if case .placeholder(let p) = $0 { p } else { nil } })
    }

    /// The index field names used (`{path}`, `{host}`...).
    public var fieldNames: Set<String> {
        Set(parts.compactMap { if case .field(let name) = $0 { name } else { nil } })
    }

    /// True when the template names a tile: a zoom, a column and a row.
    public var addressesTiles: Bool {
        let used = placeholders
        return used.contains(.z) && used.contains(.x) && (used.contains(.y) || used.contains(.minusY))
    }

    /// Fills the template. `y` is the XYZ row; `{-y}` gets the TMS row.
    public func expand(
        z: Int, x: Int, y: Int, subdomain: String?, time: String?, frame: Int?,
        fields: [String: String] = [:]
    ) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text): out += text
            case .placeholder(.z): out += String(z)
            case .placeholder(.x): out += String(x)
            case .placeholder(.y): out += String(y)
            case .placeholder(.minusY): out += String((1 << z) - 1 - y)
            case .placeholder(.s): out += subdomain ?? ""
            case .placeholder(.time): out += time ?? ""
            case .placeholder(.frame): out += frame.map(String.init) ?? ""
            case .field(let name): out += fields[name] ?? ""
            }
        }
        return out
    }

    /// Fills only `{time}` and `{frame}`, leaving the tile placeholders for the player.
    public func expandFrame(time: String?, frame: Int?, fields: [String: String] = [:]) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text): out += text
            case .placeholder(.time): out += time ?? ""
            case .placeholder(.frame): out += frame.map(String.init) ?? ""
            case .field(let name): out += fields[name] ?? ""
            case .placeholder(let other): out += "{\(other.rawValue)}"
            }
        }
        return out
    }
}

/// A template that cannot be parsed.
public struct TemplateError: Swift.Error, CustomStringConvertible, Sendable {
    public let template: String
    public let message: String
    public var description: String { "\(message) in \"\(template)\"" }
}
