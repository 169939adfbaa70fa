import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// The tile cache over a real server on 127.0.0.1 that counts requests and serves
/// validators: what a cron rebuild costs the tile server, and what it rewrites.
@Suite("HTTP tile cache and incremental builds")
struct HTTPCacheTests {
    @Test("a second build with nothing changed downloads no tile body, only 304s, and replaces nothing")
    func unchangedRebuildRevalidates() async throws {
        let bench = try await CacheBench.start(etag: true)
        defer { bench.close() }
        let first = try await bench.build()
        #expect(!first.unchanged)
        #expect(bench.tileRequests.count == 2 * CacheBench.tilesPerFrame)
        let hashes = try bench.site.fileHashes()
        let inodes = try bench.outputInodes()
        bench.server.resetCounts()

        let second = try await bench.build()
        let requests = bench.tileRequests
        #expect(requests.count == 2 * CacheBench.tilesPerFrame)
        // Every request was conditional, with the validator the server gave.
        for request in requests {
            let time = request.path.split(separator: "/")[1]
            #expect(request.header("If-None-Match") == "\"\(time)\"", "\(request.path)")
        }
        #expect(second.notModified == requests.count)
        #expect(second.bytesFetched == 0)
        #expect(second.unchanged)
        #expect(second.framesReused == 2)
        #expect(try bench.site.fileHashes() == hashes)
        #expect(try bench.outputInodes() == inodes, "an unchanged build must not replace any file")
    }

    @Test("an entry with only Last-Modified is revalidated with If-Modified-Since and reused on 304")
    func lastModifiedRevalidates() async throws {
        let stamp = "Sat, 21 Nov 2026 09:00:00 GMT"
        let bench = try await CacheBench.start(etag: false, lastModified: stamp, cacheControl: "max-age=0")
        defer { bench.close() }
        try await bench.build()
        bench.server.resetCounts()
        let second = try await bench.build()
        let requests = bench.tileRequests
        #expect(requests.count == 2 * CacheBench.tilesPerFrame)
        #expect(requests.allSatisfy { $0.header("If-Modified-Since") == stamp && $0.header("If-None-Match") == nil })
        #expect(second.notModified == requests.count)
        #expect(second.bytesFetched == 0)
        #expect(second.unchanged)
    }

    @Test("entries fresh by Cache-Control: max-age=600 cause no request at all")
    func freshEntriesMakeNoRequest() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build()
        #expect(bench.cacheEntries().count == 2 * CacheBench.tilesPerFrame)
        bench.server.resetCounts()
        let second = try await bench.build()
        #expect(bench.server.totalRequestCount == 0)
        #expect(second.requests == 0)
        #expect(second.unchanged)
    }

    @Test("a response as old as its max-age (Age header from a CDN) is revalidated by the next build, and a 304 without Age makes it fresh")
    func ageMakesStale() async throws {
        let bench = try await CacheBench.start(etag: true, cacheControl: "max-age=600")
        defer { bench.close() }
        // The first answers come with Age: 600, the later ones (304s) without.
        let tile = CacheBench.solidTile(seed: "aged")
        bench.server.route(
            prefix: "/t/",
            .dynamic { request in
                .ok(
                    tile, contentType: "image/png", etag: "\"a\"", cacheControl: "max-age=600",
                    headers: request.header("If-None-Match") == nil ? [("Age", "600")] : [])
            })
        try await bench.build()
        bench.server.resetCounts()
        let second = try await bench.build()
        #expect(bench.tileRequests.count == 2 * CacheBench.tilesPerFrame)
        #expect(second.notModified == 2 * CacheBench.tilesPerFrame)
        bench.server.resetCounts()
        try await bench.build()
        #expect(bench.server.totalRequestCount == 0)
    }

    @Test("no-store responses are never cached: every build requests every tile again")
    func noStoreIsNeverCached() async throws {
        let bench = try await CacheBench.start(etag: true, cacheControl: "no-store, max-age=600")
        defer { bench.close() }
        for _ in 0..<2 {
            bench.server.resetCounts()
            let summary = try await bench.build()
            #expect(bench.tileRequests.count == 2 * CacheBench.tilesPerFrame)
            #expect(bench.tileRequests.allSatisfy { $0.header("If-None-Match") == nil })
            #expect(summary.notModified == 0)
            #expect(summary.bytesFetched > 0)
            #expect(bench.cacheEntries().isEmpty)
        }
    }

    @Test("no-cache entries are revalidated on every build, even with a max-age")
    func noCacheAlwaysRevalidates() async throws {
        let bench = try await CacheBench.start(etag: true, cacheControl: "no-cache, max-age=600")
        defer { bench.close() }
        try await bench.build()
        #expect(bench.cacheEntries().count == 2 * CacheBench.tilesPerFrame)
        for _ in 0..<2 {
            bench.server.resetCounts()
            let summary = try await bench.build()
            #expect(bench.tileRequests.count == 2 * CacheBench.tilesPerFrame)
            #expect(bench.tileRequests.allSatisfy { $0.header("If-None-Match") != nil })
            #expect(summary.notModified == 2 * CacheBench.tilesPerFrame)
            #expect(summary.bytesFetched == 0)
            #expect(summary.unchanged)
        }
    }

    @Test("a corrupted or truncated cache file is detected, dropped and fetched again; frames stay identical")
    func corruptEntriesAreRefetched() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build()
        let hashes = try bench.site.fileHashes()
        let entries = bench.cacheEntries()
        try #require(entries.count == 2 * CacheBench.tilesPerFrame)
        // One entry gets bytes flipped near its end (in the body), another loses its tail.
        var flipped = try [UInt8](Data(contentsOf: entries[0]))
        for i in (flipped.count - 40)..<(flipped.count - 30) { flipped[i] ^= 0xFF }
        try Data(flipped).write(to: entries[0])
        let whole = try Data(contentsOf: entries[1])
        try whole.prefix(whole.count / 2).write(to: entries[1])
        bench.server.resetCounts()

        let second = try await bench.build()
        // Exactly the two damaged tiles were fetched again, unconditionally.
        #expect(bench.tileRequests.count == 2)
        #expect(bench.tileRequests.allSatisfy { $0.header("If-None-Match") == nil })
        #expect(second.bytesFetched > 0)
        #expect(second.unchanged)
        #expect(try bench.site.fileHashes() == hashes)
        // Both entries were rewritten whole: a third build asks for nothing.
        bench.server.resetCounts()
        try await bench.build()
        #expect(bench.server.totalRequestCount == 0)
    }

    @Test("a damaged header line is dropped too, and the build still succeeds")
    func corruptHeaderIsRefetched() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build()
        let hashes = try bench.site.fileHashes()
        let entry = try #require(bench.cacheEntries().first)
        var bytes = try [UInt8](Data(contentsOf: entry))
        for i in 0..<8 { bytes[i] = 0x7E }
        try Data(bytes).write(to: entry)
        bench.server.resetCounts()
        try await bench.build()
        #expect(bench.tileRequests.count == 1)
        #expect(try bench.site.fileHashes() == hashes)
    }

    @Test("a new time adds exactly that frame's tile requests, keeps the other frames' files and removes the one that left")
    func rollingWindow() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build(times: [0, 10, 20])
        let before = try bench.publishedFrames()
        try #require(before.count == 3)
        let leaving = try #require(before[CacheBench.iso(0)])
        bench.server.resetCounts()

        let summary = try await bench.build(times: [10, 20, 30])
        // Only the new time's tiles were asked for, each once.
        let paths = bench.tileRequests.map(\.path)
        #expect(paths.count == CacheBench.tilesPerFrame)
        #expect(Set(paths).count == CacheBench.tilesPerFrame)
        #expect(paths.allSatisfy { $0.hasPrefix(CacheBench.tilePrefix(30)) })
        #expect(summary.framesReused == 2)
        #expect(!summary.unchanged)

        let after = try bench.publishedFrames()
        #expect(after.keys.sorted() == [10, 20, 30].map { CacheBench.iso($0) })
        for minutes in [10, 20] {
            let time = CacheBench.iso(minutes)
            let old = try #require(before[time]), new = try #require(after[time])
            #expect(new.url == old.url, "\(time) keeps its name: frames are named by their content, not their position")
            #expect(new.inode == old.inode, "\(time) must be the same file (hard link), not stitched again")
            #expect(new.sha256 == old.sha256)
        }
        // The folder holds exactly the manifest's frames: the one that left is gone.
        #expect(try bench.frameFiles() == after.values.map { String($0.url.dropFirst("frames/".count)) }.sorted())
        #expect(!after.values.contains { $0.sha256 == leaving.sha256 })
        try expectValidSite(bench.site.output)
    }

    @Test("--no-cache requests every tile without validators and writes no cache")
    func noCacheOption() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        // A project never built with the cache: no folder appears.
        let summary = try await bench.build(useCache: false)
        #expect(summary.requests == 2 * CacheBench.tilesPerFrame)
        #expect(!FileManager.default.fileExists(atPath: bench.cacheFolder.path))

        // A warm cache is neither used nor touched.
        try await bench.build()
        let entries = bench.cacheEntries()
        let stamps = try entries.map { try FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date }
        bench.server.resetCounts()
        try await bench.build(useCache: false)
        #expect(bench.tileRequests.count == 2 * CacheBench.tilesPerFrame)
        #expect(bench.tileRequests.allSatisfy { $0.header("If-None-Match") == nil })
        #expect(bench.cacheEntries() == entries)
        #expect(try entries.map { try FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date } == stamps)
    }

    @Test("a small cache.max_size leaves the cache folder under the cap after the build")
    func maxSizeTrims() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        // Entries here are about 2 KB each: room for the index and two of them.
        try await bench.build(times: [0, 10, 20])
        let entry = try bench.cacheEntries().map { try #require(FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) }.max() ?? 0
        let index = try #require(FileManager.default.attributesOfItem(atPath: bench.cacheFolder.path + "/index.sqlite")[.size] as? Int)
        try FileManager.default.removeItem(at: bench.cacheFolder)
        let cap = index + 2 * entry + entry / 2
        let cache = "{ path: \(bench.cacheFolder.path), max_size: \(cap)B }"
        try await bench.build(times: [0, 10, 20], cache: cache)
        let entries = bench.cacheEntries()
        #expect(!entries.isEmpty && entries.count < 3 * CacheBench.tilesPerFrame)
        #expect(bench.cacheFolderSize() <= cap)
        // What is left is intact: those tiles are not asked for again.
        bench.server.resetCounts()
        try await bench.build(times: [0, 10, 20], cache: cache)
        #expect(bench.tileRequests.count == 3 * CacheBench.tilesPerFrame - entries.count)
        #expect(bench.cacheFolderSize() <= cap)
    }

    @Test("the configured request headers are part of the cache key")
    func headersChangeTheKey() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build()
        bench.server.resetCounts()
        var options = BuildOptions()
        options.lockWait = TestSite.lockWait
        let yaml = bench.yaml(times: [0, 10]).replacingOccurrences(of: "http: {", with: "http: { headers: { Referer: \"https://example.org/\" },")
        _ = try await Builder(config: bench.site.config(yaml), options: options).run()
        #expect(bench.tileRequests.count == 2 * CacheBench.tilesPerFrame)
        #expect(bench.tileRequests.allSatisfy { $0.header("Referer") == "https://example.org/" && $0.header("If-None-Match") == nil })
    }

    @Test("a build that fetches nothing over HTTP leaves no cache folder behind")
    func offlineBuildMakesNoCacheFolder() async throws {
        let site = try TestSite()
        defer { site.remove() }
        var options = BuildOptions()
        options.lockWait = TestSite.lockWait
        let yaml = site.yaml(
            """
              - id: demo
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                source: { demo: radar }
                frames: { count: 2 }
            """)
        _ = try await Builder(config: site.config(yaml), options: options).run()
        try expectValidSite(site.output)
        #expect(!FileManager.default.fileExists(atPath: site.root.appendingPathComponent("cache").path))
    }
}

extension HTTPCacheTests {
    @Test("an unchanged rebuild with fresh entries reads no cache entry; the first build that needs one still checks it")
    func freshEntriesAreNotRead() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        // Builds compared file for file share one clock (manifests say it as `now`).
        let clock = TimeInstant(millisecondsSinceEpoch: 1_795_867_200_000)
        try await bench.build(at: clock)
        let hashes = try bench.site.fileHashes()
        // Damage one entry's body in place and put its modification time back: only reading
        // the entry (and its checksum) could notice.
        let entry = try #require(bench.cacheEntries().first)
        var status = stat()
        try #require(stat(entry.path, &status) == 0)
        let handle = try FileHandle(forUpdating: entry)
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size - 20)
        try handle.write(contentsOf: Data(repeating: 0x55, count: 10))
        try handle.close()
        var times = [status.st_atim, status.st_mtim]
        try #require(utimensat(AT_FDCWD, entry.path, &times, 0) == 0)
        bench.server.resetCounts()

        let second = try await bench.build(at: clock)
        #expect(bench.server.totalRequestCount == 0)
        #expect(second.unchanged)
        #expect(second.framesReused == 2)

        // Without the old site every frame is stitched: the damaged entry is read, fails its
        // checksum and is fetched again; the frames come out as before.
        try FileManager.default.removeItem(at: bench.site.output)
        bench.server.resetCounts()
        let third = try await bench.build(at: clock)
        #expect(bench.tileRequests.count == 1)
        #expect(third.framesReused == 0)
        #expect(try bench.site.fileHashes() == hashes)
    }

    @Test("a 304 with the validators already stored leaves the entry file alone; a 304 that extends freshness spares the next build its requests")
    func notModifiedDoesNotRewriteEntries() async throws {
        let bench = try await CacheBench.start(etag: true)
        defer { bench.close() }
        // No freshness at first: every build revalidates.
        try await bench.build()
        let stamps = try bench.cacheEntries().map { try FileManager.default.attributesOfItem(atPath: $0.path) }
            .map { [$0[.modificationDate] as? Date as Any, $0[.systemFileNumber] as? Int as Any].description }
        bench.server.resetCounts()
        let second = try await bench.build()
        #expect(second.notModified == 2 * CacheBench.tilesPerFrame)
        let after = try bench.cacheEntries().map { try FileManager.default.attributesOfItem(atPath: $0.path) }
            .map { [$0[.modificationDate] as? Date as Any, $0[.systemFileNumber] as? Int as Any].description }
        #expect(after == stamps)

        // A server whose 304s (not its 200s) grant ten minutes: the build after the first
        // revalidation asks nothing, though the entry files still say "stale".
        let tile = CacheBench.solidTile(seed: "fixed")
        bench.server.route(
            prefix: "/t/",
            .dynamic { request in
                .ok(tile, contentType: "image/png", etag: "\"fixed\"", cacheControl: request.header("If-None-Match") == "\"fixed\"" ? "max-age=600" : nil)
            })
        try await bench.build()
        bench.server.resetCounts()
        let revalidated = try await bench.build()
        #expect(revalidated.notModified == 2 * CacheBench.tilesPerFrame)
        bench.server.resetCounts()
        try await bench.build()
        #expect(bench.server.totalRequestCount == 0)
    }

}
