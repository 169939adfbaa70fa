import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// Each cause of a tile problem: its words and its hint (written once, in `TileProblem`),
/// and the network causes as the real loader meets them on 127.0.0.1 and a `.invalid` name.
@Suite("Tile problems: causes, words, hints")
struct TileProblemTests {
    /// A cause, its words, and words its hint must hold (nil: no hint), when a build fails
    /// on it and when `missing: transparent` draws it.
    struct Case: Sendable, CustomStringConvertible {
        let problem: TileProblem
        let words: String
        let hint: String?
        let toleratedHint: String?
        var description: String { words }
    }

    static let cases: [Case] = [
        Case(
            problem: .notFound(.http(status: 404)), words: "HTTP 404 (no tile here)",
            hint: "the source has no tile there: check bbox, zoom and times", toleratedHint: nil),
        Case(problem: .notFound(.file), words: "no such file", hint: "or set missing: transparent", toleratedHint: nil),
        Case(problem: .notFound(.archiveRow), words: "no row in the archive", hint: "check bbox, zoom and times", toleratedHint: nil),
        Case(
            problem: .refused(status: 400, excerpt: "invalid time"), words: "HTTP 400: \"invalid time\"",
            hint: "the server rejects the request itself", toleratedHint: "the server rejects the request itself"),
        Case(
            problem: .refused(status: 403, excerpt: ""), words: "access refused (HTTP 403)",
            hint: "the server does not allow this client: check http.headers", toleratedHint: "http.headers"),
        Case(problem: .refused(status: 429, excerpt: ""), words: "HTTP 429", hint: "lower http.concurrency", toleratedHint: "lower http.concurrency"),
        Case(
            problem: .refused(status: 500, excerpt: "No such file or directory"), words: "HTTP 500: \"No such file or directory\"",
            hint: "the server itself failed", toleratedHint: "the server itself failed"),
        Case(
            problem: .wrongSize(width: 512, height: 512, expected: 256), words: "tile is 512x512 pixels, expected 256x256",
            hint: "set tile_size: 512", toleratedHint: "set tile_size: 512"),
        Case(
            problem: .notAnImage(TileProblem.NotAnImage(kind: .html, contentType: "text/html", excerpt: "Quota exceeded")),
            words: "an HTML page (text/html) instead of an image: \"Quota exceeded\"", hint: "open the URL in a browser",
            toleratedHint: "open the URL in a browser"),
        Case(
            problem: .notAnImage(TileProblem.NotAnImage(kind: .gif, contentType: nil, excerpt: "")),
            words: "a GIF, not a PNG, JPEG or WebP (matsite stitches those tiles)", hint: "PNG, JPEG or WebP tiles",
            toleratedHint: "PNG, JPEG or WebP tiles"),
        Case(
            problem: .notAnImage(TileProblem.NotAnImage(kind: .empty, contentType: nil, excerpt: "")), words: "empty body (0 bytes)",
            hint: "the server sent nothing", toleratedHint: "the server sent nothing"),
        Case(
            problem: .serviceException([ServiceException(code: "LayerNotDefined", locator: nil, text: "radar")]),
            words: "service exception: LayerNotDefined: radar", hint: nil,
            toleratedHint: nil),
        Case(problem: .undecodable("IDAT: CRC error"), words: "IDAT: CRC error", hint: "set missing: transparent", toleratedHint: nil),
        Case(
            problem: .connectionRefused(host: "127.0.0.1", port: 9), words: "connection refused by 127.0.0.1:9",
            hint: "nothing listens on 127.0.0.1:9: is the server up, the port right?",
            toleratedHint: "nothing listens on 127.0.0.1:9"),
        Case(
            problem: .unknownHost("radar.example.invalid"), words: "the host name radar.example.invalid does not resolve",
            hint: "check the host name radar.example.invalid", toleratedHint: "check the host name"),
        Case(
            problem: .unreachable(host: "10.1.2.3", port: 80, detail: "Network is unreachable"),
            words: "10.1.2.3:80 cannot be reached: Network is unreachable", hint: "no route there", toleratedHint: "no route there"),
        Case(
            problem: .tls(host: "example.org", detail: "handshake failed"), words: "TLS with example.org failed: handshake failed",
            hint: "https on a plain-HTTP port?", toleratedHint: "certificate"),
        Case(
            problem: .timeout(.answer, seconds: 30), words: "timed out after 30 s (no answer)", hint: "raise http.timeout_s",
            toleratedHint: "raise http.timeout_s"),
        Case(
            problem: .timeout(.connect, seconds: 2.5), words: "connection timed out after 2.5 s", hint: "raise http.timeout_s",
            toleratedHint: "raise http.timeout_s"),
        Case(
            problem: .tooLarge(limit: 1024, declared: 4096),
            words: "the response declares 4096 bytes, over the 1024-byte limit (http.max_tile_bytes)", hint: "raise http.max_tile_bytes",
            toleratedHint: "raise http.max_tile_bytes"),
        Case(
            problem: .transfer("the server reset the connection"), words: "the server reset the connection",
            hint: "a later build may succeed", toleratedHint: "a later build may succeed"),
        Case(problem: .unreadable("cannot read the file"), words: "cannot read the file", hint: "permissions", toleratedHint: "permissions"),
        Case(
            problem: .sameAnswer(status: 500, excerpt: "No such file or directory"),
            words: "HTTP 500: \"No such file or directory\" (the host repeats this answer: not retried)",
            hint: "taken as permanent", toleratedHint: "taken as permanent"),
        Case(
            problem: .hostFailing(host: "tiles.example.org", port: 443, failures: 8, last: .refused(status: 502, excerpt: "Bad Gateway")),
            words: "not asked for: tiles.example.org:443 had failed 8 requests in a row (the last: HTTP 502: \"Bad Gateway\")",
            hint: "http.max_failures_in_a_row", toleratedHint: "http.max_failures_in_a_row"),
        Case(
            problem: .stalled(host: "127.0.0.1", port: 8080, seconds: 20, waitingFor: .answer),
            words: "no answer from 127.0.0.1:8080 within 20 s (http.stall_s): the server accepted the connection and sent nothing",
            hint: "127.0.0.1:8080 hangs", toleratedHint: "127.0.0.1:8080 hangs"),
        Case(
            problem: .stalled(host: "::1", port: 80, seconds: 2.5, waitingFor: .connect),
            words: "no connection to [::1]:80 within 2.5 s (http.stall_s): the host does not answer connection attempts",
            hint: "[::1]:80 hangs", toleratedHint: "[::1]:80 hangs"),
    ]

    @Test("each cause has its words and its hint; missing: transparent is never advised where it would not help", arguments: cases)
    func wordsAndHint(_ item: Case) {
        #expect(item.problem.description == item.words)
        let hint = item.problem.hint(tolerated: false)
        if let expected = item.hint {
            #expect(hint?.contains(expected) == true, "\(hint ?? "no hint")")
        } else {
            #expect(hint == nil)
        }
        let tolerated = item.problem.hint(tolerated: true)
        if let expected = item.toleratedHint {
            #expect(tolerated?.contains(expected) == true, "\(tolerated ?? "no hint")")
        } else {
            #expect(tolerated == nil)
        }
        // Hiding tiles is advice only for tiles a source lacks or cannot decode.
        switch item.problem {
        case .notFound, .undecodable: break
        default: #expect(hint?.contains("set missing: transparent") != true, "\(hint ?? "")")
        }
    }

    @Test("a body excerpt is one line of text: tags and line breaks gone, 160 characters at most, nothing for binary")
    func excerpt() {
        #expect(TileProblem.excerpt(Array("<html><body><h1>Bad\nrequest</h1></body></html>".utf8)) == "Bad request")
        #expect(TileProblem.excerpt(Array(String(repeating: "x", count: 400).utf8)).count == 160)
        #expect(TileProblem.excerpt([0x89, 0x50, 0x4E, 0x47, 0xFF, 0xFE, 0x00, 0x81]).isEmpty)
    }

    /// A loader whose fetcher uses the default http settings but for fast retries.
    static func loader() -> (TileSourceLoader, HTTPFetcher) {
        var options = SiteConfig().http
        options.retryDelayMilliseconds = 10
        options.timeoutSeconds = Double(TestSite.patientTimeout)
        options.stallSeconds = options.timeoutSeconds
        let fetcher = HTTPFetcher(options: options)
        return (TileSourceLoader(fetcher: fetcher), fetcher)
    }

    static func problem(_ outcome: TileOutcome) -> TileProblem? {
        if case .problem(let problem) = outcome { return problem }
        return nil
    }

    @Test("a closed port on 127.0.0.1 is a refused connection naming host and port; the host is then not asked again")
    func refusedConnection() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        defer { withExtendedLifetime(closed) {} }
        let (loader, fetcher) = Self.loader()
        let first = Self.problem(await loader.load(.http("http://127.0.0.1:\(port)/t/1/0/0.png")))
        #expect(first == .connectionRefused(host: "127.0.0.1", port: port))
        // Tried again once (default retries: 4), then the host is known to be down.
        do {
            _ = try await fetcher.get("http://127.0.0.1:\(port)/t/1/1/0.png", accept: "image/png")
            Issue.record("a down host answered")
        } catch {
            #expect(error.problem == .connectionRefused(host: "127.0.0.1", port: port))
            #expect(error.attempts == 0, "no request is made to a host found down in this build")
        }
        await fetcher.shutdown()
    }

    @Test("a .invalid host name is a DNS failure naming the host, and is not asked again")
    func unknownHost() async throws {
        let (loader, fetcher) = Self.loader()
        let first = Self.problem(await loader.load(.http("http://radar.example.invalid/t/1/0/0.png")))
        #expect(first == .unknownHost("radar.example.invalid"))
        do {
            _ = try await fetcher.get("http://radar.example.invalid/t/1/1/0.png", accept: "image/png")
            Issue.record("an unknown host answered")
        } catch {
            #expect(error.problem == .unknownHost("radar.example.invalid") && error.attempts == 0)
        }
        await fetcher.shutdown()
    }

    @Test("https to a plain-HTTP port is a TLS failure naming the host, with a hint about the scheme")
    func tlsFailure() async throws {
        try await withTestServer { server in
            server.route(prefix: "/t/", .status(404))
            let (loader, fetcher) = Self.loader()
            let url = server.url("/t/1/0/0.png").replacingOccurrences(of: "http://", with: "https://")
            let problem = Self.problem(await loader.load(.http(url)))
            await fetcher.shutdown()
            guard case .tls(let host, let detail)? = problem else {
                Issue.record("expected a TLS failure, got \(String(describing: problem))")
                return
            }
            #expect(host == "127.0.0.1" && !detail.isEmpty)
            #expect(problem?.hint(tolerated: false)?.contains("https on a plain-HTTP port?") == true)
        }
    }

    @Test("a server that never answers is a timeout after http.timeout_s, retried as transient (not once, as a dead host)")
    func timeout() async throws {
        try await withTestServer { server in
            server.route("/t.png", .noResponse)
            var options = SiteConfig().http
            options.timeoutSeconds = 2
            options.retries = 2
            options.retryDelayMilliseconds = 10
            // The host's stall (a loaded machine may stretch three timeouts past it) is
            // another cause, tested in HostHealthTests.
            options.stallSeconds = 600
            let fetcher = HTTPFetcher(options: options)
            let url = server.url("/t.png")
            let outcome: FetchError?
            do throws(FetchError) {
                _ = try await fetcher.get(url, accept: "image/png")
                outcome = nil
            } catch {
                outcome = error
            }
            await fetcher.shutdown()
            let error = try #require(outcome, "a server that never answers answered")
            // On a loaded machine the wait may run out while connecting rather than while
            // waiting for the head: either is this cause, in its words.
            guard case .timeout(_, let seconds) = error.problem else {
                Issue.record("expected a timeout, got \(error.problem)")
                return
            }
            #expect(seconds == 2 && error.reason.contains("timed out after 2 s"))
            #expect(error.attempts == 3, "a timeout may pass: tried again up to http.retries times")
        }
    }
}
