import Foundation
import GRDB
import NIOHTTP1
import Testing

@testable import MatsiteKit

/// What keeps the cache the size of the work: a whole build's eviction of what no build
/// used, and the move from the flat layout of earlier versions.
@Suite("HTTP cache eviction and layout")
struct HTTPCacheEvictionTests {
    static let fresh = CacheIndexTests.fresh
    static let hour: Double = 3600

    static func cache(_ folder: URL, at: Double) -> HTTPCache {
        CacheIndexTests.cache(folder, at: at)
    }

    static func body(_ n: Int) -> [UInt8] { CacheIndexTests.body(n) }

    @Test("a whole build deletes what it did not use and no build used within the grace; what it used stays; a shard evicts nothing")
    func evictsUnusedEntries() throws {
        let folder = try CacheIndexTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date().timeIntervalSince1970
        let seed = Self.cache(folder, at: start)
        for name in ["old", "used", "stored-again", "recent"] { seed.store("http://127.0.0.1/\(name)", headers: Self.fresh, body: Self.body(name.count)) }
        seed.finish()
        // Another build (a concurrent shard) used "recent" 30 min before the last one.
        let other = Self.cache(folder, at: start + 1.5 * Self.hour)
        #expect(other.lookup("http://127.0.0.1/recent") != nil)
        other.finish()

        // A shard two hours later uses "used" only: it evicts nothing.
        let shard = Self.cache(folder, at: start + 2 * Self.hour)
        #expect(shard.lookup("http://127.0.0.1/used") != nil)
        shard.finish()
        #expect(CacheBench.entryFiles(in: folder).count == 4)

        // A whole build two hours later: "old" goes (file and row), the rest stays.
        let whole = Self.cache(folder, at: start + 2 * Self.hour)
        #expect(whole.freshDigests(["http://127.0.0.1/used"], now: Date(timeIntervalSince1970: start + 100)) != nil)
        whole.store("http://127.0.0.1/stored-again", headers: Self.fresh, body: Self.body(99))
        whole.store("http://127.0.0.1/new", headers: Self.fresh, body: Self.body(7))
        whole.finish(evictUnusedOlderThan: Self.hour)
        #expect(CacheBench.entryFiles(in: folder).count == 4)
        #expect(try CacheIndexTests.rowCount(folder) == 4)
        let reader = Self.cache(folder, at: start + 2 * Self.hour)
        #expect(reader.lookup("http://127.0.0.1/old") == nil)
        #expect(reader.lookup("http://127.0.0.1/used")?.body == Self.body(4))
        #expect(reader.lookup("http://127.0.0.1/stored-again")?.body == Self.body(99))
        #expect(reader.lookup("http://127.0.0.1/recent")?.body == Self.body(6))
        #expect(reader.lookup("http://127.0.0.1/new")?.body == Self.body(7))
    }

    @Test("a build longer than the grace keeps every entry it used, even one whose last use it recorded at its start")
    func longBuildKeepsWhatItUsed() throws {
        let folder = try CacheIndexTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date().timeIntervalSince1970
        let seed = Self.cache(folder, at: start)
        seed.store("http://127.0.0.1/a", headers: Self.fresh, body: Self.body(1))
        seed.store("http://127.0.0.1/b", headers: Self.fresh, body: Self.body(2))
        seed.finish()
        let clock = LockedBox(start)
        let build = HTTPCache(
            directory: folder, maxSize: 1 << 30, varyHeaders: [:], clock: { Date(timeIntervalSince1970: clock.withLock { $0 }) })
        #expect(build.lookup("http://127.0.0.1/a") != nil)
        clock.withLock { $0 = start + 3 * Self.hour }
        build.finish(evictUnusedOlderThan: Self.hour)
        #expect(CacheBench.entryFiles(in: folder).count == 1)
        #expect(Self.cache(folder, at: start).lookup("http://127.0.0.1/a")?.body == Self.body(1))
    }

    @Test("a flat cache of earlier versions is moved into shard folders on first use: its entries answer, its .index goes, unused ones age out")
    func migratesTheFlatLayout() throws {
        let folder = try CacheIndexTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The flat layout: entry files (same format) in the folder itself, and a binary .index.
        let start = Date().timeIntervalSince1970
        let writer = Self.cache(folder, at: start)
        for i in 0..<3 { writer.store("http://127.0.0.1/\(i)", headers: Self.fresh, body: Self.body(i)) }
        writer.finish()
        let files = CacheBench.entryFiles(in: folder)
        for file in files { try FileManager.default.moveItem(at: file, to: folder.appendingPathComponent(file.lastPathComponent)) }
        for file in files { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.path + "/index.sqlite" + suffix) }
        let legacy = folder.appendingPathComponent(".index")
        try Data(Array("matsite-index".utf8) + [2, 0, 0] + [UInt8](repeating: 7, count: 112)).write(to: legacy)
        // Entry 2 was last written two hours ago.
        let flat = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.count == 64 }
        try #require(flat.count == 3)
        let stale = Self.key("http://127.0.0.1/2")
        try #require(flat.contains(stale))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: start - 2 * Self.hour)], ofItemAtPath: folder.path + "/" + stale)

        let build = Self.cache(folder, at: start)
        // Not yet verified: no digest from the index, but a lookup reads and verifies.
        #expect(build.freshDigests(["http://127.0.0.1/0"]) == nil)
        #expect(build.lookup("http://127.0.0.1/0")?.body == Self.body(0))
        #expect(build.lookup("http://127.0.0.1/1")?.body == Self.body(1))
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.count == 64 }.isEmpty)
        build.finish(evictUnusedOlderThan: Self.hour)
        // The unused entry older than the grace went; the others are indexed.
        #expect(CacheBench.entryFiles(in: folder).count == 2)
        let next = Self.cache(folder, at: start)
        #expect(next.freshDigests(["http://127.0.0.1/0", "http://127.0.0.1/1"]) == [TileDigest(of: Self.body(0)), TileDigest(of: Self.body(1))])
        #expect(next.lookup("http://127.0.0.1/2") == nil)
    }

    @Test("an entry file without a row (a killed build's) gets one at the daily sweep and then ages out like the rest")
    func sweepsEntriesWithoutRows() throws {
        let folder = try CacheIndexTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date().timeIntervalSince1970
        let seed = Self.cache(folder, at: start)
        seed.store("http://127.0.0.1/kept", headers: Self.fresh, body: Self.body(1))
        seed.store("http://127.0.0.1/orphan", headers: Self.fresh, body: Self.body(2))
        seed.finish()
        let queue = try DatabaseQueue(path: folder.path + "/index.sqlite")
        try queue.write { try $0.execute(sql: "DELETE FROM entry WHERE name = ?", arguments: [Data(Hex.decode(Self.key("http://127.0.0.1/orphan"))!)]) }
        try queue.close()
        let orphan = folder.path + "/" + CacheFolder.relativePath(Self.key("http://127.0.0.1/orphan"))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: start - 2 * Self.hour)], ofItemAtPath: orphan)

        // Within a day of the last sweep nothing looks for it.
        let soon = Self.cache(folder, at: start + 2 * Self.hour)
        #expect(soon.lookup("http://127.0.0.1/kept") != nil)
        soon.finish(evictUnusedOlderThan: Self.hour)
        #expect(FileManager.default.fileExists(atPath: orphan))
        // A day later the sweep finds it, dated by its file, and it goes.
        let later = Self.cache(folder, at: start + 26 * Self.hour)
        #expect(later.lookup("http://127.0.0.1/kept") != nil)
        later.finish(evictUnusedOlderThan: Self.hour)
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(CacheBench.entryFiles(in: folder).count == 1)
    }

    /// The entry name of `url` in a cache without configured headers.
    static func key(_ url: String) -> String {
        SHA256.hex(of: url + "\n")
    }
}

extension HTTPCacheEvictionTests {
    @Test("builds over a real server: a whole build evicts the tiles of the frame that left the window once unused past the grace; a shard build does not")
    func buildsEvictFramesThatLeft() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build(times: [0, 10])
        #expect(bench.cacheEntries().count == 2 * CacheBench.tilesPerFrame)
        // Two hours pass (the index's last uses are moved back).
        let queue = try DatabaseQueue(path: bench.cacheFolder.path + "/index.sqlite")
        try await queue.write { try $0.execute(sql: "UPDATE entry SET last_used = last_used - 7200") }
        try queue.close()

        // A shard building the moved window stores the new frame's tiles and deletes nothing.
        var options = BuildOptions()
        options.lockWait = TestSite.lockWait
        options.only = ["loop"]
        _ = try await Builder(config: bench.site.config(bench.yaml(times: [10, 20])), options: options).run()
        #expect(bench.cacheEntries().count == 3 * CacheBench.tilesPerFrame)

        // The whole build of the same window: time 0's tiles go, the window's stay.
        bench.server.resetCounts()
        try await bench.build(times: [10, 20])
        #expect(bench.tileRequests.isEmpty)
        #expect(bench.cacheEntries().count == 2 * CacheBench.tilesPerFrame)
        bench.server.resetCounts()
        try await bench.build(times: [0, 10, 20])
        #expect(bench.tileRequests.count == CacheBench.tilesPerFrame)
        #expect(bench.tileRequests.allSatisfy { $0.path.hasPrefix(CacheBench.tilePrefix(0)) })
    }
}

extension HTTPCacheEvictionTests {
    @Test("two matsite processes building into one cache folder at once lose nothing: every tile indexed once, a third build asks for nothing")
    func twoProcessesShareTheCache() async throws {
        // Answers held back 20 ms, so the two builds' fetches and index writes overlap.
        let bench = try await CacheBench.start(cacheControl: "max-age=600", delay: .milliseconds(20))
        defer { bench.close() }
        let times = Array(stride(from: 0, to: 120, by: 10))
        let config = bench.site.root.appendingPathComponent("matsite.yml")
        try Data(bench.yaml(times: times).utf8).write(to: config)
        let builds = try ["one", "two"].map { name in
            try CLI.Background(
                ["build", "--quiet", "--config", config.path, "--output", bench.site.root.appendingPathComponent(name).path], in: bench.site.root)
        }
        for build in builds {
            build.wait()
            #expect(build.status == 0, "\(build.err)")
        }
        let tiles = times.count * CacheBench.tilesPerFrame
        #expect(bench.cacheEntries().count == tiles)
        let queue = try DatabaseQueue(path: bench.cacheFolder.path + "/index.sqlite")
        let (rows, indexed) = try await queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? 0, try Int.fetchOne(db, sql: "SELECT count(sha256) FROM entry") ?? 0)
        }
        try queue.close()
        #expect(rows == tiles)
        #expect(indexed == tiles)
        bench.server.resetCounts()
        try await bench.build(times: times)
        #expect(bench.tileRequests.isEmpty)
    }
}
