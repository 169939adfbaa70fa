import Foundation
import MatsiteSupport
import MatsiteTestSupport
import Testing

@testable import MatsiteServe

@Suite("LoopbackHTTPServer")
struct LoopbackHTTPServerTests {
    @Test("port 0 binds a free port on 127.0.0.1 and the handler sees method, path, query, headers and body")
    func requestReachesHandler() async throws {
        let seen = LockedBox<LoopbackHTTPServer.Request?>(nil)
        let server = LoopbackHTTPServer { request, response in
            seen.withLock { $0 = request }
            try await response.respond(status: 201, headers: ["Content-Type": "text/plain"], body: Array("made".utf8))
        }
        try await server.start()
        #expect(server.port > 0)
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")

        let response = try await RawHTTP.withConnection(port: server.port) { connection in
            try await connection.send("POST /a%20b/c?x=1&y=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test: yes\r\nContent-Length: 5\r\n\r\nhello")
            return try await connection.readResponse()
        }
        #expect(response.status == 201)
        #expect(response.text == "made")
        let request = try #require(seen.withLock { $0 })
        #expect(request.method == "POST")
        #expect(request.path == "/a%20b/c")
        #expect(request.query == "x=1&y=2")
        #expect(request.header("x-test") == "yes")
        #expect(request.body == Array("hello".utf8))
        try await server.stop()
    }

    @Test("a kept-alive connection answers several requests in order")
    func keepAlive() async throws {
        let server = LoopbackHTTPServer { request, response in
            try await response.respond(status: 200, body: Array(request.path.utf8))
        }
        try await server.start()
        try await RawHTTP.withConnection(port: server.port) { connection in
            for path in ["/one", "/two", "/three"] {
                try await connection.sendRequest("GET", path)
                let response = try await connection.readResponse()
                #expect(response.text == path)
            }
            // Pipelined: both requests sent before either answer is read.
            try await connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().text == "/a")
            #expect(try await connection.readResponse().text == "/b")
            #expect(server.openConnectionCount == 1)
        }
        try await server.stop()
    }

    @Test("Connection: close is honoured after the response")
    func connectionClose() async throws {
        let server = LoopbackHTTPServer { _, response in
            try await response.respond(status: 200, body: [1, 2, 3])
        }
        try await server.start()
        try await RawHTTP.withConnection(port: server.port) { connection in
            try await connection.sendRequest("GET", "/", headers: [("Connection", "close")])
            let response = try await connection.readResponse()
            #expect(response.body == [1, 2, 3])
            #expect(response.header("Connection") == "close")
            #expect(await connection.waitForClose())
        }
        try await server.stop()
    }

    @Test("a handler's own Connection: close ends the connection after its response")
    func handlerCloses() async throws {
        let server = LoopbackHTTPServer { _, response in
            try await response.respond(status: 200, headers: ["Connection": "close"], body: [7])
        }
        try await server.start()
        try await RawHTTP.withConnection(port: server.port) { connection in
            try await connection.sendRequest("GET", "/")
            #expect(try await connection.readResponse().body == [7])
            #expect(await connection.waitForClose())
        }
        try await server.stop()
    }

    @Test("a response without Content-Length is sent chunked, chunk by chunk")
    func chunked() async throws {
        let server = LoopbackHTTPServer { _, response in
            try await response.writeHead(status: 200, headers: ["Content-Type": "text/plain"])
            try await response.writeBody("abc")
            try await response.delay(.milliseconds(20))
            try await response.writeBody("def")
            try await response.end()
        }
        try await server.start()
        let response = try await RawHTTP.request(port: server.port, "/")
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.text == "abcdef")
        try await server.stop()
    }

    @Test("a handler that writes nothing answers 500, and one that throws closes the connection")
    func handlerMistakes() async throws {
        struct Boom: Error {}
        let server = LoopbackHTTPServer { request, response in
            if request.path == "/throw-late" {
                try await response.writeHead(status: 200, headers: ["Content-Length": "10"])
                try await response.writeBody([1, 2])
                throw Boom()
            }
            if request.path == "/throw" {
                throw Boom()
            }
        }
        try await server.start()
        #expect(try await RawHTTP.request(port: server.port, "/silent").status == 500)
        #expect(try await RawHTTP.request(port: server.port, "/throw").status == 500)
        await #expect(throws: RawHTTPError.closedEarly(received: 2)) {
            try await RawHTTP.request(port: server.port, "/throw-late")
        }
        try await server.stop()
    }

    @Test("writing out of order is refused with a clear error")
    func misuse() async throws {
        let errors = LockedBox<[LoopbackHTTPServerError]>([])
        let server = LoopbackHTTPServer { _, response in
            do { try await response.writeBody([1]) } catch let error as LoopbackHTTPServerError { errors.withLock { $0.append(error) } }
            do { try await response.writeHead(status: -1, reason: "nope") } catch let error as LoopbackHTTPServerError {
                errors.withLock { $0.append(error) }
            }
            try await response.respond(status: 200)
            do { try await response.end() } catch let error as LoopbackHTTPServerError { errors.withLock { $0.append(error) } }
        }
        try await server.start()
        #expect(try await RawHTTP.request(port: server.port, "/").status == 200)
        // The client has its answer before the handler's last call returns.
        #expect(await RawHTTP.eventually { errors.withLock { $0.count } == 3 })
        #expect(errors.withLock { $0 } == [.headNotWritten, .invalidStatus(-1), .responseAlreadyEnded])
        try await server.stop()
    }

    @Test("a port in use is reported, and a server starts only once")
    func bindFailures() async throws {
        let first = LoopbackHTTPServer { _, response in try await response.respond(status: 204) }
        try await first.start()
        await #expect(throws: LoopbackHTTPServerError.alreadyStarted) {
            try await first.start()
        }
        let second = LoopbackHTTPServer(port: first.port) { _, response in try await response.respond(status: 204) }
        do {
            try await second.start()
            Issue.record("two servers bound port \(first.port)")
            try await second.stop()
        } catch let error as LoopbackHTTPServerError {
            guard case .bindFailed = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error.description.contains("127.0.0.1:\(first.port)"))
        }
        try await first.stop()
    }

    @Test("stop closes idle kept-alive connections and refuses new ones")
    func stopClosesEverything() async throws {
        let server = LoopbackHTTPServer { _, response in try await response.respond(status: 200) }
        try await server.start()
        let port = server.port
        try await RawHTTP.withConnection(port: port) { connection in
            try await connection.sendRequest("GET", "/")
            _ = try await connection.readResponse()
            try await server.stop()
            #expect(await connection.waitForClose())
        }
        await #expect(throws: (any Error).self) {
            try await RawHTTP.request(port: port, "/")
        }
        // Stopping twice is harmless.
        try await server.stop()
    }

    @Test("the request target is split into path and query")
    func targetSplitting() {
        let plain = LoopbackHTTPServer.Request(method: "GET", uri: "/a/b.png")
        #expect(plain.path == "/a/b.png")
        #expect(plain.query == nil)
        let query = LoopbackHTTPServer.Request(method: "GET", uri: "/a?x=1?y#frag")
        #expect(query.path == "/a")
        #expect(query.query == "x=1?y")
        let absolute = LoopbackHTTPServer.Request(method: "GET", uri: "http://127.0.0.1:8080/t/1.png?z=2")
        #expect(absolute.path == "/t/1.png")
        #expect(absolute.query == "z=2")
    }
}
