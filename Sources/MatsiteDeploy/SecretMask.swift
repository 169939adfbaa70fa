import Foundation

/// Hides secrets in anything `matsite deploy` shows: its own messages and every line of
/// rclone's it passes on. A target or flag may carry credentials (`:s3,secret_access_key=
/// ...:bucket`, `--sftp-pass=...`), and rclone quotes its arguments in its errors and, with
/// `-vv`, the config values it reads.
///
/// Three layers, so that a spelling one misses the next catches: the values of the
/// target's and flags' secret-named parameters are replaced wherever they appear, whatever
/// surrounds them; any `name=value` whose name reads like a secret (`pass`, `secret`,
/// `token`, `key`...) has its value replaced; and the password of a URL (`user:pw@host`)
/// and the value of credential headers (`Authorization:`) are replaced.
package struct SecretMask: Sendable {
    /// What stands for a hidden value.
    static let hidden = "***"

    /// The target as shown.
    package let shownTarget: String
    /// The target's spellings rclone prints (as given, as a folder with `/`, and each
    /// inside Go's quotes, `\"` for `"`), each with its masked form, longest first.
    let spellings: [(String, String)]
    /// Secret values found in the target and the flags, longest first.
    let literals: [String]

    /// A mask for a deploy to `target` with `flags`.
    package init(target: String, flags: [String] = []) {
        var found = Set<String>()
        // Every `name=value` of the target, however rclone cuts it: the sensitive ones'
        // values, quoted or not, and each piece of one (rclone may quote a part of it alone).
        for (name, value) in Self.assignments(in: target) where Self.isSecretName(name) {
            let bare = DeployTarget.unquote(value)
            found.insert(bare)
            for piece in bare.split(whereSeparator: { $0 == ":" || $0 == "," || $0.isWhitespace }) { found.insert(String(piece)) }
        }
        // `headers='Authorization,Bearer ...'` (WebDAV, HTTP): the secret-named headers' values.
        for (name, value) in Self.assignments(in: target) where name.lowercased().hasSuffix("headers") {
            found.formUnion(Self.headerSecrets(DeployTarget.unquote(value)))
        }
        for password in Self.urlPasswords(in: target) { found.insert(password) }
        for (name, value) in Self.flagValues(flags) {
            // `--sftp-pass=x` or `--sftp-pass`, `x`; `--header`, `Authorization: Bearer x`;
            // `--webdav-headers=Authorization,Bearer x`.
            if Self.isSecretName(name) {
                found.insert(value)
            } else if name.lowercased().contains("header") {
                found.formUnion(Self.headerSecrets(value))
            }
        }
        // Short values would match inside ordinary words; the `name=value` layer still hides them.
        let literals = found.filter { $0.count >= 4 }.sorted { ($0.count, $0) > ($1.count, $1) }
        self.literals = literals
        shownTarget = Self.maskPatterns(target, literals: literals)
        var spellings: [(String, String)] = []
        for form in Set([target, DeployTarget.folder(target)]) where !form.isEmpty {
            let shown = Self.maskPatterns(form, literals: literals)
            spellings.append((form, shown))
            spellings.append((Self.goQuoted(form), Self.goQuoted(shown)))
        }
        self.spellings = spellings.sorted { ($0.0.count, $0.0) > ($1.0.count, $1.0) }
    }

    /// Each flag's name (without its dashes) with its value: `--name=value`, or `--name`
    /// followed by an item that is no flag (`["--transfers", "8"]`); flags without a value left out.
    static func flagValues(_ flags: [String]) -> [(name: Substring, value: String)] {
        var found: [(name: Substring, value: String)] = []
        var open: Substring?
        for flag in flags {
            if flag.hasPrefix("-") {
                let bare = flag.drop { $0 == "-" }
                if let eq = bare.firstIndex(of: "=") {
                    found.append((bare[..<eq], String(bare[bare.index(after: eq)...])))
                    open = nil
                } else {
                    open = bare
                }
            } else {
                if let name = open { found.append((name, flag)) }
                open = nil
            }
        }
        return found
    }

    /// The values of the secret-named headers in a header flag's or parameter's value:
    /// `Name: value` (rclone's `--header`, `--header-upload`), or rclone's comma-separated
    /// `Name,value,Name,value` (`--webdav-headers`, a remote's `headers=`), fields quoted
    /// CSV-style where they hold a comma. Each value whole, and its long words apart
    /// (`Bearer <token>` gives the token too: rclone may print the words one by one).
    static func headerSecrets(_ spec: String) -> Set<String> {
        var pairs: [(Substring, String)] = []
        if let colon = spec.firstIndex(of: ":"), !spec[..<colon].isEmpty, spec[..<colon].allSatisfy(isNameCharacter) {
            pairs.append((spec[..<colon], spec[spec.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        } else {
            let fields = csvFields(spec)
            for index in stride(from: 0, to: fields.count - 1, by: 2) {
                pairs.append((Substring(fields[index].trimmingCharacters(in: .whitespaces)), fields[index + 1]))
            }
        }
        var found = Set<String>()
        for (name, value) in pairs where isSecretName(name) && !value.isEmpty {
            found.insert(value)
            // `Bearer <token>`, `session=<token>; theme=dark`: the long words apart too.
            for word in value.split(whereSeparator: { $0.isWhitespace || $0 == ";" || $0 == "=" || $0 == "," }) where word.count >= 8 {
                found.insert(String(word))
            }
        }
        return found
    }

    /// One line of CSV split into its fields (`a,"b,c",d`; a doubled quote inside a quoted
    /// field stands for itself), as rclone reads a comma-separated list.
    static func csvFields(_ line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var chars = line.makeIterator()
        var pending: Character? = chars.next()
        while let c = pending {
            pending = chars.next()
            if quoted {
                if c == "\"" {
                    if pending == "\"" {
                        field.append("\"")
                        pending = chars.next()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(c)
                }
            } else if c == "\"", field.isEmpty {
                quoted = true
            } else if c == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(c)
            }
        }
        fields.append(field)
        return fields
    }

    /// `text` with every secret replaced by `***`.
    func callAsFunction(_ text: String) -> String {
        var text = text
        for (form, shown) in spellings { text = text.replacingOccurrences(of: form, with: shown) }
        return Self.maskPatterns(text, literals: literals)
    }

    /// `text` as Go's `%q` writes it inside its quotes: backslashes and quotes escaped.
    static func goQuoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// Literals, then `name=value` pairs, URL passwords and credential headers.
    static func maskPatterns(_ text: String, literals: [String]) -> String {
        var text = text
        for literal in literals { text = text.replacingOccurrences(of: literal, with: hidden) }
        text = maskAssignments(text)
        text = maskURLPasswords(text)
        return maskHeaders(text)
    }

    /// Whether a parameter or flag name reads like a credential's.
    static func isSecretName(_ name: Substring) -> Bool {
        let lower = name.lowercased()
        return ["pass", "secret", "token", "key", "credential", "signature", "auth", "cookie", "session", "private", "sas"]
            .contains { lower.contains($0) }
    }

    static func isNameCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-")
    }

    /// Every `name=value` in `text`: the value quoted (to its closing quote) or bare (to a
    /// comma, colon, space, quote, `&`, `;` or bracket).
    static func assignments(in text: String) -> [(name: Substring, value: Substring)] {
        assignmentRanges(in: Substring(text)).map { (text[$0.name], text[$0.value]) }
    }

    static func assignmentRanges(in text: Substring) -> [(name: Range<String.Index>, value: Range<String.Index>)] {
        var found: [(Range<String.Index>, Range<String.Index>)] = []
        var index = text.startIndex
        while let eq = text[index...].firstIndex(of: "=") {
            var nameStart = eq
            while nameStart > text.startIndex, isNameCharacter(text[text.index(before: nameStart)]) {
                nameStart = text.index(before: nameStart)
            }
            let valueStart = text.index(after: eq)
            var valueEnd = valueStart
            if valueStart < text.endIndex, let quote = text[valueStart...].first, quote == "\"" || quote == "'" {
                // To the closing quote; a doubled one stands for itself.
                var i = text.index(after: valueStart)
                while i < text.endIndex {
                    if text[i] == quote {
                        let next = text.index(after: i)
                        if next < text.endIndex, text[next] == quote {
                            i = text.index(after: next)
                            continue
                        }
                        i = next
                        break
                    }
                    i = text.index(after: i)
                }
                valueEnd = i
            } else if text[valueStart...].hasPrefix("\\\"") {
                // Inside Go's quotes (rclone's argument list): to the next `\"`.
                let rest = text.index(valueStart, offsetBy: 2)
                valueEnd = text[rest...].range(of: "\\\"")?.upperBound ?? text.endIndex
            } else {
                let stops: Set<Character> = [",", ":", " ", "\t", "\"", "'", "&", ";", ")", "]", "}", ">"]
                valueEnd = text[valueStart...].firstIndex { stops.contains($0) } ?? text.endIndex
            }
            if nameStart < eq { found.append((nameStart..<eq, valueStart..<valueEnd)) }
            index = valueEnd > eq ? valueEnd : valueStart
            if index >= text.endIndex { break }
        }
        return found
    }

    /// `text` with the value of every secret-named `name=value` replaced.
    static func maskAssignments(_ text: String) -> String {
        let whole = Substring(text)
        var out = ""
        var copied = whole.startIndex
        for (name, value) in assignmentRanges(in: whole) where isSecretName(whole[name]) && !value.isEmpty {
            let shown = whole[value]
            // A value already hidden stays as it is (the target is shown masked, then passed through again).
            guard shown != hidden else { continue }
            out += whole[copied..<value.lowerBound] + hidden
            copied = value.upperBound
        }
        return out + whole[copied...]
    }

    /// The passwords of URLs (`scheme://user:password@host`) in `text`.
    static func urlPasswords(in text: String) -> [String] {
        urlPasswordRanges(in: Substring(text)).map { String(text[$0]) }
    }

    static func urlPasswordRanges(in text: Substring) -> [Range<String.Index>] {
        var found: [Range<String.Index>] = []
        var from = text.startIndex
        while let scheme = text[from...].range(of: "://") {
            // Up to the last `@` before a space or quote: a password written unescaped may
            // hold `/` or `@` itself.
            let authority = text[scheme.upperBound...].prefix { !" \t\"'".contains($0) }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                let password = text.index(after: colon)..<at
                if !password.isEmpty { found.append(password) }
            }
            from = authority.endIndex
        }
        return found
    }

    static func maskURLPasswords(_ text: String) -> String {
        let whole = Substring(text)
        var out = ""
        var copied = whole.startIndex
        for range in urlPasswordRanges(in: whole) where whole[range] != hidden {
            out += whole[copied..<range.lowerBound] + hidden
            copied = range.upperBound
        }
        return out + whole[copied...]
    }

    /// Headers that carry credentials (rclone's `--dump headers`, its `-vv` line `found
    /// headers: [...]`, a `Name,value` list): the rest of the line after their name goes.
    static func maskHeaders(_ text: String) -> String {
        let names = ["authorization", "cookie", "x-amz-security-token"]
        let lower = text.lowercased()
        guard names.contains(where: { lower.contains($0) }) || lower.contains("found headers:") else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let l = line.lowercased()
            if let r = l.range(of: "found headers:") {
                return String(line.prefix(l.distance(from: l.startIndex, to: r.upperBound))) + " " + hidden
            }
            for name in names {
                // `Authorization: x`, `Authorization,x`, `"Authorization" "x"`: a name then a separator.
                for separator in [":", ",", "\" \"", "\",\""] {
                    guard let r = l.range(of: name + separator) else { continue }
                    // To the end of the line, or of the quoted argument it is in (rclone's
                    // `-vv` argument list: the flags after it stay readable).
                    let start = l.distance(from: l.startIndex, to: r.upperBound)
                    let rest = line.dropFirst(start)
                    // Already hidden (the value was a known secret): as it is.
                    if rest.trimmingCharacters(in: .whitespaces).hasPrefix(hidden) { continue }
                    let quote = l[..<r.lowerBound].last.flatMap { $0 == "\"" || $0 == "'" ? $0 : nil }
                    let end = quote.flatMap { q in rest.firstIndex(of: q) }
                    return String(line.prefix(start)) + " " + hidden + (end.map { String(rest[$0...]) } ?? "")
                }
            }
            return String(line)
        }.joined(separator: "\n")
    }
}
