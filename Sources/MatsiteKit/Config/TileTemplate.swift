/// A tile address template with `{z} {x} {y} {-y} {s} {time} {frame}` placeholders.
public struct TileTemplate: Sendable, Equatable {
    /// A placeholder's name.
    public enum Placeholder: String, Sendable, CaseIterable {
        case z, x, y, minusY = "-y", s, time, frame
    }

    private enum Part: Sendable, Equatable {
        case literal(String)
        case placeholder(Placeholder)
    }

    /// The template as written.
    public let text: String
    private let parts: [Part]

    /// Parses a template; an unknown or unclosed placeholder is an error naming it.
    public init(_ text: String) throws(TemplateError) {
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
            guard let placeholder = Placeholder(rawValue: name) else {
                let known = Placeholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")
                throw TemplateError(template: text, message: "unknown placeholder {\(name)}; known: \(known)")
            }
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
            parts.append(.placeholder(placeholder))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    /// The placeholders used.
    public var placeholders: Set<Placeholder> {
        Set(parts.compactMap { if case .placeholder(let p) = $0 { p } else { nil } })
    }

    /// True when the template names a tile: a zoom, a column and a row.
    public var addressesTiles: Bool {
        let used = placeholders
        return used.contains(.z) && used.contains(.x) && (used.contains(.y) || used.contains(.minusY))
    }

    /// Fills the template. `y` is the XYZ row; `{-y}` gets the TMS row.
    public func expand(z: Int, x: Int, y: Int, subdomain: String?, time: String?, frame: Int?) -> String {
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
            }
        }
        return out
    }

    /// Fills only `{time}` and `{frame}`, leaving the tile placeholders for the player.
    public func expandFrame(time: String?, frame: Int?) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text): out += text
            case .placeholder(.time): out += time ?? ""
            case .placeholder(.frame): out += frame.map(String.init) ?? ""
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
