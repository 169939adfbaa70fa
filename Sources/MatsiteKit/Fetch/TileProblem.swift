import Foundation
import MatsiteCapabilities

/// What went wrong with one tile, or with `matsite check`'s probe of one: a value with its
/// facts (status, host and port, sizes), made where the problem is met and worded only
/// here: `description` (a build's messages, `--verbose`, the manifest's `missing_tiles`
/// reasons) and `hint(tolerated:)` (what to do about it). Nothing reads the words back.
public indirect enum TileProblem: Sendable, Hashable {
    /// The source has no tile there.
    case notFound(Absence)
    /// The server answered with an error status other than 404 and 204; `excerpt` is the
    /// start of its body in one line (a tile server often says there why it failed).
    case refused(status: Int, excerpt: String)
    /// An HTTP 500 whose body the same host had already sent this build: the
    /// server's verdict on these tiles (a TiTiler's missing COG), not a hiccup, so not retried.
    case sameAnswer(status: Int, excerpt: String)
    /// Not asked for: the host had failed `failures` requests in a row this build (`last`
    /// being the last one's problem), so the rest of its work fails at once.
    case hostFailing(host: String, port: Int, failures: Int, last: TileProblem)
    /// The host kept a request waiting `seconds` (`http.stall_s`) without a byte while
    /// nothing else came from it: every request to it failed at once. `waitingFor` says
    /// what never came (the connection, the answer or the rest of a body).
    case stalled(host: String, port: Int, seconds: Double, waitingFor: TimeoutPhase)
    /// The tile's pixel size is not the planned tile size.
    case wrongSize(width: Int, height: Int, expected: Int)
    /// The bytes are not a PNG, JPEG or WebP image.
    case notAnImage(NotAnImage)
    /// A WMS/WMTS exception document came instead of an image: the service's exceptions
    /// (code, locator, words).
    case serviceException([ServiceException])
    /// The image is damaged: the decoder's words.
    case undecodable(String)
    /// Nothing accepts connections at the host and port.
    case connectionRefused(host: String, port: Int)
    /// The host name does not resolve.
    case unknownHost(String)
    /// No route to the host: no network, or a network that cannot reach it.
    case unreachable(host: String, port: Int, detail: String)
    /// The TLS handshake failed (a certificate, a protocol, or a plain-HTTP port).
    case tls(host: String, detail: String)
    /// No connection, answer or body within `http.timeout_s`.
    case timeout(TimeoutPhase, seconds: Double)
    /// Over `http.max_tile_bytes`: by its `Content-Length` (`declared`), or as it came.
    case tooLarge(limit: Int, declared: Int?)
    /// The exchange broke off or went wrong otherwise (a reset, a short body, redirects).
    case transfer(String)
    /// A local file or archive could not be read (it exists; the system or SQLite said no).
    case unreadable(String)
    /// A problem a previous build recorded for a tile of a frame kept unchanged: its words
    /// as the manifest holds them.
    case recorded(String)

    /// Where a source has no tile.
    public enum Absence: Sendable, Hashable {
        /// HTTP 404 or 204.
        case http(status: Int)
        /// No such file.
        case file
        /// No such row in an MBTiles archive.
        case archiveRow
    }

    /// Which wait ran out.
    public enum TimeoutPhase: Sendable, Hashable {
        /// Making the connection.
        case connect
        /// The answer's head.
        case answer
        /// The whole body.
        case body
    }

    /// What came instead of an image.
    public struct NotAnImage: Sendable, Hashable {
        /// What the bytes look like.
        public enum Kind: Sendable, Hashable {
            /// No bytes at all.
            case empty
            /// A GIF (matsite stitches PNG, JPEG and WebP).
            case gif
            /// A web page.
            case html
            /// Another XML document (a capabilities document, an error).
            case xml
            /// Anything else.
            case other
        }

        /// What the bytes look like.
        public var kind: Kind
        /// The response's `Content-Type`, when there was one.
        public var contentType: String?
        /// The start of its text (a page's words, not its tags), when it is text.
        public var excerpt: String

        /// What came, as seen.
        public init(kind: Kind, contentType: String?, excerpt: String) {
            self.kind = kind
            self.contentType = contentType
            self.excerpt = excerpt
        }
    }
}

extension TileProblem: CustomStringConvertible {
    /// The problem in a few words, without the tile's address (shown beside it).
    public var description: String {
        switch self {
        case .notFound(.http(let status)): "HTTP \(status) (no tile here)"
        case .notFound(.file): "no such file"
        case .notFound(.archiveRow): "no row in the archive"
        case .refused(let status, let excerpt):
            (Self.accessStatuses.contains(status) ? "access refused (HTTP \(status))" : "HTTP \(status)")
                + (excerpt.isEmpty ? "" : ": \"\(excerpt)\"")
        case .sameAnswer(let status, let excerpt):
            "HTTP \(status)" + (excerpt.isEmpty ? "" : ": \"\(excerpt)\"")
                + " (the host repeats this answer: not retried)"
        case .hostFailing(let host, let port, let failures, let last):
            "not asked for: \(Self.address(host, port)) had failed \(failures) requests in a row (the last: \(last))"
        case .stalled(let host, let port, let seconds, .connect):
            "no connection to \(Self.address(host, port)) within \(Self.seconds(seconds)) s (http.stall_s): the host does not answer connection attempts"
        case .stalled(let host, let port, let seconds, .answer):
            "no answer from \(Self.address(host, port)) within \(Self.seconds(seconds)) s (http.stall_s): the server accepted the connection and sent nothing"
        case .stalled(let host, let port, let seconds, .body):
            "no answer from \(Self.address(host, port)) within \(Self.seconds(seconds)) s (http.stall_s): the server stopped sending in the middle of a body"
        case .wrongSize(let width, let height, let expected): "tile is \(width)x\(height) pixels, expected \(expected)x\(expected)"
        case .notAnImage(let found): found.description
        case .serviceException(let exceptions):
            "service exception: "
                + (exceptions.isEmpty ? "the server reported an exception without a message" : exceptions.map(\.description).joined(separator: "; "))
        case .undecodable(let words): words
        case .connectionRefused(let host, let port): "connection refused by \(Self.address(host, port))"
        case .unknownHost(let host): "the host name \(host) does not resolve"
        case .unreachable(let host, let port, let detail): "\(Self.address(host, port)) cannot be reached: \(detail)"
        case .tls(let host, let detail): "TLS with \(host) failed: \(detail)"
        case .timeout(.connect, let seconds): "connection timed out after \(Self.seconds(seconds)) s"
        case .timeout(.answer, let seconds): "timed out after \(Self.seconds(seconds)) s (no answer)"
        case .timeout(.body, let seconds): "timed out after \(Self.seconds(seconds)) s (the body arrived too slowly)"
        case .tooLarge(let limit, let declared?): "the response declares \(declared) bytes, over the \(limit)-byte limit (http.max_tile_bytes)"
        case .tooLarge(let limit, nil): "the body is larger than the \(limit)-byte limit (http.max_tile_bytes)"
        case .transfer(let words), .unreadable(let words), .recorded(let words): words
        }
    }

    /// What to do about it, or nil when the words already say it. `tolerated`: the
    /// animation draws such tiles transparent (`missing: transparent`), so a tile the
    /// source lacks is expected and needs no advice.
    public func hint(tolerated: Bool) -> String? {
        switch self {
        case .notFound:
            tolerated
                ? nil
                : "the source has no tile there: check bbox, zoom and times against what it serves, or set missing: transparent to draw absent tiles empty"
        case .refused(let status, _) where Self.accessStatuses.contains(status):
            "the server does not allow this client: check http.headers, an API key in the URL, or the service's terms"
        case .refused(429, _):
            "the server limits how fast it is asked: lower http.concurrency, or build less often"
        case .refused(let status, _) where status >= 500:
            "the server itself failed (retried up to http.retries times, http.retry_budget per host and build): what it said above may name the cause; try again later or ask its operator"
        case .refused:
            "the server rejects the request itself: compare the URL with one the service documents (the {time} written by time_format, the layer, the parameters)"
        case .sameAnswer:
            "the server gives these tiles this error every time, so it is taken as permanent: its words above name the cause (a missing file, a layer or time it lacks); check the URL, or ask its operator"
        case .hostFailing:
            "the host kept failing, so this build stopped asking it (http.max_failures_in_a_row): try again later, or ask its operator"
        case .stalled(let host, let port, _, _):
            "\(Self.address(host, port)) hangs (a stuck server or a proxy in between?): check that it answers; a later build asks it again"
        case .wrongSize(let width, let height, let expected):
            width == height && width != expected
                ? "the source's tiles are \(width) pixels: set tile_size: \(width) in the animation's source (missing: transparent would only hide every tile)"
                : nil
        case .notAnImage(let found):
            found.hint
        case .serviceException, .recorded:
            nil
        case .undecodable:
            tolerated ? nil : "the tile is damaged: set missing: transparent to draw such tiles empty and publish the rest"
        case .connectionRefused(let host, let port):
            "nothing listens on \(Self.address(host, port)): is the server up, the port right?"
        case .unknownHost(let host):
            "check the host name \(host) in the source's URL, and that this machine can resolve names (DNS)"
        case .unreachable:
            "this machine has no route there: check its network (an offline sandbox?) and any firewall or proxy"
        case .tls:
            "check the URL's scheme (https on a plain-HTTP port?) and the server's certificate (name, dates)"
        case .timeout:
            "the server is slow or overloaded: raise http.timeout_s, or lower http.concurrency"
        case .tooLarge:
            "raise http.max_tile_bytes if tiles this large are expected, or check the URL points at tiles"
        case .transfer:
            "the connection broke off: a later build may succeed; if it persists, check the server or a proxy between"
        case .unreadable:
            "check the file's permissions, and that it is not being written while matsite reads it"
        }
    }

    /// True for answers that say a whole host cannot be reached, which waiting will not
    /// change within a build: the fetcher stops asking that host once one comes.
    var meansHostIsDown: Bool {
        switch self {
        case .connectionRefused, .unknownHost, .unreachable, .tls: true
        default: false
        }
    }

    /// True for a server or a network that failed (not an answer about the tile itself): a
    /// cached copy of the tile may stand in for it (RFC 5861's stale-if-error).
    var isServerFailure: Bool {
        switch self {
        case .refused(let status, _): status >= 500 || [408, 429].contains(status)
        case .sameAnswer, .hostFailing, .stalled, .timeout, .transfer: true
        case .connectionRefused, .unknownHost, .unreachable, .tls: true
        default: false
        }
    }

    /// True when the source simply has no tile there.
    var isNotFound: Bool {
        if case .notFound = self { return true }
        return false
    }

    /// True when the answer may mean "not published yet" for the newest time of a live
    /// window: no tile there (404/204, no file), or an OGC exception saying the service has
    /// nothing for that time (`ServiceException.saysNoDataForTime`).
    var mayBeUnpublished: Bool {
        switch self {
        case .notFound: true
        case .serviceException(let exceptions): !exceptions.isEmpty && exceptions.allSatisfy(\.saysNoDataForTime)
        default: false
        }
    }

    /// The problem without the details that differ from tile to tile (a body's excerpt,
    /// which often names the tile): tiles with equal keys are one cause.
    var groupKey: TileProblem {
        switch self {
        case .refused(let status, _):
            return .refused(status: status, excerpt: "")
        case .sameAnswer(let status, _):
            return .sameAnswer(status: status, excerpt: "")
        case .hostFailing(let host, let port, let failures, let last):
            return .hostFailing(host: host, port: port, failures: failures, last: last.groupKey)
        case .notAnImage(var found):
            found.excerpt = ""
            return .notAnImage(found)
        case .serviceException(let exceptions):
            // A coded exception's words often name the tile (MapProxy's "No tile at row 5"):
            // the code and locator are the cause. Words without a code are all there is.
            return .serviceException(exceptions.map { ServiceException(code: $0.code, locator: $0.locator, text: $0.code == nil ? $0.text : "") })
        default:
            return self
        }
    }

    /// 401 and 403: the server does not allow this client.
    static let accessStatuses: Set<Int> = [401, 403]

    static func address(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// The start of a body as one line of text (tags and runs of space collapsed), at most
    /// 160 characters; empty when the body is not text.
    static func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(2048), as: UTF8.self)
        guard !text.prefix(64).contains("\u{FFFD}") else { return "" }
        var plain = ""
        var inTag = false
        for c in text {
            if c == "<" {
                inTag = true
            } else if c == ">" {
                inTag = false
                plain.append(" ")
            } else if !inTag {
                plain.append(c.isNewline || c == "\t" ? " " : c)
            }
        }
        let words = plain.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return words.count > 160 ? String(words.prefix(159)) + "…" : words
    }
}

extension TileProblem.NotAnImage: CustomStringConvertible {
    /// What the bytes look like, as a checker of tiles sees them.
    init(_ bytes: [UInt8], contentType: String?) {
        let text = String(decoding: bytes.prefix(512), as: UTF8.self)
        let lowered = text.lowercased()
        let firstLine = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty } ?? ""
        let kind: Kind =
            if bytes.isEmpty { .empty } else if bytes.starts(with: Array("GIF8".utf8)) {
                .gif
            } else if lowered.contains("<html")
                || lowered.contains("<!doctype html")
            {
                .html
            } else if text.hasPrefix("<") { .xml } else { .other }
        // A page's words are in its text, not its first line (<!DOCTYPE html>).
        let excerpt = kind == .html || kind == .xml ? TileProblem.excerpt(bytes) : kind == .gif ? "" : String(firstLine.prefix(160))
        self.init(kind: kind, contentType: contentType, excerpt: excerpt)
    }

    public var description: String {
        let type = contentType.map { " (\($0))" } ?? ""
        switch kind {
        case .empty: return "empty body (0 bytes)"
        case .gif: return "a GIF, not a PNG, JPEG or WebP (matsite stitches those tiles)"
        case .html: return "an HTML page\(type) instead of an image: \"\(excerpt)\""
        case .xml: return "an XML document\(type) instead of an image: \"\(excerpt)\""
        case .other: return "not an image\(type): \"\(excerpt)\""
        }
    }

    var hint: String? {
        switch kind {
        case .empty: "the server sent nothing: check the URL in a browser; some servers answer an empty 200 for a tile with no data"
        case .gif: "ask the server for PNG, JPEG or WebP tiles (the URL's extension or format parameter)"
        case .html: "the server sent a web page (an error, a login or a consent page?): open the URL in a browser"
        case .xml, .other: "open the URL in a browser: the server answers something other than tiles there"
        }
    }
}
