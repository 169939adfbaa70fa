import Foundation
import Testing

@testable import MatsiteKit

/// What a failing host costs a build, over real HTTP on 127.0.0.1 with the server counting
/// requests: a retry budget per host, a run of failures that gives the host up, a 500 body
/// sent twice taken as the answer, and the cache standing in when the server fails.
@Suite("Failing hosts")
struct HostHealthTests {
    static let png = HTTPFetcherTests.png

    static func options(retries: Int = 4, concurrency: Int = 2, failuresInARow: Int = 100, budget: Int = 100) -> HTTPOptions {
        var options = HTTPFetcherTests.options(retries: retries)
        options.concurrency = concurrency
        options.maxFailuresInARow = failuresInARow
        options.retryBudget = budget
        return options
    }

    /// Gets every URL at once; the failures' problems, in URL order (nil for a response).
    static func getAll(_ urls: [String], _ options: HTTPOptions, cache: HTTPCache? = nil) async -> [TileProblem?] {
        let fetcher = HTTPFetcher(options: options, cache: cache)
        let problems = await withTaskGroup(of: (Int, TileProblem?).self) { group in
            for (i, url) in urls.enumerated() {
                group.addTask {
                    do throws(FetchError) {
                        _ = try await fetcher.get(url, accept: "image/png")
                        return (i, nil)
                    } catch {
                        return (i, error.problem)
                    }
                }
            }
            return await group.reduce(into: [TileProblem?](repeating: nil, count: urls.count)) { $0[$1.0] = $1.1 }
        }
        await fetcher.shutdown()
        return problems
    }

    static func port(_ server: TestServer) -> Int {
        URL(string: server.url("/"))?.port ?? 0
    }

    /// An animation (for `TestSite.yaml`) of two frames of 2x2 tiles at zoom 4, from
    /// `server`'s paths under `prefix` (`a/` and `b/`).
    static func twoFrames(_ server: TestServer, under prefix: String) -> String {
        let (a, b) = (server.url(prefix + "a/{z}/{x}/{y}.png"), server.url(prefix + "b/{z}/{x}/{y}.png"))
        return """
              - id: loop
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                source: { tile_size: 256 }
                frames: { templates: ["\(a)", "\(b)"] }
            """
    }

    /// A whole project's config whose tiles (4 per frame) come from `server`'s `/hung/`
    /// paths, which the caller routes.
    static func hungProject(_ server: TestServer, frames: Int, http: String) -> String {
        """
        title: Hung
        output: site
        cache: cache
        http: \(http)
        animations:
          - id: radar
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            source: { url: "\(server.url("/hung/{frame}/{z}/{x}/{y}.png"))" }
            frames: { count: \(frames) }
        """
    }

    @Test("a host answering 500 every time (a new body each time) gets at most max_failures_in_a_row + concurrency - 1 requests for 40 tiles")
    func failingHostIsGivenUp() async throws {
        try await withTestServer { server in
            server.route(prefix: "/t/", .dynamic { _ in .status(500, body: "failure \(UUID().uuidString)") })
            let urls = (0..<40).map { server.url("/t/\($0).png") }
            let problems = await Self.getAll(urls, Self.options(retries: 4, concurrency: 2, failuresInARow: 4))
            #expect(server.requestCount(prefix: "/t/") <= 4 + 2 - 1)
            #expect(problems.allSatisfy { $0 != nil })
            let notAsked = problems.compactMap { problem -> TileProblem? in
                if case .hostFailing = problem { problem } else { nil }
            }
            #expect(notAsked.count >= 40 - 5)
            let words = notAsked.first?.description ?? ""
            #expect(words.hasPrefix("not asked for: 127.0.0.1:\(Self.port(server)) had failed 4 requests in a row (the last: HTTP 500: \"failure "), "\(words)")
        }
    }

    @Test("retries beyond http.retry_budget are not made: tiles failing once with 503 are retried until the host's budget is spent")
    func retryBudget() async throws {
        try await withTestServer { server in
            server.route(prefix: "/r/", .failFirst(1, with: .status(503), then: .ok(Self.png, contentType: "image/png")))
            let fetcher = HTTPFetcher(options: Self.options(retries: 4, concurrency: 1, budget: 3))
            var failed: [Int] = []
            for i in 0..<8 {
                do throws(FetchError) {
                    _ = try await fetcher.get(server.url("/r/\(i).png"), accept: "image/png")
                } catch {
                    #expect(error.problem == .refused(status: 503, excerpt: "status 503"))
                    failed.append(i)
                }
            }
            await fetcher.shutdown()
            #expect(failed == [3, 4, 5, 6, 7])
            #expect(server.requestCount(prefix: "/r/") == 8 + 3)
        }
    }

    @Test("every ten answers earn a host one more retry beyond http.retry_budget")
    func answersEarnRetries() async throws {
        try await withTestServer { server in
            server.route(prefix: "/f/", .failFirst(1, with: .status(503), then: .ok(Self.png, contentType: "image/png")))
            server.route(prefix: "/ok/", .ok(Self.png, contentType: "image/png"))
            let fetcher = HTTPFetcher(options: Self.options(retries: 4, concurrency: 1, budget: 0))
            await #expect(throws: FetchError.self) { try await fetcher.get(server.url("/f/0.png"), accept: "image/png") }
            for i in 0..<10 { _ = try await fetcher.get(server.url("/ok/\(i).png"), accept: "image/png") }
            let earned = try await fetcher.get(server.url("/f/1.png"), accept: "image/png")
            await #expect(throws: FetchError.self) { try await fetcher.get(server.url("/f/2.png"), accept: "image/png") }
            await fetcher.shutdown()
            #expect(earned.status == 200 && earned.attempts == 2)
            #expect(server.requestCount("/f/0.png") == 1 && server.requestCount("/f/2.png") == 1)
        }
    }

    @Test("the same 500 body on many tiles: the first tile is asked twice, the others once, the host is not given up, and a different body is still retried")
    func sameAnswerIsNotRetried() async throws {
        try await withTestServer { server in
            let missing = "{\"detail\": \"/data/cog-0930.tif: No such file or directory\"}"
            server.route(prefix: "/cog/", .status(500, body: missing))
            server.route("/flaky.png", .failFirst(1, with: .status(500, body: "worker restarting"), then: .ok(Self.png, contentType: "image/png")))
            let urls = (0..<9).map { server.url("/cog/\($0).png") }
            // Nine answers in a row, over max_failures_in_a_row: answers, not failures.
            let fetcher = HTTPFetcher(options: Self.options(retries: 4, concurrency: 1, failuresInARow: 4))
            var problems: [TileProblem] = []
            for url in urls {
                do throws(FetchError) {
                    _ = try await fetcher.get(url, accept: "image/png")
                } catch {
                    problems.append(error.problem)
                }
            }
            // Another body from the same host is another answer: retried.
            let flaky = try await fetcher.get(server.url("/flaky.png"), accept: "image/png")
            await fetcher.shutdown()
            #expect(server.requestCount(prefix: "/cog/") == 10)
            let excerpt = TileProblem.excerpt(Array(missing.utf8))
            #expect(problems == Array(repeating: .sameAnswer(status: 500, excerpt: excerpt), count: 9))
            #expect(problems.first?.description == "HTTP 500: \"\(excerpt)\" (the host repeats this answer: not retried)")
            #expect(flaky.status == 200 && flaky.attempts == 2)
        }
    }

    @Test("503 with Retry-After is honoured and not taken for a permanent answer, however often its body repeats")
    func retryAfterOn503() async throws {
        try await withTestServer { server in
            server.route(
                "/t.png", .failFirst(2, with: .status(503, body: "maintenance", headers: [("Retry-After", "1")]), then: .ok(Self.png, contentType: "image/png"))
            )
            let fetcher = HTTPFetcher(options: Self.options())
            let response = try await fetcher.get(server.url("/t.png"), accept: "image/png")
            await fetcher.shutdown()
            #expect(response.status == 200 && response.attempts == 3)
            let arrivals = server.requests("/t.png").map(\.receivedAt)
            try #require(arrivals.count == 3)
            #expect(arrivals[0].duration(to: arrivals[1]) >= .milliseconds(900))
            #expect(arrivals[1].duration(to: arrivals[2]) >= .milliseconds(900))
        }
    }

    @Test("a stale cached tile answers when the server then fails, and the host is reported once with the count; a cached 404 is not")
    func staleIfError() async throws {
        try await withTestServer { server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-stale-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = HTTPCache(directory: folder, maxSize: 1 << 30, varyHeaders: [:])
            // Stale at once: every later get asks the server.
            server.route(prefix: "/s/", .ok(Self.png, contentType: "image/png", cacheControl: "max-age=0"))
            server.route("/gone.png", .status(404))
            let urls = (0..<3).map { server.url("/s/\($0).png") }
            var options = Self.options()
            options.missingTTLSeconds = 0
            #expect(await Self.getAll(urls + [server.url("/gone.png")], options, cache: cache).allSatisfy { $0 == nil })

            server.route(prefix: "/s/", .status(500, body: "upstream down"))
            server.route("/gone.png", .status(500, body: "upstream down"))
            let reporter = RecordingReporter()
            let fetcher = HTTPFetcher(options: options, cache: cache, reporter: reporter)
            for url in urls {
                let response = try await fetcher.get(url, accept: "image/png")
                #expect(response.body == Self.png && response.fromCache)
            }
            let error = await #expect(throws: FetchError.self) { try await fetcher.get(server.url("/gone.png"), accept: "image/png") }
            #expect(error?.problem.isServerFailure == true)
            await fetcher.shutdown()
            #expect(server.requestCount(prefix: "/s/") > 3)
            let port = Self.port(server)
            #expect(reporter.warnings.count == 1)
            #expect(
                reporter.warnings.first?.hasPrefix(
                    "127.0.0.1:\(port): 3 tiles (or documents) served from the cache, possibly out of date, after the server failed (HTTP 500: \"upstream down\""
                ) == true,
                "\(reporter.warnings)")
        }
    }

    @Test("when the host then hangs, its cached tiles are served after http.stall_s, the requests in flight given up with it")
    func staleAfterStall() async throws {
        try await withTestServer { server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-stall-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = HTTPCache(directory: folder, maxSize: 1 << 30, varyHeaders: [:])
            server.route(prefix: "/s/", .ok(Self.png, contentType: "image/png", cacheControl: "no-cache"))
            let urls = (0..<4).map { server.url("/s/\($0).png") }
            var options = Self.options(concurrency: 2)
            #expect(await Self.getAll(urls, options, cache: cache).allSatisfy { $0 == nil })
            options.stallSeconds = 1

            server.route(prefix: "/s/", .noResponse)
            let reporter = RecordingReporter()
            let fetcher = HTTPFetcher(options: options, cache: cache, reporter: reporter)
            let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for url in urls { group.addTask { try await fetcher.get(url, accept: "image/png").body } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            await fetcher.shutdown()
            #expect(bodies == Array(repeating: Self.png, count: 4))
            // At most the first two hung (on a loaded machine the connections may not even
            // be made within stall_s); the two queued behind them were not asked.
            #expect((4...(4 + 2)).contains(server.requestCount(prefix: "/s/")))
            let port = Self.port(server)
            #expect(reporter.warnings.count == 1)
            let warning = reporter.warnings.first ?? ""
            #expect(
                warning.hasPrefix(
                    "127.0.0.1:\(port): 4 tiles (or documents) served from the cache, possibly out of date, after the server failed ")
                    && warning.contains("127.0.0.1:\(port) within 1 s (http.stall_s)"), "\(warning)")
        }
    }

    @Test("a build whose server then answers 500 publishes from the cache, unchanged, with the warning")
    func staleIfErrorBuild() async throws {
        try await withTestServer { server in
            server.route(prefix: "/s/", .ok(CacheBench.solidTile(seed: "stale"), contentType: "image/png", cacheControl: "no-cache"))
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(Self.twoFrames(server, under: "/s/"))
            var options = BuildOptions()
            options.lockWait = TestSite.lockWait
            _ = try await Builder(config: site.config(yaml), options: options).run()
            server.route(prefix: "/s/", .status(500, body: "upstream down"))
            let reporter = RecordingReporter()
            let second = try await Builder(config: site.config(yaml), options: options, reporter: reporter).run()
            #expect(second.unchanged)
            let port = Self.port(server)
            #expect(reporter.warnings.contains { $0.hasPrefix("127.0.0.1:\(port): 8 tiles (or documents) served from the cache") }, "\(reporter.warnings)")
        }
    }

    @Test("a build against the same 500 body everywhere fails naming the body and the tiles' count, asking each tile at most twice")
    func sameAnswerBuild() async throws {
        try await withTestServer { server in
            server.route(prefix: "/cog/", .status(500, body: "{\"detail\": \"/data/cog.tif: No such file or directory\"}"))
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(
                Self.twoFrames(server, under: "/cog/"),
                http: "{ retry_delay_ms: 10, retries: 4, max_failures_in_a_row: 2, timeout_s: \(TestSite.patientTimeout) }")
            let error = await #expect(throws: BuildError.self) { try await site.build(yaml) }
            let words = error?.description ?? ""
            #expect(
                words.contains(
                    "loop: 8 tiles in 2 frames: HTTP 500: \"{\"detail\": \"/data/cog.tif: No such file or directory\"}\" (the host repeats this answer: not retried)"
                ), "\(words)")
            // 8 tiles, not 8 x 5 requests: one tile per concurrent first wave may ask twice.
            #expect(server.requestCount(prefix: "/cog/") <= 8 + 6)
        }
    }

    @Test("a host that accepts and never answers fails the build within about http.stall_s, naming host and port, without retries")
    func hungHost() async throws {
        try await withTestServer { server in
            server.route(prefix: "/hung/", .noResponse)
            let project = try CLI.scratch("hung")
            defer { try? FileManager.default.removeItem(at: project) }
            try Data(Self.hungProject(server, frames: 6, http: "{ stall_s: 5, timeout_s: 600, retries: 4 }").utf8)
                .write(to: project.appendingPathComponent("matsite.yml"))
            let started = ContinuousClock.now
            let result = try CLI.run(["build"], in: project, timeout: 600)
            let elapsed = started.duration(to: .now)
            #expect(result.status == 1, "\(result.err)")
            let port = Self.port(server)
            // (On a loaded machine the connection itself may not be made within stall_s: then
            // the words say the host does not answer connection attempts.)
            #expect(result.err.contains("127.0.0.1:\(port) within 5 s (http.stall_s)"), "\(result.err)")
            #expect(result.err.contains("24 tiles in 6 frames"), "\(result.err)")
            // Not retries x timeout_s (5 x 600 s): it ended, within a tenth of that (room for a
            // machine at load 20).
            #expect(elapsed < .seconds(300), "took \(elapsed)")
            // One wave of requests (http.concurrency), then none: the others fail at once.
            #expect(server.requestCount(prefix: "/hung/") <= 6)
            #expect(!FileManager.default.fileExists(atPath: project.appendingPathComponent("site").path))
        }
    }

    @Test("the http keys for failing hosts are read with their ranges, and default as documented")
    func config() throws {
        let defaults = HTTPOptions()
        #expect(defaults.stallSeconds == 20 && defaults.retryBudget == 20 && defaults.maxFailuresInARow == 8)
        func config(_ http: String) throws -> HTTPOptions {
            let yaml = """
                title: T
                http: \(http)
                animations:
                  - id: d
                    bbox: [-10.0, 40.0, 10.0, 52.0]
                    zoom: 4
                    source: { demo: radar }
                    frames: { count: 2 }
                """
            return try ConfigLoader.parse(Data(yaml.utf8), file: "matsite.yml").http
        }
        let options = try config("{ stall_s: 5, retry_budget: 0, max_failures_in_a_row: 3 }")
        #expect(options.stallSeconds == 5 && options.retryBudget == 0 && options.maxFailuresInARow == 3)
        #expect(try config("{}") == defaults)
        let error = #expect(throws: ConfigError.self) { try config("{ stall_s: 0 }") }
        #expect("\(error.map { "\($0)" } ?? "")".contains("http.stall_s"))
    }
}
