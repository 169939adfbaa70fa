import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

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
struct FetchError: Swift.Error, Sendable, CustomStringConvertible {
    /// The URL asked for.
    var url: String
    /// Why it failed.
    var problem: TileProblem
    /// Requests made (0 when the host was already known to be down).
    var attempts: Int

    /// Why, in words.
    var reason: String { problem.description }

    var description: String {
        let tries = attempts > 1 ? " after \(attempts) attempts" : ""
        return "\(url): \(problem)\(tries)"
    }
}

/// Fetches over HTTP with one shared client, bounded concurrency per host, timeouts,
/// size caps and retries with exponential backoff and jitter for transient failures only.
///
/// A failing host costs a build a bounded number of requests (see `HostHealth`): its
/// retries come from a budget per host (`http.retry_budget`), a 5xx body it sends twice is
/// its answer for good (not retried), and after `http.max_failures_in_a_row` failures in a
/// row, or `http.stall_s` without a byte while a request waits, the rest of its work fails
/// at once. A request that fails for good is answered from the cache when the cache holds
/// the tile (RFC 5861's stale-if-error); `shutdown()` reports those per host.
final class HTTPFetcher: Sendable {
    /// Made on the first request: a rebuild served wholly from fresh cache entries never
    /// starts the client's event loop (nor pays for shutting it down).
    private let client = LockedBox(ClientState.none)
    private let configuration: HTTPClient.Configuration
    private let options: HTTPOptions
    private let hosts: HostLimiter
    private let cache: HTTPCache?
    private let counters = Counters()
    private let health: HostHealthBook
    private let staleServed = LockedBox([Endpoint: (count: Int, cause: TileProblem)]())
    private let reporter: (any BuildReporter)?

    /// A fetcher; its client opens on the first request. Call `shutdown()` when done.
    /// `reporter` hears, at `shutdown()`, which hosts' failures the cache stood in for.
    init(options: HTTPOptions, cache: HTTPCache? = nil, reporter: (any BuildReporter)? = nil) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        let timeout = TimeAmount.milliseconds(Int64(options.timeoutSeconds * 1000))
        // A connection that hangs ends by the stall time, so that a host that does not
        // answer connection attempts is named as such (see `HostHealth`).
        let connect = TimeAmount.milliseconds(Int64(min(options.timeoutSeconds, options.stallSeconds) * 1000))
        configuration.timeout = .init(connect: connect, read: timeout)
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30),
            concurrentHTTP1ConnectionsPerHostSoftLimit: options.concurrency)
        // The client's own retries of a failed connection last until the connect timeout,
        // so a refused port or an unknown host cost timeout_s per request; the retries
        // below decide instead, by cause.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        self.configuration = configuration
        self.options = options
        self.cache = cache
        self.reporter = reporter
        hosts = HostLimiter(limit: options.concurrency)
        health = HostHealthBook(options)
    }

    /// Reports the hosts whose failures the cache stood in for (one warning per host, with
    /// a count), then closes the client's connections.
    func shutdown() async {
        let served = staleServed.withLock { $0 }
        for (endpoint, stale) in served.sorted(by: { $0.key.address < $1.key.address }) {
            reporter?.report(.warning(.servedFromCache(host: endpoint.address, count: stale.count, cause: stale.cause)))
        }
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

    /// The statuses retried as transient, as curl's `--retry` and GDAL's
    /// `GDAL_HTTP_RETRY_CODES` do.
    static let retryStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// GETs `url`, retrying transient failures. A non-retryable status is returned as a
    /// response, not thrown: the caller decides what 404 means. With `revalidateAbsence`,
    /// a fresh cached 404/204 is asked about again (conditionally) instead of trusted.
    func get(
        _ url: String, accept: String, maxBytes: Int? = nil, revalidateAbsence: Bool = false
    ) async throws(FetchError)
        -> HTTPResponseData
    {
        let cap = maxBytes ?? options.maxTileBytes
        guard let parsed = HTTPURL(url) else {
            throw FetchError(url: url, problem: .transfer("not an http(s) URL"), attempts: 0)
        }
        let sent = requestHeaders(accept: accept)
        let cached = cache?.lookup(url, request: sent)
        if let cached, cached.isFresh(), !(revalidateAbsence && [204, 404].contains(cached.status)) {
            return HTTPResponseData(
                status: cached.status, headers: cached.headers, body: cached.body, attempts: 0, fromCache: true,
                sha256: cached.sha256)
        }
        let endpoint = Endpoint(host: parsed.host, port: parsed.url.port ?? (parsed.url.scheme?.lowercased() == "https" ? 443 : 80))
        let host = health.health(endpoint)
        // Failed for good: the cached copy stands in when there is one.
        func failure(_ problem: TileProblem, attempts: Int) throws(FetchError) -> HTTPResponseData {
            try failed(FetchError(url: url, problem: problem, attempts: attempts), cached: cached, endpoint: endpoint)
        }
        var attempt = 0
        while true {
            // A host given up on (down, failing, hung) is not asked again this build.
            if let reason = host.givenUp { return try failure(reason, attempts: attempt) }
            // Requests queued behind the one that gave the host up are not made: the loop's
            // top answers for them. The answer is judged (the host's run of failures counted)
            // before the permit goes to the next request, which then sees the host given up.
            let number = attempt + 1
            let judged = await hosts.withPermit(endpoint.host) { () -> Verdict? in
                guard host.givenUp == nil else { return nil }
                let outcome = await self.once(url, host: host, accept: accept, cap: cap, validators: cached)
                return self.judge(outcome, attempt: number, host: host)
            }
            guard let verdict = judged else { continue }
            attempt = number
            switch verdict {
            case .answer(var response):
                response.attempts = attempt
                return answer(response, url: url, cached: cached, sent: sent)
            case .retry(let retryAfter):
                await pause(attempt: attempt, retryAfter: retryAfter)
            case .retrySoon:
                await pause(seconds: min(Double(options.retryDelayMilliseconds) / 1000, 1))
            case .fail(let problem):
                return try failure(problem, attempts: attempt)
            }
        }
    }

    /// What one attempt's outcome means for the tile, with the host's health told of it.
    fileprivate func judge(_ outcome: Attempt, attempt: Int, host: HostHealth) -> Verdict {
        switch outcome {
        case .response(let response):
            guard Self.retryStatuses.contains(response.status) else {
                host.answered()
                return .answer(response)
            }
            // A 500 body the host already sent is its answer for these tiles, not a hiccup
            // (unless it asks to be asked again later). Not 502-504: a gateway's page or
            // a "try later" reads the same whatever the cause.
            let excerpt = TileProblem.excerpt(response.body)
            let permanent =
                response.status == 500 && response.headers.first(name: "Retry-After") == nil
                && host.repeats(status: response.status, body: response.body)
            let problem: TileProblem =
                permanent ? .sameAnswer(status: response.status, excerpt: excerpt) : .refused(status: response.status, excerpt: excerpt)
            // A repeated answer is not the host failing: it answers, for these tiles. It
            // must not give up a host whose source lacks one frame (the others exist).
            if !permanent, !host.failed(problem), attempt <= options.retries, host.takeRetry() {
                return .retry(retryAfter: response.headers.first(name: "Retry-After"))
            }
            return .fail(problem)
        case .failed(var problem, var retry):
            // An exchange cancelled because the host hung meanwhile: the hang is the cause.
            if let reason = host.givenUp, case .stalled = reason { (problem, retry) = (reason, .never) }
            switch retry {
            case .never:
                return .fail(problem)
            case .stalled:
                return .fail(host.giveUp(problem))
            case .transient:
                if !host.failed(problem), attempt <= options.retries, host.takeRetry() { return .retry(retryAfter: nil) }
                return .fail(problem)
            case .once:
                // Waiting cannot mend a refused port or an unknown name: one more try,
                // soon, in case the server was restarting, then the host is down.
                if attempt <= min(1, options.retries), host.takeRetry() { return .retrySoon }
                if problem.meansHostIsDown { host.giveUp(problem) }
                return .fail(problem)
            }
        }
    }
}

/// What the fetch loop does after an attempt.
private enum Verdict: Sendable {
    /// The answer stands (a status that is not retried).
    case answer(HTTPResponseData)
    /// Asked again after the backoff (or the server's Retry-After).
    case retry(retryAfter: String?)
    /// Asked once more after a short pause.
    case retrySoon
    /// Failed for good with this problem.
    case fail(TileProblem)
}

/// How a failed attempt may be tried again.
private enum Retry: Sendable {
    /// Up to `http.retries` times, with backoff: the next attempt may well succeed.
    case transient
    /// At most once, after a short pause: waiting is unlikely to help.
    case once
    /// Not at all.
    case never
    /// Not at all, and the host is given up: it hung for `http.stall_s`.
    case stalled
}

private enum Attempt: Sendable {
    case response(HTTPResponseData)
    case failed(TileProblem, Retry)
}

private extension HTTPFetcher {
    /// The request headers every GET carries (names lowercased), which a response's `Vary`
    /// may name.
    func requestHeaders(accept: String) -> [String: String] {
        var headers = ["user-agent": options.userAgent, "accept": accept]
        for (name, value) in options.headers { headers[name.lowercased()] = value }
        return headers
    }

    /// One request, watched by the host's health: cancelled when the host is given up
    /// meanwhile, and giving it up when it hangs.
    func once(_ url: String, host: HostHealth, accept: String, cap: Int, validators: HTTPCache.Entry?) async -> Attempt {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: options.userAgent)
        request.headers.add(name: "Accept", value: accept)
        for (name, value) in options.headers.sorted(by: { $0.key < $1.key }) { request.headers.replaceOrAdd(name: name, value: value) }
        if let validators {
            if let etag = validators.etag { request.headers.add(name: "If-None-Match", value: etag) }
            if let modified = validators.lastModified { request.headers.add(name: "If-Modified-Since", value: modified) }
        }
        let attempt = await host.request { [request] heard in await self.exchange(request, cap: cap, heard: heard) }
        guard case .failed(let problem, _) = attempt else { return attempt }
        let endpoint = host.endpoint
        switch problem {
        case .timeout(.connect, _) where options.stallSeconds <= options.timeoutSeconds:
            // The connect timeout is the stall time (see `init`): the host does not answer.
            return .failed(.stalled(host: endpoint.host, port: endpoint.port, seconds: options.stallSeconds, waitingFor: .connect), .stalled)
        default:
            return attempt
        }
    }

    func exchange(_ request: HTTPClientRequest, cap: Int, heard: HostHealth.Heard) async -> Attempt {
        let seconds = options.timeoutSeconds
        do {
            let timeout = TimeAmount.milliseconds(Int64(seconds * 1000))
            let started = ContinuousClock.now
            guard let client = openClient() else { return .failed(.transfer("the HTTP client was already shut down"), .never) }
            let response = try await client.execute(request, timeout: timeout)
            heard.head()
            counters.add(requests: 1)
            let status = Int(response.status.code)
            if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > cap {
                return .failed(.tooLarge(limit: cap, declared: declared), .never)
            }
            // execute's timeout ends when the head arrives, and the read timeout restarts with
            // every byte: a server trickling the body would hold the tile for ever. So the
            // whole exchange, body included, gets timeout_s.
            let bodyTime = started + .milliseconds(Int64(seconds * 1000)) - ContinuousClock.now
            let collected: ByteBuffer?
            do { collected = try await Self.collect(response.body, upTo: cap, within: bodyTime, heard: heard) } catch is BodyOverCapError {
                return .failed(.tooLarge(limit: cap, declared: nil), .never)
            }
            guard let buffer = collected else { return .failed(.timeout(.body, seconds: seconds), .transient) }
            let body = Array(buffer.readableBytesView)
            counters.add(bytes: body.count)
            if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared != body.count {
                return .failed(.transfer("short body: \(body.count) of \(declared) bytes"), .transient)
            }
            return .response(HTTPResponseData(status: status, headers: response.headers, body: body, attempts: 1))
        } catch {
            return Self.classify(error, endpoint: heard.endpoint, timeout: seconds)
        }
    }

    /// A response that is not a failure: a 304 becomes the cached response it confirms;
    /// anything else is stored (404/204 too, so that a known absence is not asked for again
    /// while fresh).
    func answer(_ response: HTTPResponseData, url: String, cached: HTTPCache.Entry?, sent: [String: String]) -> HTTPResponseData {
        var response = response
        if response.status == 304, let cached {
            counters.add(notModified: 1)
            cache?.refresh(url, with: response.headers, entry: cached, request: sent, missingTTL: options.missingTTLSeconds)
            return HTTPResponseData(
                status: cached.status, headers: cached.headers, body: cached.body, attempts: response.attempts,
                fromCache: true, sha256: cached.sha256)
        }
        let stored = cache?.store(
            url, status: response.status, headers: response.headers, body: response.body,
            request: sent, missingTTL: options.missingTTLSeconds)
        if response.status == 200 { response.sha256 = stored }
        return response
    }

    /// A request that failed for good: answered from the cache when the server or the
    /// network failed and the cache holds the tile, stale or not (RFC 5861's
    /// stale-if-error; a cached 404 is no tile and is not used), and counted for the
    /// host's warning. Otherwise thrown.
    func failed(_ failure: FetchError, cached: HTTPCache.Entry?, endpoint: Endpoint) throws(FetchError) -> HTTPResponseData {
        guard let cached, cached.status == 200, failure.problem.isServerFailure else { throw failure }
        staleServed.withLock { served in
            served[endpoint] = (count: (served[endpoint]?.count ?? 0) + 1, cause: served[endpoint]?.cause ?? failure.problem)
        }
        return HTTPResponseData(
            status: cached.status, headers: cached.headers, body: cached.body, attempts: failure.attempts, fromCache: true,
            sha256: cached.sha256)
    }

    /// What a thrown error means, by its type and fields (never its words), and whether
    /// trying again can help.
    static func classify(_ error: any Swift.Error, endpoint: Endpoint, timeout seconds: Double) -> Attempt {
        switch error {
        case let error as NIOConnectionError:
            let host = error.host, port = error.port
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return .failed(.unknownHost(host), .once)
            }
            if error.connectionErrors.contains(where: { if case ChannelError.connectTimeout = $0.error { true } else { false } }) {
                return .failed(.timeout(.connect, seconds: seconds), .transient)
            }
            let codes = error.connectionErrors.compactMap { ($0.error as? IOError)?.errnoCode }
            if codes.contains(ECONNREFUSED) { return .failed(.connectionRefused(host: host, port: port), .once) }
            if let code = codes.first(where: { [ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL].contains($0) }) {
                return .failed(.unreachable(host: host, port: port, detail: String(cString: strerror(code))), .once)
            }
            if let code = codes.first {
                return .failed(.transfer("cannot connect to \(TileProblem.address(host, port)): \(String(cString: strerror(code)))"), .transient)
            }
            return .failed(.transfer("cannot connect to \(TileProblem.address(host, port))"), .transient)
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            return .failed(.connectionRefused(host: endpoint.host, port: endpoint.port), .once)
        case let error as IOError where [ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode):
            return .failed(.unreachable(host: endpoint.host, port: endpoint.port, detail: String(cString: strerror(error.errnoCode))), .once)
        case let error as IOError where error.errnoCode == ECONNRESET:
            return .failed(.transfer("the server reset the connection"), .transient)
        case let error as NIOSSLError:
            return .failed(.tls(host: endpoint.host, detail: Self.words(error)), .once)
        case let error as BoringSSLError:
            return .failed(.tls(host: endpoint.host, detail: Self.words(error)), .once)
        case let error as HTTPClientError:
            switch error {
            case .redirectLimitReached: return .failed(.transfer("too many redirects (more than 5)"), .never)
            case .redirectCycleDetected: return .failed(.transfer("redirect loop"), .never)
            case .invalidURL, .emptyHost, .emptyScheme: return .failed(.transfer("invalid URL (\(error))"), .never)
            case .readTimeout, .deadlineExceeded: return .failed(.timeout(.answer, seconds: seconds), .transient)
            case .connectTimeout, .getConnectionFromPoolTimeout: return .failed(.timeout(.connect, seconds: seconds), .transient)
            case .tlsHandshakeTimeout: return .failed(.tls(host: endpoint.host, detail: "the handshake timed out"), .transient)
            case .remoteConnectionClosed: return .failed(.transfer("the server closed the connection mid-response"), .transient)
            default: return .failed(.transfer("\(error)"), .transient)
            }
        case is ChannelError:
            return .failed(.transfer("the connection failed (\(error))"), .transient)
        default:
            return .failed(.transfer(String(describing: error)), .transient)
        }
    }

    /// A TLS error's own words (NIOSSL describes its errors readably).
    static func words(_ error: any Swift.Error) -> String {
        String(describing: error)
    }

    /// The body, or nil when it is not complete within `limit`; each piece that arrives is
    /// told to the host's watch. Throws `BodyOverCapError` past `cap` bytes.
    static func collect(
        _ body: HTTPClientResponse.Body, upTo cap: Int, within limit: Duration, heard: HostHealth.Heard
    ) async throws -> ByteBuffer? {
        guard limit > .zero else { return nil }
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                var buffer = ByteBuffer()
                for try await piece in body {
                    guard buffer.readableBytes + piece.readableBytes <= cap else { throw BodyOverCapError() }
                    buffer.writeImmutableBuffer(piece)
                    heard.bytes()
                }
                return buffer
            }
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
        await pause(seconds: seconds)
    }

    func pause(seconds: Double) async {
        if seconds > 0 { try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }
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

/// A body longer than the cap.
private struct BodyOverCapError: Swift.Error {}

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
