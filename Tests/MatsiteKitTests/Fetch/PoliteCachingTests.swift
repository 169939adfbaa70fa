import Foundation
import Testing

@testable import MatsiteKit

/// What rebuilds cost a tile server when some tiles do not exist (404/204 cached like any
/// response), how `Vary` is kept, and what a default cold build costs: over real HTTP on
/// 127.0.0.1, counting the requests the server saw.
@Suite("Polite caching")
struct PoliteCachingTests {
    static let png = CacheBench.solidTile(seed: "polite")

    /// One animation of two frames at zoom 4 (2x2 tiles each): `/ok/` tiles exist, `/gone/`
    /// ones are answered by the route given. Builds use the tile cache, as `matsite build` does.
    struct Project {
        let server: TestServer
        let site: TestSite

        func yaml(http: String = "{ retry_delay_ms: 10, retries: 2, \(TestSite.patientWaits) }", fallback: String? = "{ levels: 0 }") -> String {
            let ok = server.url("/ok/{z}/{x}/{y}.png"), gone = server.url("/gone/{z}/{x}/{y}.png")
            let lines =
                [
                    "  - id: loop",
                    "    title: Polite",
                    "    bbox: [-10.0, 40.0, 10.0, 52.0]",
                    "    zoom: 4",
                    "    missing: transparent",
                    "    source: { tile_size: 256 }",
                    "    frames: { templates: [\"\(ok)\", \"\(gone)\"] }",
                ] + (fallback.map { ["    fallback: \($0)"] } ?? [])
            return site.yaml(lines.joined(separator: "\n"), http: http)
        }

        @discardableResult
        func build(_ yaml: String) async throws -> BuildSummary {
            var options = BuildOptions()
            options.lockWait = TestSite.lockWait
            return try await Builder(config: site.config(yaml), options: options).run()
        }
    }

    func withProject(gone: TestServer.Behaviour, _ body: (Project) async throws -> Void) async throws {
        try await withTestServer { server in
            server.route(prefix: "/ok/", .ok(Self.png, contentType: "image/png", cacheControl: "max-age=600"))
            server.route(prefix: "/gone/", gone)
            let site = try TestSite()
            defer { site.remove() }
            try await body(Project(server: server, site: site))
        }
    }

    @Test("an unchanged rebuild against fresh 404s sends no request at all")
    func freshMissingTilesAreNotAskedAgain() async throws {
        try await withProject(gone: .status(404, body: "no tile")) { project in
            let first = try await project.build(project.yaml())
            #expect(project.server.requestCount(prefix: "/gone/") == 4)
            #expect(first.requests == 8)
            project.server.resetCounts()

            let second = try await project.build(project.yaml())
            #expect(project.server.totalRequestCount == 0)
            #expect(second.requests == 0)
            #expect(second.unchanged)
        }
    }

    @Test("a 204 is remembered like a 404")
    func noContentIsRemembered() async throws {
        try await withProject(gone: .status(204)) { project in
            try await project.build(project.yaml())
            #expect(project.server.requestCount(prefix: "/gone/") == 4)
            project.server.resetCounts()
            try await project.build(project.yaml())
            #expect(project.server.totalRequestCount == 0)
        }
    }

    @Test("once http.missing_ttl_s has passed, a rebuild only revalidates the 404s (If-None-Match, answered 304)")
    func staleMissingTilesAreRevalidated() async throws {
        let gone = TestServer.Behaviour.dynamic { request in
            request.header("If-None-Match") == "\"gone\""
                ? .status(304, headers: [("ETag", "\"gone\"")])
                : .status(404, body: "no tile", headers: [("ETag", "\"gone\"")])
        }
        try await withProject(gone: gone) { project in
            // A TTL of 0: every stored 404 is stale at once, as all are after their TTL.
            let yaml = project.yaml(http: "{ retry_delay_ms: 10, retries: 2, \(TestSite.patientWaits), missing_ttl_s: 0 }")
            try await project.build(yaml)
            project.server.resetCounts()

            let second = try await project.build(yaml)
            let requests = project.server.allRequests
            #expect(requests.count == 4)
            #expect(requests.allSatisfy { $0.path.hasPrefix("/gone/") && $0.header("If-None-Match") == "\"gone\"" })
            #expect(second.notModified == 4)
            #expect(second.bytesFetched == 0)
            #expect(second.unchanged)
        }
    }

    @Test("a 404's own max-age wins over http.missing_ttl_s")
    func explicitFreshnessWins() async throws {
        try await withProject(gone: .status(404, headers: [("Cache-Control", "max-age=0")])) { project in
            let yaml = project.yaml(http: "{ retry_delay_ms: 10, retries: 2, \(TestSite.patientWaits), missing_ttl_s: 3600 }")
            try await project.build(yaml)
            project.server.resetCounts()
            try await project.build(yaml)
            #expect(project.server.requestCount(prefix: "/gone/") == 4)
            #expect(project.server.requestCount(prefix: "/ok/") == 0)
        }
    }

    @Test("a tile that comes back after a cached 404 is fetched once the 404 is stale")
    func tileThatAppearsIsFetched() async throws {
        try await withProject(gone: .status(404)) { project in
            let yaml = project.yaml(http: "{ retry_delay_ms: 10, retries: 2, \(TestSite.patientWaits), missing_ttl_s: 0 }")
            try await project.build(yaml)
            #expect(try project.site.frames("loop")[1]["missing_tiles"] != nil)
            project.server.route(prefix: "/gone/", .ok(CacheBench.solidTile(seed: "back"), contentType: "image/png"))
            let second = try await project.build(yaml)
            #expect(!second.unchanged)
            #expect(try project.site.frames("loop")[1]["missing_tiles"] == nil)
        }
    }

    @Test("Vary is honoured: a response varying on User-Agent is reused for the same agent, fetched again for another")
    func varyIsHonoured() async throws {
        try await withTestServer { server in
            server.route("/v.png", .ok(Self.png, contentType: "image/png", cacheControl: "max-age=600", headers: [("Vary", "User-Agent")]))
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-vary-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            func fetch(agent: String) async throws -> HTTPResponseData {
                var options = SiteConfig().http
                options.timeoutSeconds = Double(TestSite.patientTimeout)
                options.stallSeconds = options.timeoutSeconds
                options.userAgent = agent
                let fetcher = HTTPFetcher(options: options, cache: HTTPCache(directory: folder, maxSize: 1 << 30, varyHeaders: [:]))
                do {
                    let response = try await fetcher.get(server.url("/v.png"), accept: "image/png")
                    await fetcher.shutdown()
                    return response
                } catch {
                    await fetcher.shutdown()
                    throw error
                }
            }
            _ = try await fetch(agent: "a/1")
            let again = try await fetch(agent: "a/1")
            #expect(again.fromCache)
            #expect(server.requestCount("/v.png") == 1)
            let other = try await fetch(agent: "b/1")
            #expect(!other.fromCache)
            #expect(server.requestCount("/v.png") == 2)
        }
    }

    @Test("a response with Vary: * is never stored")
    func varyStarIsRefused() async throws {
        try await withTestServer { server in
            server.route("/v.png", .ok(Self.png, contentType: "image/png", cacheControl: "max-age=600", headers: [("Vary", "*")]))
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-vary-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            var options = SiteConfig().http
            // Exactly two requests are expected: a slow answer on a loaded machine must not become a retry.
            options.timeoutSeconds = Double(TestSite.patientTimeout)
            options.stallSeconds = options.timeoutSeconds
            let fetcher = HTTPFetcher(options: options, cache: HTTPCache(directory: folder, maxSize: 1 << 30, varyHeaders: [:]))
            let second: HTTPResponseData
            do {
                _ = try await fetcher.get(server.url("/v.png"), accept: "image/png")
                second = try await fetcher.get(server.url("/v.png"), accept: "image/png")
                await fetcher.shutdown()
            } catch {
                await fetcher.shutdown()
                throw error
            }
            #expect(!second.fromCache)
            #expect(server.requestCount("/v.png") == 2)
        }
    }

    @Test("a default cold build (no fallback: key) asks for at most 1.3 times its frames' tiles")
    func defaultColdBuildCostsItsFrames() async throws {
        try await withProject(gone: .ok(Self.png, contentType: "image/png")) { project in
            let summary = try await project.build(project.yaml(fallback: nil))
            let frameTiles = 2 * 4
            #expect(summary.tiles == frameTiles)
            #expect(
                Double(project.server.totalRequestCount) <= 1.3 * Double(frameTiles),
                "\(project.server.totalRequestCount) requests for \(frameTiles) frame tiles")
        }
    }
}
