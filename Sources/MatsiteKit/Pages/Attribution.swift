import Foundation

/// Attribution text to safe HTML: text is escaped, and only `<a href="http(s)://...">`
/// links survive (rendered with `rel="noopener noreferrer"`); every other tag is shown
/// as text.
enum Attribution {
    /// The safe HTML for `text`.
    static func html(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "<a ", options: .caseInsensitive) {
            out += escape(String(rest[..<open.lowerBound]))
            let tail = rest[open.lowerBound...]
            guard let tagEnd = tail.firstIndex(of: ">"),
                let close = tail.range(of: "</a>", options: .caseInsensitive),
                tagEnd < close.lowerBound,
                let href = hrefValue(String(tail[tail.index(tail.startIndex, offsetBy: 3)..<tagEnd]))
            else {
                out += escape(String(tail.prefix(3)))
                rest = tail.dropFirst(3)
                continue
            }
            let label = String(tail[tail.index(after: tagEnd)..<close.lowerBound])
            out += "<a href=\"\(escape(href))\" rel=\"noopener noreferrer\" target=\"_blank\">\(escape(label))</a>"
            rest = tail[close.upperBound...]
        }
        out += escape(String(rest))
        return out
    }

    /// HTML-escapes text for element content and quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// The href of an `<a ...>` tag's attributes when it is the only attribute and an http(s) URL.
    private static func hrefValue(_ attributes: String) -> String? {
        let trimmed = attributes.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("href="), trimmed.count > 7 else { return nil }
        let value = trimmed.dropFirst(5)
        guard let quote = value.first, quote == "\"" || quote == "'", value.last == quote else { return nil }
        let url = String(value.dropFirst().dropLast())
        guard !url.contains(quote), !url.contains("<"), !url.contains(">"), HTTPURL(url) != nil else { return nil }
        return url
    }
}
