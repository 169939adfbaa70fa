import Foundation
import MatsiteTestSupport
import Testing

@testable import MatsiteServe

@Suite("StaticSiteServer")
struct StaticSiteServerTests {
    // MARK: MIME types and caching

    @Test(
        "each file is served with the content type of its extension",
        arguments: [
            ("/index.html", "text/html; charset=utf-8"),
            ("/manifest.json", "application/json"),
            ("/assets/player.3f2a1b4c.js", "text/javascript; charset=utf-8"),
            ("/assets/player.3f2a1b4c.css", "text/css; charset=utf-8"),
            ("/assets/player.3f2a1b4c.js.map", "application/json"),
            ("/assets/fonts/inter.woff2", "font/woff2"),
            ("/assets/leaflet-0123abcd/images/marker.svg", "image/svg+xml"),
            ("/radar/frames/0000-1a2b3c4d.png", "image/png"),
            ("/notes.txt", "text/plain; charset=utf-8"),
            ("/data.bin", "application/octet-stream"),
        ])
    func contentTypes(path: String, type: String) async throws {
        try await withSite { server, _ in
            let response = try await RawHTTP.request(port: server.port, path)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == type)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
        }
    }

    @Test(
        "content-hashed files are cached for a year and everything else must revalidate",
        arguments: [
            ("/radar/frames/0000-1a2b3c4d.png", true),
            ("/assets/player.3f2a1b4c.js", true),
            ("/assets/player.3f2a1b4c.js.map", true),
            ("/assets/leaflet-0123abcd/leaflet.js", true),
            ("/assets/leaflet-0123abcd/images/marker.svg", true),
            ("/index.html", false),
            ("/", false),
            ("/radar/", false),
            ("/manifest.json", false),
            ("/radar/manifest.json", false),
            ("/radar/poster.png", false),
            ("/notes.txt", false),
        ])
    func cacheHeaders(path: String, hashed: Bool) async throws {
        try await withSite { server, _ in
            let response = try await RawHTTP.request(port: server.port, path)
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == (hashed ? "public, max-age=31536000, immutable" : "no-cache"))
        }
    }

    @Test("names are judged content-hashed only with 8 or more hex digits between separators")
    func hashedNames() {
        func hashed(_ path: String) -> Bool {
            StaticSiteServer.isContentHashed(path.split(separator: "/").map(String.init))
        }
        #expect(hashed("radar/frames/0000-1a2b3c4d.png"))
        // Named by content only: a frame, its levels and its fallback tiles, each in a folder named by a hash.
        #expect(hashed("radar/frames/1a2b3c4d5e6f7a8b.png"))
        #expect(hashed("radar/frames/1a2b3c4d5e6f7a8b/7/37/53.png"))
        #expect(hashed("radar/tiles/1a2b3c4d5e6f7a8b/5/16/10.webp"))
        #expect(!hashed("radar/tiles/0003/5/16/10.png")) // a position is no hash
        #expect(!hashed("storm-20261121/tiles/5/16/10.png")) // an animation's id is no hash
        #expect(!hashed("assets/demo-basemap/5/16/10.png"))
        #expect(hashed("assets/player.3F2A1B4C.js"))
        #expect(hashed("assets/leaflet-1a2b3c4d5e/leaflet.css"))
        #expect(!hashed("radar/frames/0000-1a2b3c4.png")) // 7 digits
        #expect(!hashed("assets/player-1a2b3c4g.js")) // not hex
        #expect(!hashed("assets/player.1a2b3c4d")) // no extension after the hash
        #expect(!hashed("radar-1a2b3c4d/index.html")) // pages never are
        #expect(!hashed("radar-1a2b3c4d/manifest.json")) // manifests never are
        #expect(!hashed("radar-1a2b3c4d/poster.png")) // hashed folders count only under assets/
    }

    // MARK: Validators

    @Test("a matching If-None-Match gets 304 with the validators and no body")
    func ifNoneMatch() async throws {
        try await withSite { server, _ in
            let first = try await RawHTTP.request(port: server.port, "/radar/poster.png")
            let etag = try #require(first.header("ETag"))
            #expect(first.header("Last-Modified") != nil)
            let second = try await RawHTTP.request(port: server.port, "/radar/poster.png", headers: [("If-None-Match", etag)])
            #expect(second.status == 304)
            #expect(second.body.isEmpty)
            #expect(second.header("ETag") == etag)
            #expect(second.header("Cache-Control") == "no-cache")
            let weak = try await RawHTTP.request(
                port: server.port, "/radar/poster.png",
                headers: [("If-None-Match", "\"other\", W/\(etag)")])
            #expect(weak.status == 304)
        }
    }

    @Test("a stale ETag gets the whole file again")
    func staleETag() async throws {
        try await withSite { server, _ in
            let response = try await RawHTTP.request(port: server.port, "/radar/poster.png", headers: [("If-None-Match", "\"stale\"")])
            #expect(response.status == 200)
            #expect(response.body == posterBytes)
        }
    }

    @Test("If-Modified-Since at or after the modification time gets 304, before it gets 200")
    func ifModifiedSince() async throws {
        try await withSite { server, _ in
            let first = try await RawHTTP.request(port: server.port, "/notes.txt")
            let lastModified = try #require(first.header("Last-Modified"))
            let seconds = try #require(StaticSiteServer.parseHTTPDate(lastModified))
            #expect(StaticSiteServer.httpDate(seconds) == lastModified)

            let same = try await RawHTTP.request(port: server.port, "/notes.txt", headers: [("If-Modified-Since", lastModified)])
            #expect(same.status == 304)
            let earlier = StaticSiteServer.httpDate(seconds - 60)
            let older = try await RawHTTP.request(port: server.port, "/notes.txt", headers: [("If-Modified-Since", earlier)])
            #expect(older.status == 200)
            #expect(older.text == "notes\n")
        }
    }

    @Test("HTTP dates are formatted and read back as IMF-fixdate")
    func httpDates() {
        #expect(StaticSiteServer.httpDate(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(StaticSiteServer.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(StaticSiteServer.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(StaticSiteServer.parseHTTPDate("garbage") == nil)
    }

    // MARK: Ranges

    @Test(
        "a byte range gets 206 with exactly those bytes",
        arguments: [
            ("bytes=0-9", 0..<10),
            ("bytes=100-", 100..<1024),
            ("bytes=-24", 1000..<1024),
            ("bytes=1000-5000", 1000..<1024),
            ("bytes=-5000", 0..<1024),
        ])
    func ranges(header: String, expected: Range<Int>) async throws {
        try await withSite { server, _ in
            let response = try await RawHTTP.request(port: server.port, "/radar/frames/0000-1a2b3c4d.png", headers: [("Range", header)])
            #expect(response.status == 206)
            #expect(response.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/1024")
            #expect(response.header("Content-Length") == String(expected.count))
            #expect(response.body == Array(frameBytes[expected]))
        }
    }

    @Test("a range outside the file gets 416 with the file's size")
    func unsatisfiableRange() async throws {
        try await withSite { server, _ in
            for header in ["bytes=1024-", "bytes=5000-6000", "bytes=-0"] {
                let response = try await RawHTTP.request(port: server.port, "/radar/frames/0000-1a2b3c4d.png", headers: [("Range", header)])
                #expect(response.status == 416, "\(header)")
                #expect(response.header("Content-Range") == "bytes */1024")
            }
        }
    }

    @Test("several ranges, malformed ranges and a stale If-Range get the whole file")
    func ignoredRanges() async throws {
        try await withSite { server, _ in
            let path = "/radar/frames/0000-1a2b3c4d.png"
            for headers in [
                [("Range", "bytes=0-1,5-6")], [("Range", "bytes=9-3")], [("Range", "lines=1-2")],
                [("Range", "bytes=0-9"), ("If-Range", "\"stale\"")],
            ] {
                let response = try await RawHTTP.request(port: server.port, path, headers: headers)
                #expect(response.status == 200, "\(headers)")
                #expect(response.body == frameBytes)
            }
            let etag = try #require(try await RawHTTP.request(port: server.port, path).header("ETag"))
            let current = try await RawHTTP.request(port: server.port, path, headers: [("Range", "bytes=0-9"), ("If-Range", etag)])
            #expect(current.status == 206)
        }
    }

    // MARK: Methods and errors

    @Test("HEAD gets GET's headers and no body, and the connection stays usable")
    func head() async throws {
        try await withSite { server, _ in
            try await RawHTTP.withConnection(port: server.port) { connection in
                try await connection.sendRequest("HEAD", "/radar/frames/0000-1a2b3c4d.png")
                let head = try await connection.readResponse(headRequest: true)
                #expect(head.status == 200)
                #expect(head.header("Content-Length") == "1024")
                #expect(head.header("Content-Type") == "image/png")
                #expect(head.body.isEmpty)

                // Any stray body bytes after the HEAD response would corrupt this one.
                try await connection.sendRequest("GET", "/notes.txt")
                let get = try await connection.readResponse()
                #expect(get.status == 200)
                #expect(get.text == "notes\n")
            }
        }
    }

    @Test("a missing file is 404")
    func missing() async throws {
        try await withSite { server, _ in
            for path in ["/nope.html", "/radar/frames/9999-00000000.png", "/radar/nope/", "/empty/", "/notes.txt/"] {
                let response = try await RawHTTP.request(port: server.port, path)
                #expect(response.status == 404, "\(path)")
                #expect(response.header("Cache-Control") == "no-cache")
            }
        }
    }

    @Test("methods other than GET and HEAD get 405 with Allow", arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
    func methodNotAllowed(method: String) async throws {
        try await withSite { server, _ in
            let response = try await RawHTTP.request(port: server.port, "/index.html", method: method, headers: [("Content-Length", "0")])
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
        }
    }

    @Test("a folder without its slash redirects to the slash form, keeping the query")
    func folderRedirect() async throws {
        try await withSite { server, _ in
            let plain = try await RawHTTP.request(port: server.port, "/radar")
            #expect(plain.status == 301)
            #expect(plain.header("Location") == "/radar/")
            let withQuery = try await RawHTTP.request(port: server.port, "/radar?autoplay=1")
            #expect(withQuery.header("Location") == "/radar/?autoplay=1")

            // A doubled slash must not become a protocol-relative redirect to another host.
            let doubled = try await RawHTTP.request(port: server.port, "//radar")
            #expect(doubled.header("Location") == "/radar/")

            let index = try await RawHTTP.request(port: server.port, "/radar/")
            #expect(index.status == 200)
            #expect(index.text == "<html><body>radar</body></html>")
            let root = try await RawHTTP.request(port: server.port, "/")
            #expect(root.text == "<html><body>home</body></html>")
        }
    }

    @Test("percent-encoded names are decoded")
    func encodedNames() async throws {
        try await withSite { server, _ in
            let response = try await RawHTTP.request(port: server.port, "/with%20space.txt")
            #expect(response.status == 200)
            #expect(response.text == "spaced\n")
        }
    }

    // MARK: Confinement

    @Test(
        "traversal attempts never reach files outside the folder",
        arguments: [
            "/../outside/secret.txt",
            "/radar/../../outside/secret.txt",
            "/%2e%2e/outside/secret.txt",
            "/%2E%2E/outside/secret.txt",
            "/%2e%2e%2foutside%2fsecret.txt",
            "/radar%2f..%2f..%2foutside%2fsecret.txt",
            "/radar/%2e%2e/%2e%2e/outside/secret.txt",
            "/..%5coutside%5csecret.txt",
            "/.%2e/outside/secret.txt",
            "/notes.txt%00.png",
            "/%zz",
            "/%c0%ae%c0%ae/outside/secret.txt",
            "//outside/secret.txt",
            "/escape.txt",
            "/escape-dir/secret.txt",
            "/escape-dir/",
            "relative/path",
        ])
    func traversal(target: String) async throws {
        try await withSite { server, _ in
            let response = try await RawHTTP.request(port: server.port, target)
            #expect([400, 404].contains(response.status), "\(target) got \(response.status)")
            #expect(!response.text.contains("top secret"))
        }
    }

    @Test("encoded dot segments and separators are refused before touching the disk")
    func decodeRules() {
        #expect(StaticSiteServer.decode(path: "/a/b.png") == .segments(["a", "b.png"], trailingSlash: false))
        #expect(StaticSiteServer.decode(path: "/a//b/") == .segments(["a", "b"], trailingSlash: true))
        #expect(StaticSiteServer.decode(path: "/") == .segments([], trailingSlash: false))
        for bad in ["/..", "/a/../b", "/%2e%2e", "/a%2fb", "/a%5cb", "/a%00", "/%", "/%4", "/%ff", "x"] {
            guard case .rejected = StaticSiteServer.decode(path: bad) else {
                Issue.record("\(bad) was accepted")
                continue
            }
        }
    }

    @Test("a symlink that stays inside the folder is served")
    func innerSymlink() async throws {
        try await withSite { server, _ in
            let response = try await RawHTTP.request(port: server.port, "/poster-link.png")
            #expect(response.status == 200)
            #expect(response.body == posterBytes)
        }
    }

    // MARK: Extras

    @Test("extra headers such as a CSP are added to every response")
    func extraHeaders() async throws {
        let csp = "default-src 'self'; img-src 'self' data:"
        try await withSite(extraHeaders: [("Content-Security-Policy", csp)]) { server, _ in
            for path in ["/index.html", "/radar/poster.png", "/nope"] {
                let response = try await RawHTTP.request(port: server.port, path)
                #expect(response.header("Content-Security-Policy") == csp, "\(path)")
            }
        }
    }

    @Test("with live reload, pages load the reload script and the event stream announces rebuilds")
    func liveReload() async throws {
        try await withSite(liveReload: true) { server, _ in
            let page = try await RawHTTP.request(port: server.port, "/radar/")
            #expect(page.text == "<html><body>radar<script src=\"/__matsite/live-reload.js\"></script></body></html>")
            #expect(page.header("Content-Length") == String(page.body.count))
            #expect(page.header("Accept-Ranges") == "none")
            let ranged = try await RawHTTP.request(port: server.port, "/radar/", headers: [("Range", "bytes=0-3")])
            #expect(ranged.status == 200)
            let script = try await RawHTTP.request(port: server.port, StaticSiteServer.liveReloadScriptPath)
            #expect(script.status == 200)
            #expect(script.text.contains("EventSource"))
            // Images are left alone.
            let poster = try await RawHTTP.request(port: server.port, "/radar/poster.png")
            #expect(poster.body == posterBytes)

            try await RawHTTP.withConnection(port: server.port) { connection in
                try await connection.sendRequest("GET", StaticSiteServer.eventsPath, headers: [("Accept", "text/event-stream")])
                let opening = try await connection.readText(until: ": connected")
                #expect(opening.contains("200 OK"))
                #expect(opening.lowercased().contains("content-type: text/event-stream"))
                #expect(server.reloadListenerCount == 1)
                server.notifyReload()
                let event = try await connection.readText(until: "data: reload")
                #expect(event.contains("event: reload"))
            }
            // The listener goes away with its connection.
            #expect(await RawHTTP.eventually { server.reloadListenerCount == 0 })
        }
    }

    @Test("without live reload, pages are sent untouched and there is no event stream")
    func noLiveReload() async throws {
        try await withSite { server, _ in
            let page = try await RawHTTP.request(port: server.port, "/radar/")
            #expect(page.text == "<html><body>radar</body></html>")
            let events = try await RawHTTP.request(port: server.port, StaticSiteServer.eventsPath)
            #expect(events.status == 400 || events.status == 404)
        }
    }

    @Test("requests naming another host are refused, so DNS rebinding can't read the preview")
    func hostCheck() async throws {
        try await withSite { server, _ in
            for host in ["127.0.0.1", "127.0.0.1:\(server.port)", "localhost:\(server.port)", "LOCALHOST", "[::1]:\(server.port)"] {
                let response = try await RawHTTP.withConnection(port: server.port) { connection in
                    try await connection.send("GET /notes.txt HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                    return try await connection.readResponse()
                }
                #expect(response.status == 200, "\(host)")
            }
            for host in ["evil.example", "evil.example:\(server.port)", "127.0.0.1.evil.example", "[::2]"] {
                let response = try await RawHTTP.withConnection(port: server.port) { connection in
                    try await connection.send("GET /notes.txt HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                    return try await connection.readResponse()
                }
                #expect(response.status == 403, "\(host)")
                #expect(!response.text.contains("notes"))
            }
        }
    }

    @Test("run serves until its task is cancelled, then stops", .timeLimit(.minutes(1)))
    func runUntilCancelled() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try Data("hello".utf8).write(to: base.appendingPathComponent("index.html"))

        let server = StaticSiteServer(root: base)
        let (started, announce) = AsyncStream<String>.makeStream()
        let running = Task { try await server.run { announce.yield($0) } }
        var iterator = started.makeAsyncIterator()
        let url = await iterator.next()
        #expect(url == "http://127.0.0.1:\(server.port)")
        let response = try await RawHTTP.request(port: server.port, "/")
        #expect(response.text == "hello")
        let port = server.port
        running.cancel()
        try await running.value
        await #expect(throws: (any Error).self) {
            try await RawHTTP.request(port: port, "/")
        }
    }

    @Test("run after start keeps serving the started server", .timeLimit(.minutes(1)))
    func runAfterStart() async throws {
        try await withSite { server, _ in
            let running = Task { try await server.run() }
            #expect(try await RawHTTP.request(port: server.port, "/notes.txt").text == "notes\n")
            running.cancel()
            try await running.value
        }
    }

    @Test("starting on a folder that does not exist fails with a message naming it")
    func missingRoot() async throws {
        let server = StaticSiteServer(root: URL(fileURLWithPath: "/nonexistent/matsite-site"))
        await #expect(throws: StaticSiteServerError.rootNotFound("/nonexistent/matsite-site")) {
            try await server.start()
        }
    }
}

// MARK: - Fixtures

private let frameBytes: [UInt8] = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7) }
private let posterBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 42, count: 100)

/// Builds a small site next to a secret folder, serves it, runs `body`, stops and cleans up.
private func withSite(
    extraHeaders: [(name: String, value: String)] = [],
    liveReload: Bool = false,
    _ body: (StaticSiteServer, URL) async throws -> Void
) async throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-serve-\(UUID().uuidString)")
    let root = base.appendingPathComponent("site")
    defer { try? FileManager.default.removeItem(at: base) }

    let files: [String: [UInt8]] = [
        "site/index.html": Array("<html><body>home</body></html>".utf8),
        "site/manifest.json": Array("{\"version\":1}".utf8),
        "site/notes.txt": Array("notes\n".utf8),
        "site/data.bin": [0, 1, 2, 3],
        "site/with space.txt": Array("spaced\n".utf8),
        "site/radar/index.html": Array("<html><body>radar</body></html>".utf8),
        "site/radar/manifest.json": Array("{\"id\":\"radar\"}".utf8),
        "site/radar/poster.png": posterBytes,
        "site/radar/frames/0000-1a2b3c4d.png": frameBytes,
        "site/assets/player.3f2a1b4c.js": Array("export {};\n".utf8),
        "site/assets/player.3f2a1b4c.css": Array("body{}\n".utf8),
        "site/assets/player.3f2a1b4c.js.map": Array("{}".utf8),
        "site/assets/fonts/inter.woff2": [0x77, 0x4F, 0x46, 0x32],
        "site/assets/leaflet-0123abcd/leaflet.js": Array("var L;\n".utf8),
        "site/assets/leaflet-0123abcd/images/marker.svg": Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8),
        "outside/secret.txt": Array("top secret\n".utf8),
    ]
    let manager = FileManager.default
    for (path, bytes) in files {
        let url = base.appendingPathComponent(path)
        try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }
    try manager.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
    try manager.createSymbolicLink(atPath: root.appendingPathComponent("escape.txt").path, withDestinationPath: "../outside/secret.txt")
    try manager.createSymbolicLink(atPath: root.appendingPathComponent("escape-dir").path, withDestinationPath: "../outside")
    try manager.createSymbolicLink(atPath: root.appendingPathComponent("poster-link.png").path, withDestinationPath: "radar/poster.png")

    let server = StaticSiteServer(root: root, extraHeaders: extraHeaders, liveReload: liveReload)
    try await server.start()
    do {
        try await body(server, root)
    } catch {
        try? await server.stop()
        throw error
    }
    try await server.stop()
}
