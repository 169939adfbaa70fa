import Foundation

/// An http(s) URL, checked once: scheme `http` or `https` (any case) and a host. The
/// config's URLs of documents to fetch (a frame index, capabilities, point data) are of
/// this type, so nothing downstream checks again.
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL as written.
    public let text: String
    /// It parsed.
    public let url: URL
    /// Its host, lowercased.
    public let host: String

    /// `text` as an http(s) URL; nil when it is not one or names no host.
    public init?(_ text: String) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        self.text = text
        self.url = url
        self.host = host.lowercased()
    }

    /// The URL as written.
    public var description: String { text }

    /// The lowercased host of an http(s) URL template (`https://{s}.example.org/{z}/...`),
    /// nil when it is not one. Templates hold braces, which URL parsing refuses: the
    /// authority is taken by hand, between `://` and the first `/`, `?` or `#`.
    public static func host(ofTemplate text: String) -> String? {
        let lowered = text.lowercased()
        let rest: Substring
        if lowered.hasPrefix("http://") {
            rest = lowered.dropFirst(7)
        } else if lowered.hasPrefix("https://") {
            rest = lowered.dropFirst(8)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        // An IPv6 literal keeps its colons inside brackets.
        if hostAndPort.hasPrefix("["), let close = hostAndPort.firstIndex(of: "]") {
            return String(hostAndPort[...close])
        }
        return String(hostAndPort.prefix { $0 != ":" })
    }
}
