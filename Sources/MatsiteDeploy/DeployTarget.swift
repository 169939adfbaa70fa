import Foundation

/// `deploy.target` read as rclone reads it: `remote:path`, `/local/path`, or a connection
/// string `remote,key=value,...:path` / `:backend,key=value,...:path` whose values may be
/// quoted (`'...'` or `"..."`, a doubled quote inside standing for one).
///
/// rclone ends the remote part at the first colon outside quotes, so an unquoted value
/// holding a colon (`endpoint=http://host:9000`) ends there, and what the user meant as
/// more parameters (secrets included) becomes the path. ``misreading(_:)`` finds that.
package enum DeployTarget {
    /// Where the remote part of `remote:path` ends (its colon), skipping quoted values; nil
    /// for a local path.
    static func remoteEnd(_ target: String) -> String.Index? {
        let text = Substring(target)
        // `:backend,...:path` starts with the colon that marks an inline backend.
        let start = target.first == ":" ? target.index(after: target.startIndex) : target.startIndex
        let outside = unquoted(text, from: start)
        guard let colon = outside.first(where: { text[$0] == ":" }) else { return nil }
        // `/srv/www:x` or `./a:b` is a local path with a colon in it: a remote's name (what
        // comes before its first parameter) has no slash.
        let nameEnd = outside.first { text[$0] == "," || text[$0] == ":" } ?? colon
        if target[start..<nameEnd].contains("/") { return nil }
        return colon
    }

    /// The connection string's `key=value` parameters as rclone reads them (the remote's
    /// name first, without `=`).
    static func parameters(_ target: String) -> [Substring] {
        guard let colon = remoteEnd(target) else { return [] }
        return splitParameters(target[..<colon])
    }

    /// `remote,key=value,key="a,b"` split at the commas outside quotes.
    static func splitParameters(_ remote: Substring) -> [Substring] {
        var parts: [Substring] = []
        var start = remote.startIndex
        for index in unquoted(remote, from: remote.startIndex) where remote[index] == "," {
            parts.append(remote[start..<index])
            start = remote.index(after: index)
        }
        parts.append(remote[start...])
        return parts
    }

    /// The indices of `text` from `start` that lie outside single or double quotes (a
    /// doubled quote inside a quoted value closes and reopens it: the same indices).
    static func unquoted(_ text: Substring, from start: String.Index) -> [String.Index] {
        var quote: Character?
        var found: [String.Index] = []
        for index in text[start...].indices {
            let c = text[index]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else {
                found.append(index)
            }
        }
        return found
    }

    /// A value without its quotes (`'it''s'` is `it's`).
    static func unquote(_ value: Substring) -> String {
        guard let q = value.first, q == "\"" || q == "'", value.count >= 2, value.last == q else { return String(value) }
        return value.dropFirst().dropLast().replacingOccurrences(of: "\(q)\(q)", with: "\(q)")
    }

    /// Why rclone would read `target` otherwise than its writer meant, with the target
    /// spelled so that it reads as meant (secrets still in it: mask before showing); nil
    /// when it reads as written.
    ///
    /// The sign is a connection string whose path goes on like parameters
    /// (`//127.0.0.1:9000,secret_access_key=...:bucket`): a value with a colon in it was
    /// not quoted.
    package static func misreading(_ target: String) -> (key: String, quoted: String)? {
        guard let colon = remoteEnd(target) else { return nil }
        let parts = splitParameters(target[..<colon])
        guard parts.count > 1, let last = parts.last, let eq = last.firstIndex(of: "=") else { return nil }
        let path = target[target.index(after: colon)...]
        let continues = path.hasPrefix("//") || looksLikeParameters(path)
        guard continues, let intended = intendedQuoting(target) else { return nil }
        return (String(last[..<eq]), intended)
    }

    /// Whether `path` holds `,name=` outside quotes before a later colon: the rest of a
    /// connection string, not a folder name.
    static func looksLikeParameters(_ path: Substring) -> Bool {
        let positions = unquoted(path, from: path.startIndex)
        guard let lastColon = positions.last(where: { path[$0] == ":" }) else { return false }
        for comma in positions where path[comma] == "," && comma < lastColon {
            let rest = path[path.index(after: comma)...]
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
            if !name.isEmpty, rest.dropFirst(name.count).first == "=" { return true }
        }
        return false
    }

    /// The target with every parameter value that holds a colon, comma or quote quoted:
    /// the parameters run up to the last colon before the path (the path is what follows
    /// the last parameter's value), which is how a person reads `key=http://h:1,...:path`.
    static func intendedQuoting(_ target: String) -> String? {
        let inline = target.hasPrefix(":")
        let body = inline ? target.dropFirst() : Substring(target)
        var parts = splitParameters(body)
        guard parts.count > 1 else { return nil }
        // The last part holding `=` carries the last value and, after its last colon, the path
        // (parts after it, without `=`, are commas inside the path).
        guard let lastParameter = parts.lastIndex(where: { $0.contains("=") }), lastParameter > 0 else { return nil }
        let tail = parts[lastParameter...].joined(separator: ",")
        guard let eq = tail.firstIndex(of: "="), let pathColon = tail[eq...].lastIndex(of: ":") else { return nil }
        let path = tail[tail.index(after: pathColon)...]
        parts.removeSubrange(lastParameter...)
        parts.append(Substring(tail[..<pathColon]))
        let spelled =
            [String(parts[0])]
            + parts.dropFirst().map { part -> String in
                guard let eq = part.firstIndex(of: "=") else { return String(part) }
                let value = part[part.index(after: eq)...]
                let bare = unquote(value)
                let alreadyQuoted = value.first.map { $0 == "\"" || $0 == "'" } ?? false
                guard !alreadyQuoted, bare.contains(where: { $0 == ":" || $0 == "," || $0 == "'" || $0 == "\"" }) else { return String(part) }
                return part[...eq] + "'" + bare.replacingOccurrences(of: "'", with: "''") + "'"
            }
        return (inline ? ":" : "") + spelled.joined(separator: ",") + ":" + path
    }

    /// `target` joined with a path below it.
    static func join(_ target: String, _ path: String) -> String {
        target.hasSuffix("/") || target.hasSuffix(":") ? target + path : target + "/" + path
    }

    /// `target` as a folder, with a trailing slash: rclone then lists it as one, where
    /// without it an object store first asks whether the path is a file (one HEAD and one
    /// listing per rclone call, each retried against a dead host).
    static func folder(_ target: String) -> String {
        target.hasSuffix("/") || target.hasSuffix(":") ? target : target + "/"
    }
}
