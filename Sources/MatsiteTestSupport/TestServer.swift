// TestServer: a scriptable, fault-injecting tile server on 127.0.0.1 for tests.
//
// Routes map a request path (exact, or a prefix; the query is ignored) to a `Behaviour`.
// Every request is recorded (method, path, query, headers, body, arrival time), so tests
// can assert on counts, User-Agent, If-None-Match, Retry-After waits; the peak number of
// requests in flight shows a client's concurrency limit. Paths without a route get 404.
//
//     let server = try await TestServer.start()
//     server.route("/t/7/30/46.png", .sequence([.status(503), .status(503), .ok(png, contentType: "image/png")]))
//     server.route(prefix: "/t/", .ok(png, contentType: "image/png", etag: "\"v1\"", cacheControl: "max-age=60"))
//     server.route(prefix: "/gen/", .dynamic { request in .ok(makeTile(for: request.path), contentType: "image/png") })
//     let template = server.url("/t/{z}/{x}/{y}.png")  // "http://127.0.0.1:PORT/t/{z}/{x}/{y}.png"
//     ... run the code under test ...
//     #expect(server.requestCount("/t/7/30/46.png") == 3)
//     #expect(server.requests("/t/7/30/46.png").last?.header("If-None-Match") == nil)
//     await server.stop()                              // on every path out of the test
//
// Behaviours:
//   .ok(bytes, contentType:, etag:, lastModified:, cacheControl:, headers:)
//                              200; 304 when If-None-Match / If-Modified-Since match
//   .text(string)              200 text/plain
//   .status(code, body:, headers:)   500, 502, 503, 404, 204, 401, 403, ...
//   .tooManyRequests(retryAfter:)    429 with Retry-After
//   .noResponse                reads the request, never answers (client timeout)
//   .delayed(duration, then)   waits, then `then`
//   .trickle(bytes, chunkSize:, interval:)   correct body, slower than a timeout
//   .resetMidBody(bytes, after:)     RST after some of the body
//   .shortBody(bytes, sent:)         FIN before Content-Length is reached
//   .closeWithoutAnswer / .resetWithoutAnswer   FIN / RST before any byte
//   .htmlErrorPage(html)       an HTML error page with status 200
//   .hugeContentLength(length, prefix:)   announces e.g. 1 TiB, sends a little, hangs
//   .redirect(to:, status:) / .redirectLoop    the loop adds ?hop=N so every URL is new
//   .pngWithBadCRC(png) / .pngWithTruncatedIDAT(png)   a good transfer of a broken image
//   .sequence([...])           the Nth request to a path gets the Nth; the last repeats
//   .failFirst(n, with:, then:)      the first n requests to a path get `with`
//   .dynamic { request in ... } / .custom { request, writer in ... }
//
// Exact routes win over prefix routes; among prefixes the longest wins. Re-routing a path
// restarts its script (the attempt count used by `.sequence`) but not its request count.

import Foundation
import MatsiteServe
import MatsiteSupport
import NIOCore
import NIOHTTP1

package final class TestServer: Sendable {
    /// One request as the server saw it.
    package struct RecordedRequest: Sendable {
        package let method: String
        /// The path, still percent-encoded, without the query.
        package let path: String
        /// The query without `?`, or nil.
        package let query: String?
        package let headers: HTTPHeaders
        /// The request body (empty for GET).
        package let body: [UInt8]
        /// 1 for the first request this route answered at this path, 2 for the next...
        package let attempt: Int
        /// When the request arrived (e.g. to check that a client waited for `Retry-After`).
        package let receivedAt: ContinuousClock.Instant

        /// The first value of a header (case-insensitive).
        package func header(_ name: String) -> String? {
            headers.first(name: name)
        }
    }

    package typealias Writer = LoopbackHTTPServer.ResponseWriter

    /// What the server does with one request.
    package struct Behaviour: Sendable {
        package let run: @Sendable (RecordedRequest, Writer) async throws -> Void

        package init(_ run: @escaping @Sendable (RecordedRequest, Writer) async throws -> Void) {
            self.run = run
        }
    }

    private let server: LoopbackHTTPServer
    private let state: ServerState

    private init(server: LoopbackHTTPServer, state: ServerState) {
        self.server = server
        self.state = state
    }

    /// Starts a server on a free port of 127.0.0.1.
    package static func start() async throws -> TestServer {
        let state = ServerState()
        let server = LoopbackHTTPServer { request, writer in
            try await state.answer(request, writer)
        }
        try await server.start()
        return TestServer(server: server, state: state)
    }

    /// Stops the server, cutting any request still hanging or trickling. Routes are
    /// dropped too, so a behaviour that captured the server doesn't keep it alive (a
    /// retain cycle the leak checker of a sanitizer run would report).
    package func stop() async {
        try? await server.stop()
        state.locked.withLock { $0.routes.removeAll() }
    }

    /// The bound port.
    package var port: Int { server.port }

    /// `http://127.0.0.1:PORT`.
    package var baseURL: String { server.baseURL }

    /// `baseURL + path`; placeholders such as `{z}` are left as they are.
    package func url(_ path: String) -> String {
        baseURL + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// Answers requests for exactly `path` (query ignored) with `behaviour`.
    package func route(_ path: String, _ behaviour: Behaviour) {
        state.setRoute(.exact(path), behaviour)
    }

    /// Answers requests for every path starting with `prefix` that has no exact route.
    package func route(prefix: String, _ behaviour: Behaviour) {
        state.setRoute(.prefix(prefix), behaviour)
    }

    /// Requests received for `path` (query ignored), answered or not.
    package func requestCount(_ path: String) -> Int {
        state.locked.withLock { $0.log.filter { $0.path == path }.count }
    }

    /// Requests received for paths starting with `prefix`.
    package func requestCount(prefix: String) -> Int {
        state.locked.withLock { $0.log.filter { $0.path.hasPrefix(prefix) }.count }
    }

    /// All requests received, in order of arrival.
    package var totalRequestCount: Int {
        state.locked.withLock { $0.log.count }
    }

    /// The requests received for `path`, oldest first.
    package func requests(_ path: String) -> [RecordedRequest] {
        state.locked.withLock { $0.log.filter { $0.path == path } }
    }

    /// Every request received, oldest first.
    package var allRequests: [RecordedRequest] {
        state.locked.withLock { $0.log }
    }

    /// Connections open right now (kept-alive ones included): back to 0 once clients are
    /// gone, or a fault leaked one.
    package var openConnectionCount: Int { server.openConnectionCount }

    /// Requests being answered right now.
    package var requestsInFlight: Int {
        state.locked.withLock { $0.inFlight }
    }

    /// The most requests answered at once since start (or `resetCounts()`): a client's
    /// concurrency limit shows here, given behaviours slow enough to overlap.
    package var peakRequestsInFlight: Int {
        state.locked.withLock { $0.peakInFlight }
    }

    /// Forgets recorded requests and restarts every route's script.
    package func resetCounts() {
        state.locked.withLock { state in
            state.log.removeAll()
            state.attempts.removeAll()
            state.peakInFlight = state.inFlight
        }
    }
}

// MARK: - Behaviours

extension TestServer.Behaviour {
    /// 200 with `body`. With `etag` or `lastModified`, a matching `If-None-Match` or an
    /// `If-Modified-Since` at or after `lastModified` gets 304 with the same validators.
    package static func ok(
        _ body: [UInt8],
        contentType: String = "application/octet-stream",
        etag: String? = nil,
        lastModified: String? = nil,
        cacheControl: String? = nil,
        headers: [(String, String)] = []
    ) -> Self {
        Self { request, writer in
            var common = HTTPHeaders()
            if let etag { common.add(name: "ETag", value: etag) }
            if let lastModified { common.add(name: "Last-Modified", value: lastModified) }
            if let cacheControl { common.add(name: "Cache-Control", value: cacheControl) }
            common.add(contentsOf: headers)
            if Self.isNotModified(request, etag: etag, lastModified: lastModified) {
                return try await writer.respond(status: 304, headers: common)
            }
            common.add(name: "Content-Type", value: contentType)
            try await writer.respond(status: 200, headers: common, body: body)
        }
    }

    /// 200 with a UTF-8 text body.
    package static func text(_ text: String, contentType: String = "text/plain; charset=utf-8", headers: [(String, String)] = []) -> Self {
        .ok(Array(text.utf8), contentType: contentType, headers: headers)
    }

    /// Any status (500, 502, 503, 404, 204, 401, 403...) with a short text body (none for
    /// 204 and 304).
    package static func status(_ code: Int, body: String? = nil, headers: [(String, String)] = []) -> Self {
        Self { _, writer in
            var all = HTTPHeaders(headers)
            let noBody = code == 204 || code == 304 || (100..<200).contains(code)
            if noBody {
                return try await writer.respond(status: code, headers: all)
            }
            if !all.contains(name: "content-type") {
                all.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            }
            try await writer.respond(status: code, headers: all, body: Array((body ?? "status \(code)\n").utf8))
        }
    }

    /// 429 with `Retry-After` (seconds, or an HTTP date).
    package static func tooManyRequests(retryAfter: String = "1") -> Self {
        .status(429, body: "slow down\n", headers: [("Retry-After", retryAfter)])
    }

    /// Reads the request and never answers; the connection stays open until the client
    /// gives up or the server stops.
    package static var noResponse: Self {
        Self { _, writer in await writer.neverAnswer() }
    }

    /// Waits, then behaves as `then`.
    package static func delayed(_ delay: Duration, _ then: Self) -> Self {
        Self { request, writer in
            try await writer.delay(delay)
            try await then.run(request, writer)
        }
    }

    /// 200 with a correct `Content-Length`, sending `chunkSize` bytes every `interval`:
    /// slower than a client's timeout when `body.count / chunkSize * interval` exceeds it.
    package static func trickle(
        _ body: [UInt8],
        contentType: String = "application/octet-stream",
        chunkSize: Int = 1,
        interval: Duration = .milliseconds(250)
    ) -> Self {
        Self { _, writer in
            try await writer.writeHead(
                status: 200,
                headers: [
                    "Content-Type": contentType, "Content-Length": String(body.count),
                ])
            var offset = 0
            while offset < body.count {
                try await writer.delay(interval)
                let end = min(offset + max(1, chunkSize), body.count)
                try await writer.writeBody(body[offset..<end])
                offset = end
            }
            try await writer.end()
        }
    }

    /// 200 announcing the full length, sends the first `after` bytes (default: half), then
    /// resets the connection (RST): the client sees a connection error mid-body.
    package static func resetMidBody(_ body: [UInt8], contentType: String = "application/octet-stream", after: Int? = nil) -> Self {
        Self { _, writer in
            try await writer.writeHead(
                status: 200,
                headers: [
                    "Content-Type": contentType, "Content-Length": String(body.count),
                ])
            try await writer.writeBody(body.prefix(after ?? body.count / 2))
            // Let the bytes leave before the reset discards the socket's send buffer.
            try await writer.delay(.milliseconds(50))
            await writer.resetConnection()
        }
    }

    /// 200 announcing `Content-Length: body.count` but sending only `sent` bytes (default:
    /// half), then closing cleanly (FIN): the client reads a truncated body.
    package static func shortBody(_ body: [UInt8], contentType: String = "application/octet-stream", sent: Int? = nil) -> Self {
        Self { _, writer in
            try await writer.writeHead(
                status: 200,
                headers: [
                    "Content-Type": contentType, "Content-Length": String(body.count),
                ])
            try await writer.writeBody(body.prefix(sent ?? body.count / 2))
            await writer.closeConnection()
        }
    }

    /// An HTML error page served with status 200, as some tile servers and captive portals do.
    package static func htmlErrorPage(
        _ html: String = "<!doctype html><html><body><h1>Service unavailable</h1><p>Try again later.</p></body></html>\n"
    ) -> Self {
        .ok(Array(html.utf8), contentType: "text/html; charset=utf-8")
    }

    /// 200 claiming a huge `Content-Length` (default 1 TiB), sending `prefix`, then waiting
    /// until the client gives up: a client must refuse it from the header.
    package static func hugeContentLength(_ length: Int64 = 1 << 40, contentType: String = "image/png", prefix: [UInt8] = []) -> Self {
        Self { _, writer in
            try await writer.writeHead(
                status: 200,
                headers: [
                    "Content-Type": contentType, "Content-Length": String(length),
                ])
            try await writer.writeBody(prefix)
            await writer.neverAnswer()
        }
    }

    /// Closes the connection as soon as the request arrived, without a byte of response.
    package static var closeWithoutAnswer: Self {
        Self { _, writer in await writer.closeConnection() }
    }

    /// Resets the connection as soon as the request arrived (RST, no response).
    package static var resetWithoutAnswer: Self {
        Self { _, writer in await writer.resetConnection() }
    }

    /// A PNG whose first chunk (IHDR) has a wrong CRC; everything else as `png`.
    package static func pngWithBadCRC(_ png: [UInt8]) -> Self {
        .ok(TestServer.corruptingFirstCRC(of: png), contentType: "image/png")
    }

    /// A PNG cut off in the middle of its first IDAT chunk (no IEND), served with a
    /// matching Content-Length: the transfer is fine, the image is not.
    package static func pngWithTruncatedIDAT(_ png: [UInt8]) -> Self {
        .ok(TestServer.truncatingFirstIDAT(of: png), contentType: "image/png")
    }

    /// A redirect to `location` (a path on this server or a full URL).
    package static func redirect(to location: String, status: Int = 302) -> Self {
        .status(status, body: "see \(location)\n", headers: [("Location", location)])
    }

    /// A redirect to the same path with `?hop=N+1`: every hop is a new URL, so only a
    /// client's redirect limit ends it.
    package static var redirectLoop: Self {
        Self { request, writer in
            let hop = request.query.flatMap { $0.hasPrefix("hop=") ? Int($0.dropFirst(4)) : nil } ?? 0
            try await redirect(to: "\(request.path)?hop=\(hop + 1)").run(request, writer)
        }
    }

    /// The Nth request (per path) gets the Nth behaviour; the last one repeats.
    package static func sequence(_ behaviours: [Self]) -> Self {
        Self { request, writer in
            guard let last = behaviours.last else {
                return try await status(500, body: "empty sequence\n").run(request, writer)
            }
            let index = request.attempt - 1
            try await (index < behaviours.count ? behaviours[index] : last).run(request, writer)
        }
    }

    /// The first `count` requests (per path) get `failure`, later ones `then`.
    package static func failFirst(_ count: Int, with failure: Self, then: Self) -> Self {
        Self { request, writer in
            try await (request.attempt <= count ? failure : then).run(request, writer)
        }
    }

    /// Picks the behaviour from the request, e.g. a tile made from its z/x/y path.
    package static func dynamic(_ choose: @escaping @Sendable (TestServer.RecordedRequest) -> Self) -> Self {
        Self { request, writer in
            try await choose(request).run(request, writer)
        }
    }

    /// Full control over the response.
    package static func custom(_ run: @escaping @Sendable (TestServer.RecordedRequest, TestServer.Writer) async throws -> Void) -> Self {
        Self(run)
    }

    private static func isNotModified(_ request: TestServer.RecordedRequest, etag: String?, lastModified: String?) -> Bool {
        if let etag, let ifNoneMatch = request.header("If-None-Match") {
            return StaticSiteServer.ifNoneMatch(ifNoneMatch, matches: etag)
        }
        if let lastModified,
            let modified = StaticSiteServer.parseHTTPDate(lastModified),
            let since = request.header("If-Modified-Since").flatMap(StaticSiteServer.parseHTTPDate)
        {
            return modified <= since
        }
        return false
    }
}

// MARK: - Broken images

extension TestServer {
    /// `png` with one bit of its IHDR chunk's CRC flipped (unchanged if it is not a PNG).
    package static func corruptingFirstCRC(of png: [UInt8]) -> [UInt8] {
        // Signature (8), then IHDR: length (4), type (4), data (13), CRC (4).
        guard png.count >= 33 else { return png }
        var bytes = png
        bytes[32] ^= 0x01
        return bytes
    }

    /// `png` up to the middle of its first IDAT chunk's data (unchanged without one).
    package static func truncatingFirstIDAT(of png: [UInt8]) -> [UInt8] {
        var offset = 8
        while offset + 8 <= png.count {
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if type == "IDAT" {
                return Array(png.prefix(offset + 8 + length / 2))
            }
            offset += 12 + length
        }
        return png
    }
}

// MARK: - Internals

private final class ServerState: Sendable {
    enum Key: Hashable, Sendable {
        case exact(String)
        case prefix(String)
    }

    struct Routes: Sendable {
        package var routes: [Key: TestServer.Behaviour] = [:]
        package var log: [TestServer.RecordedRequest] = []
        /// Per route and concrete path: how many requests that route has answered there.
        package var attempts: [String: Int] = [:]
        package var inFlight = 0
        package var peakInFlight = 0
    }

    let locked = LockedBox(Routes())

    func setRoute(_ key: Key, _ behaviour: TestServer.Behaviour) {
        locked.withLock { state in
            state.routes[key] = behaviour
            let routeName = Self.name(key)
            state.attempts = state.attempts.filter { !$0.key.hasPrefix(routeName + "\u{0}") }
        }
    }

    func answer(_ request: LoopbackHTTPServer.Request, _ writer: TestServer.Writer) async throws {
        let (recorded, behaviour) = locked.withLock { state -> (TestServer.RecordedRequest, TestServer.Behaviour?) in
            let key = Self.match(request.path, in: state.routes)
            var attempt = 0
            if let key {
                let counter = Self.name(key) + "\u{0}" + request.path
                attempt = state.attempts[counter, default: 0] + 1
                state.attempts[counter] = attempt
            }
            let recorded = TestServer.RecordedRequest(
                method: request.method, path: request.path, query: request.query,
                headers: request.headers, body: request.body, attempt: attempt, receivedAt: .now
            )
            state.log.append(recorded)
            state.inFlight += 1
            state.peakInFlight = max(state.peakInFlight, state.inFlight)
            return (recorded, key.flatMap { state.routes[$0] })
        }
        defer { locked.withLock { $0.inFlight -= 1 } }
        guard let behaviour else {
            return try await TestServer.Behaviour.status(404, body: "no route for \(request.path)\n").run(recorded, writer)
        }
        try await behaviour.run(recorded, writer)
    }

    static func match(_ path: String, in routes: [Key: TestServer.Behaviour]) -> Key? {
        if routes[.exact(path)] != nil {
            return .exact(path)
        }
        let prefixes = routes.keys.compactMap { key -> String? in
            if case let .prefix(prefix) = key, path.hasPrefix(prefix) { return prefix }
            return nil
        }
        return prefixes.max(by: { $0.count < $1.count }).map(Key.prefix)
    }

    static func name(_ key: Key) -> String {
        switch key {
        case let .exact(path): "=" + path
        case let .prefix(prefix): "^" + prefix
        }
    }
}
