import Foundation
import MatsiteSupport
import NIOCore
import NIOHTTP1

/// The preview server behind `matsite serve`: serves a built site folder on 127.0.0.1.
///
/// What a browser gets: the right `Content-Type` per extension; `Cache-Control: public,
/// max-age=31536000, immutable` for content-hashed files and `no-cache` for pages,
/// manifests and everything else; `ETag`/`Last-Modified` with 304s; single byte ranges
/// (206/416); HEAD; `index.html` for folders (`/radar` redirects to `/radar/`); 404 for
/// missing files; 405 for methods other than GET and HEAD. Nothing outside the folder is
/// ever served: `..` and encoded traversal are refused with 400 and symlinks that resolve
/// outside the folder are answered 404. Requests naming a `Host` other than 127.0.0.1,
/// localhost or [::1] get 403, so a web page cannot read the preview by DNS rebinding.
///
/// With `liveReload`, HTML pages get a small script that listens on ``eventsPath``
/// (Server-Sent Events) and reloads the page when ``notifyReload()`` is called.
///
/// ```swift
/// let server = StaticSiteServer(root: URL(fileURLWithPath: "site"), port: 8080, liveReload: true)
/// try await server.start()
/// print("Serving on \(server.baseURL)/")
/// // after each rebuild:
/// server.notifyReload()
/// try await server.stop()
/// // or, serving until the task is cancelled:
/// try await server.run { url in print("Serving on \(url)/") }
/// ```
public final class StaticSiteServer: Sendable {
    /// Where open pages listen for reload events.
    public static let eventsPath = "/__matsite/events"
    /// The live-reload script injected into pages.
    public static let liveReloadScriptPath = "/__matsite/live-reload.js"

    /// The folder being served.
    public let root: URL
    /// Headers added to every response (e.g. a `Content-Security-Policy` to try pages under).
    public let extraHeaders: [(name: String, value: String)]
    /// Whether pages get the live-reload script and ``eventsPath`` is served.
    public let liveReload: Bool
    /// Host names (without port) accepted in the `Host` header; others get 403.
    public let allowedHosts: Set<String>

    /// The names a browser uses for this machine's loopback interface.
    public static let loopbackHosts: Set<String> = ["127.0.0.1", "localhost", "[::1]"]

    private let subscribers = LockedBox([UUID: AsyncStream<Void>.Continuation]())
    private let http: LockedBox<LoopbackHTTPServer?> = LockedBox(nil)
    private let requestedPort: Int

    /// Creates a server for `root`; nothing listens until ``start()``.
    ///
    /// - Parameters:
    ///   - root: the site folder; it may be replaced between requests (atomic publishes), so
    ///     it is resolved again on every request.
    ///   - port: 0 picks a free port (read ``port`` after ``start()``).
    ///   - extraHeaders: added to every response, after the server's own.
    ///   - liveReload: inject the reload script into pages and serve ``eventsPath``.
    ///   - allowedHosts: `Host` names to answer. Checking them stops DNS rebinding: a web
    ///     page whose domain re-resolves to 127.0.0.1 would otherwise read the preview.
    public init(
        root: URL,
        port: Int = 0,
        extraHeaders: [(name: String, value: String)] = [],
        liveReload: Bool = false,
        allowedHosts: Set<String> = StaticSiteServer.loopbackHosts
    ) {
        self.root = root
        self.requestedPort = port
        self.extraHeaders = extraHeaders
        self.liveReload = liveReload
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
    }

    /// The bound port once started, else the port asked for.
    public var port: Int {
        http.withLock { $0?.port } ?? requestedPort
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: String {
        "http://\(LoopbackHTTPServer.host):\(port)"
    }

    /// Starts listening.
    ///
    /// - Throws: ``StaticSiteServerError/rootNotFound(_:)`` when `root` is not a folder,
    ///   ``LoopbackHTTPServerError/bindFailed(port:reason:)`` when the port is taken.
    public func start() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StaticSiteServerError.rootNotFound(root.path)
        }
        let server = LoopbackHTTPServer(port: requestedPort, maxRequestBodyBytes: 64 * 1024) { [weak self] request, response in
            // Weak: the listener must not keep a server that nobody holds alive.
            guard let self else { return await response.closeConnection() }
            try await self.handle(request, response)
        }
        try http.withLock { current in
            guard current == nil else { throw LoopbackHTTPServerError.alreadyStarted }
            current = server
        }
        do {
            try await server.start()
        } catch {
            http.withLock { $0 = nil }
            throw error
        }
    }

    /// Serves until ``stop()`` is called or the calling task is cancelled (what
    /// `matsite serve` does until Ctrl-C), starting first unless ``start()`` already ran.
    ///
    /// - Parameter onStart: called once listening, with ``baseURL`` (e.g. to print it).
    public func run(onStart: @Sendable (String) -> Void = { _ in }) async throws {
        if http.withLock({ $0 == nil }) {
            try await start()
        }
        onStart(baseURL)
        let server = http.withLock { $0 }
        await withTaskCancellationHandler {
            await server?.waitUntilStopped()
        } onCancel: {
            Task { try? await self.stop() }
        }
    }

    /// Ends open event streams, stops listening and closes every connection.
    public func stop() async throws {
        let continuations = subscribers.withLock { current in
            defer { current.removeAll() }
            return Array(current.values)
        }
        for continuation in continuations {
            continuation.finish()
        }
        try await http.withLock { $0 }?.stop()
    }

    /// Tells every open page to reload (no-op without `liveReload`).
    public func notifyReload() {
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations {
            continuation.yield()
        }
    }

    /// How many pages are listening for reloads right now.
    public var reloadListenerCount: Int {
        subscribers.withLock { $0.count }
    }
}

/// Why the preview server could not start.
public enum StaticSiteServerError: Error, CustomStringConvertible, Equatable {
    /// The folder to serve does not exist or is not a folder.
    case rootNotFound(String)

    /// What went wrong, in words a user can act on.
    public var description: String {
        switch self {
        case let .rootNotFound(path):
            "serve: \(path) is not a folder (run `matsite build` first, or pass --output)"
        }
    }
}

// MARK: - Request handling

private extension StaticSiteServer {
    /// A file picked to answer a request.
    struct ServedFile {
        let path: String
        let segments: [String]
        let size: Int
        let modified: timespec
        let inode: UInt64
    }

    func handle(_ request: LoopbackHTTPServer.Request, _ response: LoopbackHTTPServer.ResponseWriter) async throws {
        guard hostIsAllowed(request.header("host")) else {
            return try await respondError(403, "This preview answers only to \(LoopbackHTTPServer.host) and localhost.", response)
        }
        if liveReload, request.path == Self.eventsPath {
            return try await streamReloadEvents(request, response)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return try await respondError(405, "Only GET and HEAD are served here.", response, extra: [("Allow", "GET, HEAD")])
        }
        if liveReload, request.path == Self.liveReloadScriptPath {
            return try await respondBytes(
                Array(Self.liveReloadScript.utf8), contentType: "text/javascript; charset=utf-8",
                cacheControl: "no-cache", response
            )
        }

        guard case let .segments(segments, trailingSlash) = Self.decode(path: request.path) else {
            return try await respondError(400, "That path is not allowed.", response)
        }
        guard let rootPath = FilePath.real(root.path) else {
            return try await respondError(404, "The site folder is missing; is a build running?", response)
        }
        let candidate = segments.isEmpty ? rootPath : rootPath + "/" + segments.joined(separator: "/")
        guard let resolved = FilePath.real(candidate), Self.isInside(resolved, root: rootPath) else {
            // Missing, or a symlink leading out of the folder: both look like "not found"
            // so the response says nothing about what exists outside.
            return try await respondError(404, "Not found.", response)
        }
        var info = stat()
        guard stat(resolved, &info) == 0 else {
            return try await respondError(404, "Not found.", response)
        }

        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard trailingSlash || segments.isEmpty else {
                // Relative links in the folder's index.html only work under the slash form.
                // Rebuilt from non-empty segments: echoing `//host` back would make a
                // protocol-relative redirect to another site.
                let rawSegments = request.path.split(separator: "/", omittingEmptySubsequences: true)
                let location = "/" + rawSegments.joined(separator: "/") + "/" + (request.query.map { "?" + $0 } ?? "")
                return try await respondRedirect(to: location, response)
            }
            let index = resolved + "/index.html"
            var indexInfo = stat()
            guard let indexResolved = FilePath.real(index), Self.isInside(indexResolved, root: rootPath),
                stat(indexResolved, &indexInfo) == 0, (indexInfo.st_mode & S_IFMT) == S_IFREG
            else {
                return try await respondError(404, "This folder has no index.html.", response)
            }
            let file = ServedFile(
                path: indexResolved, segments: segments + ["index.html"], size: Int(indexInfo.st_size),
                modified: indexInfo.st_mtim, inode: UInt64(indexInfo.st_ino))
            return try await serve(file, request, response)
        }
        // `file.png/` names a folder that isn't one; serving the file there would also
        // break its relative links.
        guard (info.st_mode & S_IFMT) == S_IFREG, !trailingSlash else {
            return try await respondError(404, "Not found.", response)
        }
        let file = ServedFile(
            path: resolved, segments: segments, size: Int(info.st_size),
            modified: info.st_mtim, inode: UInt64(info.st_ino))
        try await serve(file, request, response)
    }

    func serve(_ file: ServedFile, _ request: LoopbackHTTPServer.Request, _ response: LoopbackHTTPServer.ResponseWriter) async throws {
        let name = file.segments.last ?? "index.html"
        let contentType = Self.mimeType(forFileName: name)
        let injectsReload = liveReload && contentType.hasPrefix("text/html")
        var etag =
            "\"\(String(file.inode, radix: 16))-\(String(file.size, radix: 16))-"
            + "\(String(Int(file.modified.tv_sec), radix: 16)).\(String(Int(file.modified.tv_nsec), radix: 16))"
        // The injected script changes the bytes, so it must change the validator too.
        etag += injectsReload ? "-lr\"" : "\""
        let modifiedSeconds = Int(file.modified.tv_sec)

        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Cache-Control", value: Self.cacheControl(for: file.segments))
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Last-Modified", value: Self.httpDate(modifiedSeconds))
        // A page rewritten for live reload is always sent whole.
        headers.add(name: "Accept-Ranges", value: injectsReload ? "none" : "bytes")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        addExtraHeaders(to: &headers)

        if isNotModified(request, etag: etag, modifiedSeconds: modifiedSeconds) {
            try await response.writeHead(status: 304, headers: headers)
            return try await response.end()
        }

        if injectsReload {
            // Pages are small: read, inject, and send whole (no ranges on a rewritten body).
            guard var page = FileManager.default.contents(atPath: file.path).map(Array.init) else {
                return try await respondError(404, "Not found.", response)
            }
            page = Self.injectReloadScript(into: page)
            headers.add(name: "Content-Length", value: String(page.count))
            return try await response.respond(status: 200, headers: headers, body: page)
        }

        var status = 200
        var range = 0..<file.size
        if let rangeHeader = request.header("range"), rangeApplies(request, etag: etag, modifiedSeconds: modifiedSeconds) {
            switch Self.parseRange(rangeHeader, size: file.size) {
            case .whole:
                break
            case let .bytes(bytes):
                status = 206
                range = bytes.lowerBound..<(bytes.upperBound + 1)
                headers.add(name: "Content-Range", value: "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(file.size)")
            case .unsatisfiable:
                headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
                headers.add(name: "Content-Range", value: "bytes */\(file.size)")
                return try await response.respond(status: 416, headers: headers, body: Array("Range not satisfiable.\n".utf8))
            }
        }
        headers.add(name: "Content-Length", value: String(range.count))
        try await response.writeHead(status: status, headers: headers)
        if !response.isHeadRequest, !range.isEmpty {
            guard try await streamFile(file.path, range: range, response) else {
                // The file shrank while being sent: the promised length can't be met, so
                // close rather than end, and the client sees a truncated response.
                return await response.closeConnection()
            }
        }
        try await response.end()
    }

    /// Sends `range` of the file in chunks; false when fewer bytes could be read.
    func streamFile(_ path: String, range: Range<Int>, _ response: LoopbackHTTPServer.ResponseWriter) async throws -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let chunkSize = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = min(chunkSize, range.upperBound - offset)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            guard count > 0 else { return false }
            try await response.writeBody(buffer[0..<count])
            offset += count
        }
        return true
    }

    func isNotModified(_ request: LoopbackHTTPServer.Request, etag: String, modifiedSeconds: Int) -> Bool {
        // If-None-Match wins over If-Modified-Since when both are sent (RFC 9110 §13.2.2).
        if let ifNoneMatch = request.header("if-none-match") {
            return Self.ifNoneMatch(ifNoneMatch, matches: etag)
        }
        if let since = request.header("if-modified-since").flatMap(Self.parseHTTPDate) {
            return modifiedSeconds <= since
        }
        return false
    }

    /// `If-Range`: a range only applies while the client's copy is still current.
    func rangeApplies(_ request: LoopbackHTTPServer.Request, etag: String, modifiedSeconds: Int) -> Bool {
        guard let ifRange = request.header("if-range")?.trimmingCharacters(in: .whitespaces) else { return true }
        if ifRange.hasPrefix("\"") {
            return ifRange == etag
        }
        return Self.parseHTTPDate(ifRange) == modifiedSeconds
    }

    func streamReloadEvents(_ request: LoopbackHTTPServer.Request, _ response: LoopbackHTTPServer.ResponseWriter) async throws {
        guard request.method == "GET" else {
            return try await respondError(405, "Only GET is served here.", response, extra: [("Allow", "GET")])
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream")
        headers.add(name: "Cache-Control", value: "no-cache")
        addExtraHeaders(to: &headers)
        let id = UUID()
        let (events, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        subscribers.withLock { $0[id] = continuation }
        let subscribers = self.subscribers
        response.onConnectionClose {
            subscribers.withLock { _ = $0.removeValue(forKey: id) }
            continuation.finish()
        }
        defer { subscribers.withLock { _ = $0.removeValue(forKey: id) } }

        try await response.writeHead(status: 200, headers: headers)
        // `retry` makes the browser reconnect quickly after `matsite serve` restarts.
        try await response.writeBody("retry: 1000\n: connected\n\n")
        for await _ in events {
            try await response.writeBody("event: reload\ndata: reload\n\n")
        }
        await response.closeConnection()
    }

    func respondBytes(
        _ body: [UInt8], contentType: String, cacheControl: String,
        _ response: LoopbackHTTPServer.ResponseWriter
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Cache-Control", value: cacheControl)
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        addExtraHeaders(to: &headers)
        try await response.respond(status: 200, headers: headers, body: body)
    }

    func respondError(
        _ status: Int, _ message: String, _ response: LoopbackHTTPServer.ResponseWriter,
        extra: [(String, String)] = []
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(contentsOf: extra)
        addExtraHeaders(to: &headers)
        let body = "<!doctype html><meta charset=\"utf-8\"><title>\(status)</title><p>\(status): \(message)</p>\n"
        try await response.respond(status: status, headers: headers, body: Array(body.utf8))
    }

    func respondRedirect(to location: String, _ response: LoopbackHTTPServer.ResponseWriter) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Location", value: location)
        headers.add(name: "Cache-Control", value: "no-cache")
        addExtraHeaders(to: &headers)
        try await response.respond(status: 301, headers: headers)
    }

    /// HTTP/1.1 requires a Host header; a request without one comes from no browser, so
    /// it is let through rather than guessed at.
    func hostIsAllowed(_ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return true }
        let name: Substring
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            name = host[...close]
        } else {
            name = host.split(separator: ":", maxSplits: 1).first ?? ""
        }
        return allowedHosts.contains(String(name))
    }

    func addExtraHeaders(to headers: inout HTTPHeaders) {
        for header in extraHeaders {
            headers.add(name: header.name, value: header.value)
        }
    }

    static func isInside(_ path: String, root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    static let liveReloadScript = """
        // Added by `matsite serve --watch`: reloads the page after each rebuild.
        (function () {
          var events = new EventSource("\(eventsPath)");
          events.addEventListener("reload", function () { window.location.reload(); });
        })();

        """

    /// Puts the script tag before the last `</body>`, or at the end when there is none.
    static func injectReloadScript(into page: [UInt8]) -> [UInt8] {
        let tag = Array("<script src=\"\(liveReloadScriptPath)\"></script>".utf8)
        let closing = Array("</body>".utf8)
        var index = page.count - closing.count
        while index >= 0 {
            if page[index..<(index + closing.count)].elementsEqual(closing, by: { asciiLowercase($0) == $1 }) {
                return Array(page[..<index]) + tag + Array(page[index...])
            }
            index -= 1
        }
        return page + tag
    }

    static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
