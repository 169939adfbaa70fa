import AsyncHTTPClient
import Foundation
import MatsiteTestSupport
import NIOCore
import Testing

// Proves each scripted fault looks to a client the way the fetch tests assume it does.
@Suite("TestServer")
struct TestServerTests {
    private let tile: [UInt8] = [0x89, 0x50, 0x4E, 0x47] + Array(repeating: 7, count: 200)

    @Test("a sequence fails twice and then serves the tile, and every request is counted")
    func sequence() async throws {
        let server = try await TestServer.start()
        server.route("/t/7/30/46.png", .sequence([.status(503), .status(503), .ok(tile, contentType: "image/png")]))
        var statuses: [Int] = []
        for _ in 0..<4 {
            statuses.append(try await RawHTTP.request(port: server.port, "/t/7/30/46.png").status)
        }
        #expect(statuses == [503, 503, 200, 200])
        #expect(server.requestCount("/t/7/30/46.png") == 4)
        #expect(server.requests("/t/7/30/46.png").map(\.attempt) == [1, 2, 3, 4])
        let last = try await RawHTTP.request(port: server.port, "/t/7/30/46.png")
        #expect(last.body == tile)
        #expect(last.header("Content-Type") == "image/png")
        await server.stop()
    }

    @Test("failFirst and re-routing restart the script per path, not the counts")
    func failFirst() async throws {
        let server = try await TestServer.start()
        server.route(prefix: "/t/", .failFirst(1, with: .status(500), then: .ok(tile)))
        #expect(try await RawHTTP.request(port: server.port, "/t/1/0/0.png").status == 500)
        #expect(try await RawHTTP.request(port: server.port, "/t/1/0/0.png").status == 200)
        // Another path under the same prefix has its own script.
        #expect(try await RawHTTP.request(port: server.port, "/t/1/1/0.png").status == 500)
        server.route(prefix: "/t/", .failFirst(1, with: .status(502), then: .ok(tile)))
        #expect(try await RawHTTP.request(port: server.port, "/t/1/0/0.png").status == 502)
        #expect(server.requestCount("/t/1/0/0.png") == 3)
        #expect(server.requestCount(prefix: "/t/") == 4)
        #expect(server.totalRequestCount == 4)
        await server.stop()
    }

    @Test("a dynamic route answers from the request it gets")
    func dynamic() async throws {
        let server = try await TestServer.start()
        server.route(
            prefix: "/echo/",
            .dynamic { request in
                request.path.hasSuffix(".png") ? .text(request.path) : .status(404)
            })
        #expect(try await RawHTTP.request(port: server.port, "/echo/7/1/2.png").text == "/echo/7/1/2.png")
        #expect(try await RawHTTP.request(port: server.port, "/echo/x.jpg").status == 404)
        await server.stop()
    }

    @Test("each scripted status is sent as is", arguments: [500, 502, 503, 404, 204, 401, 403])
    func statuses(code: Int) async throws {
        let server = try await TestServer.start()
        server.route("/x", .status(code))
        let response = try await RawHTTP.request(port: server.port, "/x")
        #expect(response.status == code)
        #expect(response.body.isEmpty == (code == 204))
        await server.stop()
    }

    @Test("429 carries Retry-After")
    func tooManyRequests() async throws {
        let server = try await TestServer.start()
        server.route("/x", .tooManyRequests(retryAfter: "3"))
        let response = try await RawHTTP.request(port: server.port, "/x")
        #expect(response.status == 429)
        #expect(response.header("Retry-After") == "3")
        await server.stop()
    }

    @Test("paths without a route are 404 and still recorded with their headers")
    func unrouted() async throws {
        let server = try await TestServer.start()
        let response = try await RawHTTP.request(port: server.port, "/nothing?x=1", headers: [("User-Agent", "matsite-test/1.0")])
        #expect(response.status == 404)
        let recorded = try #require(server.requests("/nothing").first)
        #expect(recorded.query == "x=1")
        #expect(recorded.header("user-agent") == "matsite-test/1.0")
        #expect(recorded.method == "GET")
        await server.stop()
    }

    @Test("no response leaves a client waiting until its own timeout")
    func noResponse() async throws {
        let server = try await TestServer.start()
        server.route("/hang", .noResponse)
        await #expect(throws: RawHTTPError.timedOut) {
            try await RawHTTP.request(port: server.port, "/hang", timeout: .milliseconds(300))
        }
        #expect(await RawHTTP.eventually { server.requestCount("/hang") == 1 })
        await server.stop()
    }

    @Test("stopping the server cuts a request that never gets an answer")
    func stopCutsHangingRequests() async throws {
        let server = try await TestServer.start()
        server.route("/hang", .noResponse)
        try await RawHTTP.withConnection(port: server.port) { connection in
            try await connection.sendRequest("GET", "/hang")
            #expect(await RawHTTP.eventually { server.requestCount("/hang") == 1 })
            await server.stop()
            #expect(await connection.waitForClose())
        }
    }

    @Test("a trickle outlasts a short timeout but completes for a patient client")
    func trickle() async throws {
        let server = try await TestServer.start()
        server.route("/slow", .trickle(Array(tile.prefix(8)), chunkSize: 1, interval: .milliseconds(60)))
        await #expect(throws: RawHTTPError.timedOut) {
            try await RawHTTP.request(port: server.port, "/slow", timeout: .milliseconds(200))
        }
        let patient = try await RawHTTP.request(port: server.port, "/slow")
        #expect(patient.body == Array(tile.prefix(8)))
        await server.stop()
    }

    @Test("a reset mid-body is seen by the client as a connection error, never as a whole tile")
    func resetMidBody() async throws {
        let server = try await TestServer.start()
        server.route("/reset", .resetMidBody(tile, contentType: "image/png", after: 50))
        do {
            let response = try await RawHTTP.request(port: server.port, "/reset")
            Issue.record("a reset response was read whole: \(response.body.count) bytes")
        } catch let error as RawHTTPError {
            switch error {
            case .connectionError, .closedEarly: break
            default: Issue.record("unexpected \(error)")
            }
        }
        await server.stop()
    }

    @Test("a body shorter than its Content-Length ends early")
    func shortBody() async throws {
        let server = try await TestServer.start()
        server.route("/short", .shortBody(tile, sent: 100))
        await #expect(throws: RawHTTPError.closedEarly(received: 100)) {
            try await RawHTTP.request(port: server.port, "/short")
        }
        await server.stop()
    }

    @Test("an HTML error page comes with status 200")
    func htmlErrorPage() async throws {
        let server = try await TestServer.start()
        server.route("/t.png", .htmlErrorPage())
        let response = try await RawHTTP.request(port: server.port, "/t.png")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(response.text.contains("<html>"))
        await server.stop()
    }

    @Test("a huge Content-Length is announced as is")
    func hugeContentLength() async throws {
        let server = try await TestServer.start()
        server.route("/huge", .hugeContentLength(1 << 40, prefix: [1, 2, 3]))
        let head = try await RawHTTP.withConnection(port: server.port) { connection in
            try await connection.sendRequest("GET", "/huge")
            return try await connection.readText(until: "\r\n\r\n")
        }
        #expect(head.lowercased().contains("content-length: 1099511627776"))
        await server.stop()
    }

    @Test("redirects point where scripted and a redirect loop never ends")
    func redirects() async throws {
        let server = try await TestServer.start()
        server.route("/old", .redirect(to: "/new", status: 301))
        server.route("/loop", .redirectLoop)
        let moved = try await RawHTTP.request(port: server.port, "/old")
        #expect(moved.status == 301)
        #expect(moved.header("Location") == "/new")

        var target = "/loop"
        for hop in 1...5 {
            let response = try await RawHTTP.request(port: server.port, target)
            #expect(response.status == 302)
            target = try #require(response.header("Location"))
            #expect(target == "/loop?hop=\(hop)")
        }
        #expect(server.requestCount("/loop") == 5)
        await server.stop()
    }

    @Test("validators give 304 to matching conditional requests and pass Cache-Control through")
    func validators() async throws {
        let server = try await TestServer.start()
        let modified = "Sat, 21 Nov 2026 10:00:00 GMT"
        server.route("/v", .ok(tile, contentType: "image/png", etag: "\"v1\"", lastModified: modified, cacheControl: "max-age=60"))
        let full = try await RawHTTP.request(port: server.port, "/v")
        #expect(full.status == 200)
        #expect(full.header("ETag") == "\"v1\"")
        #expect(full.header("Last-Modified") == modified)
        #expect(full.header("Cache-Control") == "max-age=60")

        let byTag = try await RawHTTP.request(port: server.port, "/v", headers: [("If-None-Match", "\"v1\"")])
        #expect(byTag.status == 304)
        #expect(byTag.body.isEmpty)
        #expect(byTag.header("Cache-Control") == "max-age=60")
        let otherTag = try await RawHTTP.request(port: server.port, "/v", headers: [("If-None-Match", "\"v0\"")])
        #expect(otherTag.status == 200)
        let byDate = try await RawHTTP.request(port: server.port, "/v", headers: [("If-Modified-Since", modified)])
        #expect(byDate.status == 304)
        let olderDate = try await RawHTTP.request(port: server.port, "/v", headers: [("If-Modified-Since", "Fri, 20 Nov 2026 10:00:00 GMT")])
        #expect(olderDate.status == 200)
        #expect(server.requests("/v")[1].header("If-None-Match") == "\"v1\"")
        await server.stop()
    }

    @Test("closing or resetting before any answer is an error for the client")
    func noAnswerAtAll() async throws {
        let server = try await TestServer.start()
        server.route("/close", .closeWithoutAnswer)
        server.route("/reset", .resetWithoutAnswer)
        await #expect(throws: RawHTTPError.closedEarly(received: 0)) {
            try await RawHTTP.request(port: server.port, "/close")
        }
        await #expect(throws: RawHTTPError.self) {
            try await RawHTTP.request(port: server.port, "/reset")
        }
        await server.stop()
    }

    @Test("the peak of requests in flight shows how many a client sent at once")
    func concurrency() async throws {
        let server = try await TestServer.start()
        // No answer before all four arrived, so they overlap however slow the machine.
        server.route(
            prefix: "/slow/",
            .custom { request, writer in
                _ = await RawHTTP.eventually { server.requestCount(prefix: "/slow/") >= 4 }
                try await TestServer.Behaviour.ok(tile).run(request, writer)
            })
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<4 {
                group.addTask { try await RawHTTP.request(port: server.port, "/slow/\(index)").status }
            }
            for try await status in group {
                #expect(status == 200)
            }
        }
        #expect(server.peakRequestsInFlight == 4)
        // A handler is done only after its client has the answer.
        #expect(await RawHTTP.eventually { server.requestsInFlight == 0 })
        server.resetCounts()
        #expect(server.peakRequestsInFlight == 0)
        #expect(server.totalRequestCount == 0)
        await server.stop()
    }

    @Test("hundreds of faulty exchanges leave no connection or handler behind", .timeLimit(.minutes(2)))
    func noLeaks() async throws {
        let server = try await TestServer.start()
        server.route("/ok", .ok(tile))
        server.route("/reset", .resetMidBody(tile))
        server.route("/short", .shortBody(tile))
        server.route("/close", .closeWithoutAnswer)
        server.route("/hang", .noResponse)
        server.route("/huge", .hugeContentLength())
        let paths = ["/ok", "/reset", "/short", "/close", "/hang", "/huge"]
        for round in 0..<40 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for path in paths {
                    group.addTask {
                        // Clients that give up quickly on hanging answers, as a fetch timeout would.
                        let timeout: Duration = path == "/hang" || path == "/huge" ? .milliseconds(50) : RawHTTP.patience
                        _ = try? await RawHTTP.request(port: server.port, path, timeout: timeout)
                    }
                }
                try await group.waitForAll()
            }
            #expect(server.requestCount("/ok") == round + 1)
        }
        // Clients of the other faults waited for an answer, so their requests all arrived.
        for path in ["/reset", "/short", "/close"] {
            #expect(server.requestCount(path) == 40, "\(path)")
        }
        #expect(
            await RawHTTP.eventually { server.openConnectionCount == 0 && server.requestsInFlight == 0 },
            "\(server.openConnectionCount) connections and \(server.requestsInFlight) handlers left")
        await server.stop()
    }

    @Test("broken PNGs keep their bytes but for the corrupted part")
    func brokenPNGs() async throws {
        // Signature, IHDR (13 bytes), IDAT (10 bytes), IEND: structure only, CRCs zeroed.
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let ihdr: [UInt8] = [0, 0, 0, 13] + Array("IHDR".utf8) + Array(repeating: 1, count: 13) + [0, 0, 0, 0]
        let idat: [UInt8] = [0, 0, 0, 10] + Array("IDAT".utf8) + Array(repeating: 2, count: 10) + [0, 0, 0, 0]
        let iend: [UInt8] = [0, 0, 0, 0] + Array("IEND".utf8) + [0, 0, 0, 0]
        let png = signature + ihdr + idat + iend

        let badCRC = TestServer.corruptingFirstCRC(of: png)
        #expect(badCRC.count == png.count)
        #expect(zip(badCRC, png).filter { $0 != $1 }.count == 1)
        #expect(badCRC[32] != png[32])
        let truncated = TestServer.truncatingFirstIDAT(of: png)
        #expect(truncated == Array(png.prefix(8 + 25 + 8 + 5)))

        let server = try await TestServer.start()
        server.route("/bad.png", .pngWithBadCRC(png))
        server.route("/cut.png", .pngWithTruncatedIDAT(png))
        #expect(try await RawHTTP.request(port: server.port, "/bad.png").body == badCRC)
        let cut = try await RawHTTP.request(port: server.port, "/cut.png")
        #expect(cut.body == truncated)
        #expect(cut.header("Content-Type") == "image/png")
        await server.stop()
    }

    @Test("url keeps template placeholders and points at this server")
    func urls() async throws {
        let server = try await TestServer.start()
        #expect(server.url("/t/{z}/{x}/{y}.png") == "http://127.0.0.1:\(server.port)/t/{z}/{x}/{y}.png")
        #expect(server.port > 0)
        await server.stop()
    }

    @Test("AsyncHTTPClient sees retries succeed and mid-body faults fail")
    func asyncHTTPClient() async throws {
        let server = try await TestServer.start()
        server.route("/t.png", .sequence([.status(503), .ok(tile, contentType: "image/png")]))
        server.route("/short", .shortBody(tile))
        server.route("/reset", .resetMidBody(tile))
        server.route("/hang", .noResponse)
        let client = HTTPClient.shared

        let first = try await client.execute(HTTPClientRequest(url: server.url("/t.png")), timeout: .seconds(30))
        #expect(first.status.code == 503)
        _ = try await first.body.collect(upTo: 1 << 20)
        let second = try await client.execute(HTTPClientRequest(url: server.url("/t.png")), timeout: .seconds(30))
        #expect(second.status.code == 200)
        #expect(Array(buffer: try await second.body.collect(upTo: 1 << 20)) == tile)

        for path in ["/short", "/reset"] {
            await #expect(throws: (any Error).self, "\(path)") {
                let response = try await client.execute(HTTPClientRequest(url: server.url(path)), timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
            }
        }
        await #expect(throws: HTTPClientError.deadlineExceeded) {
            _ = try await client.execute(HTTPClientRequest(url: server.url("/hang")), timeout: .milliseconds(300))
        }
        await server.stop()
    }
}
