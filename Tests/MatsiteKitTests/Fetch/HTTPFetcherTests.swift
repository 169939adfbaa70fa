import Foundation
import Testing

@testable import MatsiteKit

/// Retries, Retry-After, permanent statuses and request headers, against TestServer on 127.0.0.1.
@Suite("HTTPFetcher")
struct HTTPFetcherTests {
    static let png: [UInt8] = (try? FormulaTiles.tile(z: 0, x: 0, y: 0, size: 16)) ?? []

    static func options(retries: Int = 2, headers: [String: String] = [:]) -> HTTPOptions {
        var options = SiteConfig().http
        options.retries = retries
        options.retryDelayMilliseconds = 10
        // Long enough that a loaded machine never turns a slow answer into a retry.
        options.timeoutSeconds = Double(TestSite.patientTimeout)
        options.stallSeconds = options.timeoutSeconds
        options.headers = headers
        return options
    }

    func withFetcher<T>(_ options: HTTPOptions, _ body: (HTTPFetcher) async throws -> T) async throws -> T {
        let fetcher = HTTPFetcher(options: options)
        do {
            let result = try await body(fetcher)
            await fetcher.shutdown()
            return result
        } catch {
            await fetcher.shutdown()
            throw error
        }
    }

    @Test("a server that fails twice with 503 and then answers gives the tile on the third request")
    func failsTwiceThenAnswers() async throws {
        try await withTestServer { server in
            server.route("/t.png", .failFirst(2, with: .status(503), then: .ok(Self.png, contentType: "image/png")))
            let response = try await withFetcher(Self.options()) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(response.status == 200)
            #expect(response.body == Self.png)
            #expect(response.attempts == 3)
            #expect(server.requestCount("/t.png") == 3)
        }
    }

    @Test("every transient status is retried: 408, 429, 500, 502, 503, 504", arguments: [408, 429, 500, 502, 503, 504])
    func transientStatuses(status: Int) async throws {
        try await withTestServer { server in
            // A 429 without Retry-After falls back to the backoff.
            server.route("/t.png", .failFirst(1, with: .status(status), then: .ok(Self.png, contentType: "image/png")))
            let response = try await withFetcher(Self.options()) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(response.status == 200 && response.attempts == 2)
        }
    }

    @Test("a connection reset before any answer is retried like a transient status")
    func resetIsRetried() async throws {
        try await withTestServer { server in
            server.route("/t.png", .failFirst(1, with: .resetWithoutAnswer, then: .ok(Self.png, contentType: "image/png")))
            let response = try await withFetcher(Self.options()) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(response.body == Self.png)
            #expect(server.requestCount("/t.png") == 2)
        }
    }

    @Test("429 with Retry-After: 1 waits at least that second before asking again")
    func retryAfter() async throws {
        try await withTestServer { server in
            server.route("/t.png", .failFirst(1, with: .tooManyRequests(retryAfter: "1"), then: .ok(Self.png, contentType: "image/png")))
            let response = try await withFetcher(Self.options()) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(response.status == 200)
            let arrivals = server.requests("/t.png").map(\.receivedAt)
            try #require(arrivals.count == 2)
            let waited = arrivals[0].duration(to: arrivals[1])
            #expect(waited >= .milliseconds(900), "waited \(waited)")
        }
    }

    @Test("500 (a new body each time) beyond http.retries fails with the status and the number of attempts")
    func retriesSpent() async throws {
        try await withTestServer { server in
            server.route("/t.png", .dynamic { request in .status(500, body: "failure \(request.attempt)") })
            let url = server.url("/t.png")
            let error = await #expect(throws: FetchError.self) {
                try await withFetcher(Self.options(retries: 2)) { try await $0.get(url, accept: "image/png") }
            }
            #expect(error?.problem == .refused(status: 500, excerpt: "failure 3"))
            #expect(error?.attempts == 3)
            #expect(error?.url == url)
            #expect(error?.description.contains("HTTP 500") == true)
            #expect(server.requestCount("/t.png") == 3)
        }
    }

    @Test("404, 403 and 401 are answers, not retried", arguments: [404, 403, 401, 204])
    func permanentStatuses(status: Int) async throws {
        try await withTestServer { server in
            server.route("/t.png", .status(status))
            let response = try await withFetcher(Self.options()) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(response.status == status)
            #expect(server.requestCount("/t.png") == 1)
        }
    }

    @Test("the User-Agent names matsite and its version; configured headers are sent")
    func headers() async throws {
        try await withTestServer { server in
            server.route("/t.png", .ok(Self.png, contentType: "image/png"))
            let options = Self.options(headers: ["Referer": "https://example.org/", "X-Api-Key": "secret-42"])
            _ = try await withFetcher(options) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            let request = try #require(server.requests("/t.png").first)
            #expect(request.header("User-Agent")?.contains("matsite/\(Matsite.version)") == true)
            #expect(request.header("Referer") == "https://example.org/")
            #expect(request.header("X-Api-Key") == "secret-42")
        }
    }

    @Test("a configured User-Agent replaces the default")
    func customUserAgent() async throws {
        try await withTestServer { server in
            server.route("/t.png", .ok(Self.png, contentType: "image/png"))
            var options = Self.options()
            options.userAgent = "my-radar-site/1.0 (contact@example.org)"
            _ = try await withFetcher(options) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(server.requests("/t.png").first?.header("User-Agent") == "my-radar-site/1.0 (contact@example.org)")
        }
    }

    @Test("a short body is not used: it is retried, and fails when it stays short")
    func shortBody() async throws {
        try await withTestServer { server in
            server.route("/t.png", .shortBody(Self.png))
            let url = server.url("/t.png")
            let error = await #expect(throws: FetchError.self) {
                try await withFetcher(Self.options(retries: 1)) { try await $0.get(url, accept: "image/png") }
            }
            #expect(error?.attempts == 2)
        }
    }

    @Test("a body over max_tile_bytes is refused from its Content-Length")
    func sizeCap() async throws {
        try await withTestServer { server in
            server.route("/t.png", .hugeContentLength())
            let url = server.url("/t.png")
            let error = await #expect(throws: FetchError.self) {
                try await withFetcher(Self.options()) { try await $0.get(url, accept: "image/png") }
            }
            #expect(error?.reason.contains("max_tile_bytes") == true)
            #expect(server.requestCount("/t.png") == 1)
        }
    }

    @Test("Retry-After as an HTTP date is honoured too")
    func retryAfterDate() async throws {
        try await withTestServer { server in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let when = formatter.string(from: Date().addingTimeInterval(2))
            // The date is a moment, not a delay: however long the 429 took to come (a loaded
            // machine), the retry may not arrive before it (its whole second).
            let retried = LockedBox<Date?>(nil)
            server.route(
                "/t.png",
                .dynamic { request in
                    guard request.attempt > 1 else { return .tooManyRequests(retryAfter: when) }
                    retried.withLock { $0 = Date() }
                    return .ok(Self.png, contentType: "image/png")
                })
            _ = try await withFetcher(Self.options()) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(server.requestCount("/t.png") == 2)
            let moment = try #require(HTTPDate.parse(when))
            let arrival = try #require(retried.withLock { $0 })
            #expect(arrival >= moment.addingTimeInterval(-0.05), "retried at \(arrival), Retry-After \(when)")
        }
    }

    @Test("a Retry-After longer than max_retry_after_s is capped")
    func retryAfterCap() async throws {
        try await withTestServer { server in
            // A day asked for: only the cap lets the test end at all.
            server.route("/t.png", .failFirst(1, with: .tooManyRequests(retryAfter: "86400"), then: .ok(Self.png, contentType: "image/png")))
            var options = Self.options()
            options.maxRetryAfterSeconds = 0.2
            let started = ContinuousClock.now
            let response = try await withFetcher(options) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(response.status == 200)
            // Far below the day asked for, with room for any loaded machine.
            #expect(started.duration(to: .now) < .seconds(600))
        }
    }

    @Test("a server that never answers times out after timeout_s and is reported as a timeout")
    func timeout() async throws {
        try await withTestServer { server in
            server.route("/t.png", .noResponse)
            var options = Self.options(retries: 0)
            options.timeoutSeconds = 0.4
            let url = server.url("/t.png")
            let started = ContinuousClock.now
            let error = await #expect(throws: FetchError.self) {
                try await withFetcher(options) { try await $0.get(url, accept: "image/png") }
            }
            #expect(error?.reason.contains("timed out") == true, "\(error?.reason ?? "")")
            // The server never answers: ending at all is the point; the bound only catches a hang.
            #expect(started.duration(to: .now) < .seconds(600))
        }
    }

    @Test("an endless redirect chain stops after at most 5 redirects")
    func redirectLimit() async throws {
        try await withTestServer { server in
            server.route("/t.png", .redirectLoop)
            let url = server.url("/t.png")
            let error = await #expect(throws: FetchError.self) {
                try await withFetcher(Self.options()) { try await $0.get(url, accept: "image/png") }
            }
            #expect(error?.reason.contains("redirect") == true, "\(error?.reason ?? "")")
            #expect(server.requestCount("/t.png") <= 6)
        }
    }

    @Test("no more than http.concurrency requests are in flight to one host")
    func concurrencyLimit() async throws {
        try await withTestServer { server in
            server.route(prefix: "/c/", .delayed(.milliseconds(150), .ok(Self.png, contentType: "image/png")))
            var options = Self.options()
            options.concurrency = 2
            try await withFetcher(options) { fetcher in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in 0..<8 {
                        let url = server.url("/c/\(i).png")
                        group.addTask { _ = try await fetcher.get(url, accept: "image/png") }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(server.requestCount(prefix: "/c/") == 8)
            #expect(server.peakRequestsInFlight == 2)
        }
    }

    @Test("a body trickling in slower than timeout_s allows is cut off, not waited for")
    func trickle() async throws {
        try await withTestServer { server in
            // 40 bytes at one per 30 s: 20 minutes in all, each byte within the read timeout
            // (a byte restarts it). Were the body waited for, the fetch would succeed
            // (nothing checks the PNG here) after 20 minutes: far past the bound below.
            server.route("/t.png", .trickle(Array(Self.png.prefix(40)), contentType: "image/png", chunkSize: 1, interval: .seconds(30)))
            var options = Self.options(retries: 0)
            options.timeoutSeconds = 1
            let url = server.url("/t.png")
            let started = ContinuousClock.now
            let error = await #expect(throws: FetchError.self) {
                try await withFetcher(options) { try await $0.get(url, accept: "image/png") }
            }
            let took = started.duration(to: .now)
            #expect(took < .seconds(600), "took \(took)")
            #expect(error?.reason.contains("timed out") == true, "\(error?.reason ?? "")")
        }
    }

    @Test("a redirect to a path on the same server is followed")
    func redirectFollowed() async throws {
        try await withTestServer { server in
            server.route("/old.png", .redirect(to: "/new.png", status: 301))
            server.route("/new.png", .ok(Self.png, contentType: "image/png"))
            let response = try await withFetcher(Self.options()) { try await $0.get(server.url("/old.png"), accept: "image/png") }
            #expect(response.status == 200 && response.body == Self.png)
        }
    }

    @Test("a redirect to a non-http scheme is not followed")
    func redirectScheme() async throws {
        try await withTestServer { server in
            server.route("/t.png", .redirect(to: "file:///etc/passwd"))
            let url = server.url("/t.png")
            do {
                let response = try await withFetcher(Self.options()) { try await $0.get(url, accept: "image/png") }
                #expect(response.status == 302, "followed to \(response.status)")
                #expect(!String(decoding: response.body, as: UTF8.self).contains("root:"))
            } catch {
                #expect(error is FetchError)
            }
        }
    }

    @Test("a chunked body (no Content-Length) over max_tile_bytes is refused as it arrives")
    func chunkedOverCap() async throws {
        try await withTestServer { server in
            server.route(
                "/t.png",
                .custom { _, writer in
                    try await writer.writeHead(status: 200, headers: ["Content-Type": "image/png"])
                    for _ in 0..<8 { try await writer.writeBody([UInt8](repeating: 7, count: 1024)) }
                    try await writer.end()
                })
            var options = Self.options()
            options.maxTileBytes = 4096
            let url = server.url("/t.png")
            let error = await #expect(throws: FetchError.self) {
                try await withFetcher(options) { try await $0.get(url, accept: "image/png") }
            }
            #expect(error?.reason.contains("4096") == true, "\(error?.reason ?? "")")
            #expect(server.requestCount("/t.png") == 1)
        }
    }

    @Test("a chunked body within max_tile_bytes is read whole")
    func chunkedWithinCap() async throws {
        try await withTestServer { server in
            server.route(
                "/t.png",
                .custom { _, writer in
                    try await writer.writeHead(status: 200, headers: ["Content-Type": "image/png"])
                    for chunk in stride(from: 0, to: Self.png.count, by: 100) {
                        try await writer.writeBody(Self.png[chunk..<min(chunk + 100, Self.png.count)])
                    }
                    try await writer.end()
                })
            let response = try await withFetcher(Self.options()) { try await $0.get(server.url("/t.png"), accept: "image/png") }
            #expect(response.body == Self.png)
        }
    }
}
