/// Percent-encodes a value for a URL path segment or query value: everything but RFC 3986
/// unreserved characters and `:` (kept for ISO 8601 times), plus `extra`.
func percentEncode(_ value: String, keeping extra: Set<UInt8> = []) -> String {
    var result = ""
    for byte in value.utf8 {
        let isUnreserved =
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E || byte == 0x5F
            || byte == 0x7E || byte == 0x3A
        if isUnreserved || extra.contains(byte) {
            result.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
            let hex = Array("0123456789ABCDEF".utf8)
            result += "%"
            result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
            result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
        }
    }
    return result
}

/// `base` with `parameters` as its query: parameters of `base` that are not replaced are kept
/// (a MapServer `map=` for example); keys compare case-insensitively. Values must already be
/// encoded.
func appendingQuery(_ base: String, _ parameters: [(String, String)]) -> String {
    var fragmentFree = base
    if let hash = fragmentFree.firstIndex(of: "#") { fragmentFree = String(fragmentFree[..<hash]) }
    let parts = fragmentFree.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    let path = String(parts[0])
    let replaced = Set(parameters.map { $0.0.lowercased() })
    var items: [String] = []
    if parts.count == 2 {
        for item in parts[1].split(separator: "&") where !item.isEmpty {
            let key = item.split(separator: "=", maxSplits: 1).first.map { String($0).lowercased() } ?? ""
            if !replaced.contains(key) { items.append(String(item)) }
        }
    }
    items += parameters.map { "\($0.0)=\($0.1)" }
    return path + "?" + items.joined(separator: "&")
}

/// Resolves a URL reference (RFC 3986 section 5, without dot-segment edge cases beyond
/// `./` and `../`) against the URL of the document it came from.
func resolveURL(_ reference: String, against base: String) -> String {
    let reference = reference.trimmingXMLWhitespace()
    if hasScheme(reference) || base.isEmpty { return reference }
    guard let schemeEnd = base.range(of: "://") else { return reference }
    let scheme = String(base[..<schemeEnd.lowerBound])
    let afterScheme = base[schemeEnd.upperBound...]
    let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
    let authority = String(afterScheme[..<authorityEnd])
    var basePath = String(afterScheme[authorityEnd...])
    if let cut = basePath.firstIndex(where: { $0 == "?" || $0 == "#" }) { basePath = String(basePath[..<cut]) }

    if reference.hasPrefix("//") { return scheme + ":" + reference }
    if reference.hasPrefix("/") { return scheme + "://" + authority + normalizeDots(reference) }
    if reference.hasPrefix("?") { return scheme + "://" + authority + (basePath.isEmpty ? "/" : basePath) + reference }
    let directory: String
    if let slash = basePath.lastIndex(of: "/") {
        directory = String(basePath[...slash])
    } else {
        directory = "/"
    }
    return scheme + "://" + authority + normalizeDots(directory + reference)
}

private func hasScheme(_ text: String) -> Bool {
    guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
    let scheme = text[..<colon]
    guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
    return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
}

private func normalizeDots(_ path: String) -> String {
    var query = ""
    var pathOnly = path
    if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
        query = String(path[cut...])
        pathOnly = String(path[..<cut])
    }
    var output: [Substring] = []
    let segments = pathOnly.split(separator: "/", omittingEmptySubsequences: false)
    for (index, segment) in segments.enumerated() {
        if segment == "." { if index == segments.count - 1 { output.append("") }; continue }
        if segment == ".." {
            if output.count > 1 { output.removeLast() }
            if index == segments.count - 1 { output.append("") }
            continue
        }
        output.append(segment)
    }
    return output.joined(separator: "/") + query
}

/// Formats a coordinate in metres for a BBOX: fixed to micrometres, trailing zeros dropped.
func formatCoordinate(_ value: Double) -> String {
    let scaled = (value * 1_000_000).rounded()
    var integer = Int64(scaled)
    let negative = integer < 0
    if negative { integer = -integer }
    let whole = integer / 1_000_000
    var fraction = String(integer % 1_000_000)
    fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    let sign = negative && integer != 0 ? "-" : ""
    return sign + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
}
