import Foundation
import MatsiteSupport
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server that listens on 127.0.0.1 only.
///
/// Each complete request is handed to an async ``Handler`` together with a ``ResponseWriter``
/// whose primitives are deliberately low level (head, body chunk, end, close), so the same
/// server backs `matsite serve` and, with the fault primitives of the `MatsiteTestSupport`
/// target (delay, reset, never answer), the tests' misbehaving servers. It is `package`, not
/// public: it is no part of the library's API. Connections are kept alive between requests;
/// requests on one connection are answered in order.
///
/// ```swift
/// let server = LoopbackHTTPServer { request, response in
///     try await response.respond(status: 200, headers: ["Content-Type": "text/plain"], body: Array("hi".utf8))
/// }
/// try await server.start()
/// print(server.baseURL)      // http://127.0.0.1:54321
/// try await server.stop()
/// ```
package final class LoopbackHTTPServer: Sendable {
    /// Answers one request. Returning without ending the response ends it (or answers 500 when
    /// nothing was written); throwing closes the connection.
    package typealias Handler = @Sendable (Request, ResponseWriter) async throws -> Void

    /// The host every server binds to: previews and test servers must never be reachable
    /// from another machine.
    package static let host = "127.0.0.1"

    private let requestedPort: Int
    private let maxRequestBodyBytes: Int
    private let handler: Handler
    private let state = LockedBox(RunState())

    /// Creates a server; nothing listens until ``start()``.
    ///
    /// - Parameters:
    ///   - port: the TCP port on 127.0.0.1; 0 lets the system pick a free one (read ``port``
    ///     after ``start()``).
    ///   - maxRequestBodyBytes: request bodies larger than this are answered with 413.
    ///   - handler: called once per request.
    package init(port: Int = 0, maxRequestBodyBytes: Int = 1 << 20, handler: @escaping Handler) {
        self.requestedPort = port
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.handler = handler
    }

    /// The bound port once started, else the port asked for.
    package var port: Int {
        state.withLock { $0.boundPort ?? requestedPort }
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    package var baseURL: String {
        "http://\(Self.host):\(port)"
    }

    /// The number of connections currently open.
    package var openConnectionCount: Int {
        state.withLock { $0.connections.count }
    }

    /// Binds 127.0.0.1:`port` and starts accepting connections in the background.
    ///
    /// - Throws: ``LoopbackHTTPServerError/alreadyStarted`` when called twice,
    ///   ``LoopbackHTTPServerError/bindFailed(port:reason:)`` when the port is taken.
    package func start() async throws {
        try state.withLock { state in
            guard case .idle = state.phase else { throw LoopbackHTTPServerError.alreadyStarted }
            state.phase = .starting
        }

        let state = self.state
        let serverChannel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, Never>, Never>
        do {
            serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 256)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .bind(host: Self.host, port: requestedPort) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // Registered before the first byte is read, so stop() can close every
                        // connection, including ones parked in `neverAnswer()`.
                        let id = ObjectIdentifier(channel)
                        state.withLock { $0.connections[id] = channel }
                        channel.closeFuture.whenComplete { _ in
                            state.withLock { _ = $0.connections.removeValue(forKey: id) }
                        }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withPipeliningAssistance: true,
                            withErrorHandling: true
                        )
                        // Outbound is Never: responses are written straight to the channel so
                        // each write's future completes only once the bytes reached the
                        // socket, which fault injection (write, then reset) relies on.
                        return try NIOAsyncChannel<HTTPServerRequestPart, Never>(
                            wrappingChannelSynchronously: channel
                        )
                    }
                }
        } catch {
            state.withLock { $0.phase = .idle }
            throw LoopbackHTTPServerError.bindFailed(port: requestedPort, reason: "\(error)")
        }

        let handler = self.handler
        let maxBody = self.maxRequestBodyBytes
        let acceptTask = Self.runOffThePool(on: serverChannel.channel.eventLoop) {
            await withDiscardingTaskGroup { group in
                do {
                    try await serverChannel.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask {
                                await Self.serve(connection, maxBody: maxBody, handler: handler)
                            }
                        }
                    }
                } catch {
                    // The listening socket failed or was closed by stop(): the connections
                    // already accepted finish (or are closed by stop()) in the group.
                }
            }
        }

        state.withLock { state in
            state.boundPort = serverChannel.channel.localAddress?.port
            state.phase = .running(listener: serverChannel.channel, acceptTask: acceptTask)
        }
    }

    /// Stops listening, closes every open connection (a handler parked in a delay or in
    /// `neverAnswer()` is cancelled) and waits until all handlers have returned.
    /// Stopping a server that is not running does nothing. Don't await it from inside a
    /// handler: it waits for that handler to return.
    package func stop() async throws {
        let running: (Channel, Task<Void, Never>)? = state.withLock { state in
            guard case let .running(listener, task) = state.phase else { return nil }
            state.phase = .stopped
            return (listener, task)
        }
        guard let (listener, acceptTask) = running else { return }
        try? await listener.close()
        let open = state.withLock { Array($0.connections.values) }
        for channel in open {
            channel.close(promise: nil)
        }
        acceptTask.cancel()
        await acceptTask.value
    }

    /// Suspends until the server has stopped (by ``stop()`` or because its socket failed);
    /// returns at once if it is not running.
    package func waitUntilStopped() async {
        let task: Task<Void, Never>? = state.withLock { state in
            if case let .running(_, acceptTask) = state.phase { return acceptTask }
            return nil
        }
        await task?.value
    }

    /// Same as ``stop()``: the name NIO users reach for.
    package func shutdown() async throws {
        try await stop()
    }
}

// MARK: - Request

extension LoopbackHTTPServer {
    /// One complete request as it arrived.
    package struct Request: Sendable {
        /// The method as sent, e.g. `GET`.
        package let method: String
        /// The request target exactly as sent, e.g. `/a%20b/c.png?x=1`.
        package let uri: String
        /// The path part of the target, still percent-encoded, e.g. `/a%20b/c.png`.
        package let path: String
        /// The query without its `?`, still percent-encoded; nil when the target had none.
        package let query: String?
        /// The request headers (case-insensitive lookup: `headers["user-agent"]`).
        package let headers: HTTPHeaders
        /// The request body (empty for GET and HEAD).
        package let body: [UInt8]
        /// The HTTP version, e.g. 1.1.
        package let version: HTTPVersion
        /// Whether the client wants the connection kept open after this response.
        package let keepAlive: Bool

        /// Builds a request by hand, e.g. to unit-test a handler without a socket.
        package init(
            method: String,
            uri: String,
            headers: HTTPHeaders = [:],
            body: [UInt8] = [],
            version: HTTPVersion = .http1_1,
            keepAlive: Bool = true
        ) {
            self.method = method
            self.uri = uri
            (self.path, self.query) = Self.split(target: uri)
            self.headers = headers
            self.body = body
            self.version = version
            self.keepAlive = keepAlive
        }

        /// The first value of a header, looked up case-insensitively.
        package func header(_ name: String) -> String? {
            headers.first(name: name)
        }
    }
}

// MARK: - ResponseWriter

extension LoopbackHTTPServer {
    /// Writes one response, possibly badly on purpose.
    ///
    /// The usual sequence is `writeHead`, any number of `writeBody`, then `end`; `respond`
    /// does all three. `closeConnection` (and the test-support fault primitives) may be used
    /// at any point.
    package final class ResponseWriter: Sendable {
        /// The connection, for primitives outside this file (test-support fault injection).
        package let channel: Channel
        private let requestVersion: HTTPVersion
        private let requestKeepAlive: Bool
        private let phase = LockedBox(WriterPhase.idle)
        /// Set when the handler's own headers said `Connection: close`.
        private let closesAfterResponse = LockedBox(false)

        /// Whether the request was a HEAD: the response's body bytes are dropped on the wire,
        /// but its headers (Content-Length included) should be those of the GET.
        package let isHeadRequest: Bool

        init(channel: Channel, request: Request) {
            self.channel = channel
            self.requestVersion = request.version
            self.requestKeepAlive = request.keepAlive
            self.isHeadRequest = request.method == "HEAD"
        }

        /// Whether the head has been written.
        package var headWritten: Bool {
            phase.withLock { $0 != .idle }
        }

        /// Writes the status line and headers. No `Content-Length` means chunked encoding
        /// (HTTP/1.1); a `Content-Length` is sent as given, even when the body will not match.
        ///
        /// - Parameters:
        ///   - status: any code from 100 to 999.
        ///   - reason: the reason phrase; nil uses the standard one.
        ///   - headers: sent in order.
        package func writeHead(status: Int, reason: String? = nil, headers: HTTPHeaders = [:]) async throws {
            // Checked before anything is sent: a status outside 100...999 can't be written
            // (and a negative one would trap converting to the wire format).
            guard (100...999).contains(status) else { throw LoopbackHTTPServerError.invalidStatus(status) }
            try phase.withLock { phase in
                guard phase == .idle else { throw LoopbackHTTPServerError.headAlreadyWritten }
                phase = .headWritten
            }
            var headers = headers
            if !requestKeepAlive, !headers.contains(name: "connection") {
                headers.add(name: "Connection", value: "close")
            }
            if headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) {
                closesAfterResponse.withLock { $0 = true }
            }
            let responseStatus: HTTPResponseStatus =
                reason.map { .custom(code: UInt(status), reasonPhrase: $0) }
                ?? HTTPResponseStatus(statusCode: status)
            let head = HTTPResponseHead(version: requestVersion, status: responseStatus, headers: headers)
            try await channel.writeAndFlush(HTTPServerResponsePart.head(head)).get()
        }

        /// Writes a chunk of the body and waits until it was handed to the socket.
        package func writeBody(_ bytes: some Collection<UInt8>) async throws {
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            try await writeBody(buffer)
        }

        /// Writes a chunk of the body as UTF-8.
        package func writeBody(_ text: String) async throws {
            try await writeBody(ByteBuffer(string: text))
        }

        /// Writes a chunk of the body.
        package func writeBody(_ buffer: ByteBuffer) async throws {
            try phase.withLock { phase in
                switch phase {
                case .headWritten: break
                case .idle: throw LoopbackHTTPServerError.headNotWritten
                case .ended, .closed: throw LoopbackHTTPServerError.responseAlreadyEnded
                }
            }
            guard buffer.readableBytes > 0 else { return }
            try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer))).get()
        }

        /// Ends the response; the connection then serves the next request unless either side
        /// asked for `Connection: close`.
        package func end() async throws {
            try phase.withLock { phase in
                switch phase {
                case .headWritten: phase = .ended
                case .idle: throw LoopbackHTTPServerError.headNotWritten
                case .ended, .closed: throw LoopbackHTTPServerError.responseAlreadyEnded
                }
            }
            try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
        }

        /// Writes a whole response. A `Content-Length` matching `body` is added unless
        /// `headers` has one (or a `Transfer-Encoding`).
        package func respond(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) async throws {
            var headers = headers
            if !headers.contains(name: "content-length"), !headers.contains(name: "transfer-encoding") {
                headers.add(name: "Content-Length", value: String(body.count))
            }
            try await writeHead(status: status, headers: headers)
            if !body.isEmpty, !isHeadRequest {
                try await writeBody(body)
            }
            try await end()
        }

        /// Closes the connection in an orderly way (FIN), wherever the response is: a client
        /// reading a body sees it end early.
        package func closeConnection() async {
            phase.withLock { $0 = .closed }
            try? await channel.close().get()
        }

        /// Marks the response as given up on (nothing more will be written and the
        /// connection is not reused), for primitives that end a connection their own way.
        package func abandon() {
            phase.withLock { $0 = .closed }
        }

        /// Runs `action` once the connection is closed, by either side (immediately if it
        /// already is). Used by long-lived responses such as event streams.
        package func onConnectionClose(_ action: @escaping @Sendable () -> Void) {
            channel.closeFuture.whenComplete { _ in action() }
        }

        /// Completes what the handler left unfinished; returns whether the connection may
        /// serve another request.
        func finish() async -> Bool {
            let current = phase.withLock { $0 }
            switch current {
            case .idle:
                // A handler that wrote nothing is a bug in the handler; 500 says so to the
                // client instead of leaving it waiting.
                do {
                    try await respond(
                        status: 500, headers: ["Content-Type": "text/plain; charset=utf-8"],
                        body: Array("the handler wrote no response\n".utf8))
                } catch {
                    return false
                }
            case .headWritten:
                do { try await end() } catch { return false }
            case .ended:
                break
            case .closed:
                return false
            }
            return requestKeepAlive && !closesAfterResponse.withLock({ $0 }) && channel.isActive
        }

        /// After a handler threw: answer 500 when nothing was sent, then close, because a
        /// half-written response cannot be finished honestly.
        func abort() async {
            if phase.withLock({ $0 == .idle }) {
                try? await respond(status: 500, headers: ["Connection": "close"])
            }
            await closeConnection()
        }
    }
}

/// Why a ``LoopbackHTTPServer`` call failed.
public enum LoopbackHTTPServerError: Error, CustomStringConvertible, Equatable {
    /// `start()` was called on a server that is running or was stopped.
    case alreadyStarted
    /// The port could not be bound.
    case bindFailed(port: Int, reason: String)
    /// A second `writeHead` for one response.
    case headAlreadyWritten
    /// A body or end before the head.
    case headNotWritten
    /// A write after `end()` or after the connection was closed.
    case responseAlreadyEnded
    /// A status code outside 100...999.
    case invalidStatus(Int)

    /// What went wrong, in words a user can act on.
    public var description: String {
        switch self {
        case .alreadyStarted:
            "serve: the server was already started (a server starts once; make a new one)"
        case let .bindFailed(port, reason):
            "serve: cannot listen on \(LoopbackHTTPServer.host):\(port): \(reason) (is another server using the port? try --port 0)"
        case .headAlreadyWritten:
            "serve: the response head was already written"
        case .headNotWritten:
            "serve: the response head must be written before its body"
        case .responseAlreadyEnded:
            "serve: the response was already ended or its connection closed"
        case let .invalidStatus(status):
            "serve: \(status) is not an HTTP status code (100 to 999)"
        }
    }
}

// MARK: - Internals

private extension LoopbackHTTPServer {
    /// Starts the accept loop, whose connection and handler tasks inherit its executor.
    ///
    /// Where task executors exist they run on the listener's NIO event loop thread, not on
    /// the shared cooperative pool: a process whose pool is busy with synchronous work
    /// (stitching, decoding, a test suite running such tests in parallel) would otherwise
    /// leave requests unanswered for seconds, and a client's timeouts would fire on faults
    /// the server never meant to inject.
    static func runOffThePool(
        on eventLoop: any EventLoop,
        _ body: @escaping @Sendable () async -> Void
    ) -> Task<Void, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            return Task(executorPreference: ServeEventLoopExecutor(eventLoop)) { await body() }
        }
        return Task { await body() }
    }

    /// Reads requests off one connection and answers them in order until either side closes.
    static func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, Never>,
        maxBody: Int,
        handler: Handler
    ) async {
        let channel = connection.channel
        do {
            try await connection.executeThenClose { inbound in
                var head: HTTPRequestHead?
                var body: [UInt8] = []
                var bodyTooLarge = false
                for try await part in inbound {
                    switch part {
                    case let .head(requestHead):
                        head = requestHead
                        body = []
                        bodyTooLarge = false
                    case let .body(chunk):
                        if body.count + chunk.readableBytes > maxBody {
                            bodyTooLarge = true
                        } else {
                            body.append(contentsOf: chunk.readableBytesView)
                        }
                    case .end:
                        guard let requestHead = head else { continue }
                        head = nil
                        let request = Request(
                            method: requestHead.method.rawValue,
                            uri: requestHead.uri,
                            headers: requestHead.headers,
                            body: body,
                            version: requestHead.version,
                            keepAlive: requestHead.isKeepAlive && !bodyTooLarge
                        )
                        body = []
                        let writer = ResponseWriter(channel: channel, request: request)
                        if bodyTooLarge {
                            try? await writer.respond(
                                status: 413, headers: ["Content-Type": "text/plain; charset=utf-8"],
                                body: Array("request body too large\n".utf8))
                            return
                        }
                        do {
                            try await handler(request, writer)
                        } catch {
                            await writer.abort()
                            return
                        }
                        guard await writer.finish() else { return }
                    }
                }
            }
        } catch {
            // The peer reset or the request was malformed (NIO already answered 400):
            // the connection is closed either way and there is nobody left to tell.
        }
    }
}

extension LoopbackHTTPServer.Request {
    /// Splits a request target into its path and query, dropping any fragment and the
    /// scheme and authority of an absolute-form target.
    static func split(target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if let hash = rest.firstIndex(of: "#") {
            rest = rest[..<hash]
        }
        if rest.hasPrefix("http://") || rest.hasPrefix("https://"),
            let schemeEnd = rest.range(of: "://")
        {
            let afterScheme = rest[schemeEnd.upperBound...]
            rest = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        guard let question = rest.firstIndex(of: "?") else {
            return (String(rest), nil)
        }
        return (String(rest[..<question]), String(rest[rest.index(after: question)...]))
    }
}

private enum WriterPhase: Sendable, Equatable {
    case idle, headWritten, ended, closed
}

private struct RunState {
    enum Phase {
        case idle, starting, running(listener: Channel, acceptTask: Task<Void, Never>), stopped
    }

    var phase: Phase = .idle
    var boundPort: Int?
    var connections: [ObjectIdentifier: Channel] = [:]
}

/// Runs Swift tasks on a NIO event loop's thread.
///
/// Handlers must not block for long (a blocked handler delays the connections sharing the
/// loop); they suspend on NIO futures and `Task.sleep` like any async code.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class ServeEventLoopExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
