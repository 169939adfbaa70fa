import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One finished HTTP exchange (after redirects), or why there was none.
struct HTTPResponseData: Sendable {
    /// Status code.
    var status: Int
    /// Response headers.
    var headers: HTTPHeaders
    /// The complete body.
    var body: [UInt8]
    /// Requests made for it, retries included.
    var attempts: Int
    /// True when the body came from the cache without a request, or after a 304.
    var fromCache = false
    /// The body's SHA-256 (hex) when the cache already knows it (stored or verified).
    var sha256: String?
}

/// A request that failed for good, with every fact a user needs to act.
struct FetchFailure: Swift.Error, Sendable, CustomStringConvertible {
    /// The URL asked for.
    var url: String
    /// The last status seen, if any.
    var status: Int?
    /// Why it failed.
    var reason: String
    /// Requests made.
    var attempts: Int

    var description: String {
        let tries = attempts > 1 ? " after \(attempts) attempts" : ""
        return "\(url): \(reason)\(tries)"
    }
}

/// Fetches over HTTP with one shared client, bounded concurrency per host, timeouts,
/// size caps and retries with exponential backoff and jitter for transient failures only.
final class HTTPFetcher: Sendable {
    /// Made on the first request: a rebuild served wholly from fresh cache entries never
    /// starts the client's event loop (nor pays for shutting it down).
    private let client = LockedBox(ClientState.none)
    private let configuration: HTTPClient.Configuration
    private let options: HTTPOptions
    private let hosts: HostLimiter
    private let cache: HTTPCache?
    private let counters = Counters()

    /// A fetcher; its client opens on the first request. Call `shutdown()` when done.
    init(options: HTTPOptions, cache: HTTPCache? = nil) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        let timeout = TimeAmount.milliseconds(Int64(options.timeoutSeconds * 1000))
        configuration.timeout = .init(connect: timeout, read: timeout)
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30),
            concurrentHTTP1ConnectionsPerHostSoftLimit: options.concurrency)
        configuration.decompression = .disabled
        self.configuration = configuration
        self.options = options
        self.cache = cache
        hosts = HostLimiter(limit: options.concurrency)
    }

    /// Closes the client's connections.
    func shutdown() async {
        let open = client.withLock { state -> HTTPClient? in
            defer { state = .closed }
            if case .open(let client) = state { return client }
            return nil
        }
        try? await open?.shutdown()
    }

    private enum ClientState {
        case none, open(HTTPClient), closed
    }

    /// The client, opened on first use; nil once shut down.
    private func openClient() -> HTTPClient? {
        client.withLock { state in
            switch state {
            case .open(let client): return client
            case .closed: return nil
            case .none:
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                state = .open(client)
                return client
            }
        }
    }

    /// The content hashes and sizes of these URLs' cached responses when every one is
    /// fresh, known without a request or reading a body (see `HTTPCache.freshDigests`).
    func freshDigests(_ urls: [String]) -> [TileDigest]? {
        cache?.freshDigests(urls)
    }

    /// Requests made and body bytes received so far.
    var statistics: (requests: Int, bytes: Int, notModified: Int) {
        counters.read()
    }

    /// GETs `url`, retrying transient failures. A non-retryable status is returned as a
    /// response, not thrown: the caller decides what 404 means. With `revalidateAbsence`,
    /// a fresh cached 404/204 is asked about again (conditionally) instead of trusted.
    func get(
        _ url: String, accept: String, maxBytes: Int? = nil, revalidateAbsence: Bool = false
    ) async throws(FetchFailure)
        -> HTTPResponseData
    {
        let cap = maxBytes ?? options.maxTileBytes
        guard let host = HTTPURL(url)?.host else {
            throw FetchFailure(url: url, status: nil, reason: "not an http(s) URL", attempts: 0)
        }
        let sent = requestHeaders(accept: accept)
        let cached = cache?.lookup(url, request: sent)
        if let cached, cached.isFresh(), !(revalidateAbsence && [204, 404].contains(cached.status)) {
            return HTTPResponseData(
                status: cached.status, headers: cached.headers, body: cached.body, attempts: 0, fromCache: true,
                sha256: cached.sha256)
        }
        var attempt = 0
        while true {
            attempt += 1
            let outcome = await hosts.withPermit(host) { await self.once(url, accept: accept, cap: cap, validators: cached) }
            switch outcome {
            case .response(var response):
                response.attempts = attempt
                if response.status == 304, let cached {
                    counters.add(notModified: 1)
                    cache?.refresh(url, with: response.headers, entry: cached, request: sent, missingTTL: options.missingTTLSeconds)
                    return HTTPResponseData(
                        status: cached.status, headers: cached.headers, body: cached.body, attempts: attempt,
                        fromCache: true, sha256: cached.sha256)
                }
                let retryable = [408, 429, 500, 502, 503, 504].contains(response.status)
                if retryable, attempt <= options.retries {
                    await pause(attempt: attempt, retryAfter: response.headers.first(name: "Retry-After"))
                    continue
                }
                if retryable {
                    throw FetchFailure(url: url, status: response.status, reason: "HTTP \(response.status)", attempts: attempt)
                }
                // 404/204 are stored too, so a known absence is not asked for again while fresh.
                let stored = cache?.store(
                    url, status: response.status, headers: response.headers, body: response.body,
                    request: sent, missingTTL: options.missingTTLSeconds)
                if response.status == 200 { response.sha256 = stored }
                return response
            case .transient(let reason):
                if attempt <= options.retries {
                    await pause(attempt: attempt, retryAfter: nil)
                    continue
                }
                throw FetchFailure(url: url, status: nil, reason: reason, attempts: attempt)
            case .permanent(let reason, let status):
                throw FetchFailure(url: url, status: status, reason: reason, attempts: attempt)
            }
        }
    }
}

private enum Attempt: Sendable {
    case response(HTTPResponseData)
    case transient(String)
    case permanent(String, Int?)
}

private extension HTTPFetcher {
    /// The request headers every GET carries (names lowercased), which a response's `Vary`
    /// may name.
    func requestHeaders(accept: String) -> [String: String] {
        var headers = ["user-agent": options.userAgent, "accept": accept]
        for (name, value) in options.headers { headers[name.lowercased()] = value }
        return headers
    }

    func once(_ url: String, accept: String, cap: Int, validators: HTTPCache.Entry?) async -> Attempt {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: options.userAgent)
        request.headers.add(name: "Accept", value: accept)
        for (name, value) in options.headers.sorted(by: { $0.key < $1.key }) { request.headers.replaceOrAdd(name: name, value: value) }
        if let validators {
            if let etag = validators.etag { request.headers.add(name: "If-None-Match", value: etag) }
            if let modified = validators.lastModified { request.headers.add(name: "If-Modified-Since", value: modified) }
        }
        do {
            let timeout = TimeAmount.milliseconds(Int64(options.timeoutSeconds * 1000))
            let started = ContinuousClock.now
            guard let client = openClient() else { return .permanent("the HTTP client was already shut down", nil) }
            let response = try await client.execute(request, timeout: timeout)
            counters.add(requests: 1)
            let status = Int(response.status.code)
            if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > cap {
                return .permanent("the response declares \(declared) bytes, over the \(cap)-byte limit (http.max_tile_bytes)", status)
            }
            // execute's timeout ends when the head arrives, and the read timeout restarts with
            // every byte: a server trickling the body would hold the tile for ever. So the
            // whole exchange, body included, gets timeout_s.
            let bodyTime = started + .milliseconds(Int64(options.timeoutSeconds * 1000)) - ContinuousClock.now
            let collected: ByteBuffer?
            do { collected = try await Self.collect(response.body, upTo: cap, within: bodyTime) } catch is NIOTooManyBytesError {
                return .permanent("the body is larger than the \(cap)-byte limit (http.max_tile_bytes)", status)
            }
            guard let buffer = collected else {
                return .transient("timed out after \(options.timeoutSeconds) s (the body arrived too slowly)")
            }
            let body = Array(buffer.readableBytesView)
            counters.add(bytes: body.count)
            if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared != body.count {
                return .transient("short body: \(body.count) of \(declared) bytes")
            }
            return .response(HTTPResponseData(status: status, headers: response.headers, body: body, attempts: 1))
        } catch let error as HTTPClientError {
            switch error {
            case .redirectLimitReached: return .permanent("too many redirects (more than 5)", nil)
            case .redirectCycleDetected: return .permanent("redirect loop", nil)
            case .invalidURL, .emptyHost, .emptyScheme: return .permanent("invalid URL (\(error))", nil)
            case .readTimeout, .deadlineExceeded: return .transient("timed out after \(options.timeoutSeconds) s")
            case .connectTimeout: return .transient("connection timed out after \(options.timeoutSeconds) s")
            case .remoteConnectionClosed: return .transient("the server closed the connection mid-response")
            default: return .transient("\(error)")
            }
        } catch {
            return .transient(Self.describe(error))
        }
    }

    /// The body, or nil when it is not complete within `limit`.
    static func collect(_ body: HTTPClientResponse.Body, upTo cap: Int, within limit: Duration) async throws -> ByteBuffer? {
        guard limit > .zero else { return nil }
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: cap) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    func pause(attempt: Int, retryAfter: String?) async {
        var seconds: Double
        if let retryAfter, let wait = Self.retryAfterSeconds(retryAfter, now: Date()) {
            seconds = min(wait, options.maxRetryAfterSeconds)
        } else {
            let base = Double(options.retryDelayMilliseconds) / 1000 * pow(2, Double(attempt - 1))
            seconds = min(base, 30) * Double.random(in: 0.5...1.0)
        }
        if seconds > 0 { try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }
    }

    static func describe(_ error: any Swift.Error) -> String {
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}

extension HTTPFetcher {
    /// Seconds to wait from a `Retry-After` value: delta-seconds or an HTTP date.
    static func retryAfterSeconds(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 { return seconds }
        return HTTPDate.parse(trimmed).map { max(0, $0.timeIntervalSince(now)) }
    }
}

/// A semaphore per host, created on first use.
private actor HostLimiter {
    private let limit: Int
    private var semaphores: [String: AsyncSemaphore] = [:]

    init(limit: Int) { self.limit = limit }

    func semaphore(for host: String) -> AsyncSemaphore {
        if let existing = semaphores[host] { return existing }
        let created = AsyncSemaphore(limit: limit)
        semaphores[host] = created
        return created
    }

    nonisolated func withPermit<T: Sendable>(_ host: String, _ body: @Sendable () async -> T) async -> T {
        let semaphore = await semaphore(for: host)
        await semaphore.acquire()
        let result = await body()
        await semaphore.release()
        return result
    }
}

/// Request and byte counts, shared by the fetch tasks.
private final class Counters: Sendable {
    private let counts = LockedBox((requests: 0, bytes: 0, notModified: 0))

    func add(requests: Int = 0, bytes: Int = 0, notModified: Int = 0) {
        counts.withLock {
            $0.requests += requests
            $0.bytes += bytes
            $0.notModified += notModified
        }
    }

    func read() -> (requests: Int, bytes: Int, notModified: Int) {
        counts.withLock { $0 }
    }
}
