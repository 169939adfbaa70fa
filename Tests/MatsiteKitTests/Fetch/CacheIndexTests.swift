import Foundation
import GRDB
import NIOHTTP1
import Testing

@testable import MatsiteKit

/// The cache's index: what lets an unchanged rebuild know every fresh tile without
/// reading it, and why it can never make the cache give a wrong answer.
@Suite("HTTP cache index")
struct CacheIndexTests {
    static let fresh = HTTPHeaders([("Cache-Control", "max-age=600"), ("ETag", "\"a\"")])

    /// A cache in `folder`; `at` fixes its clock (seconds since 1970).
    static func cache(_ folder: URL, maxSize: Int64 = 1 << 30, at: Double? = nil) -> HTTPCache {
        HTTPCache(directory: folder, maxSize: maxSize, varyHeaders: [:], clock: { at.map(Date.init(timeIntervalSince1970:)) ?? Date() })
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func body(_ n: Int) -> [UInt8] { (0..<(500 + n)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }

    static func entryFile(_ folder: URL) throws -> URL {
        try #require(CacheBench.entryFiles(in: folder).first)
    }

    @Test("fresh entries are known by digest without reading them, in this process and the next")
    func digestsAcrossProcesses() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Self.cache(folder)
        first.store("http://127.0.0.1/a", headers: Self.fresh, body: Self.body(1))
        first.store("http://127.0.0.1/b", headers: Self.fresh, body: Self.body(2))
        #expect(first.freshDigests(["http://127.0.0.1/a", "http://127.0.0.1/b"]) == [TileDigest(of: Self.body(1)), TileDigest(of: Self.body(2))])
        first.finish()
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.sqlite").path))

        // A new cache object reads only the index (a later build).
        let second = Self.cache(folder)
        #expect(second.freshDigests(["http://127.0.0.1/b", "http://127.0.0.1/a"]) == [TileDigest(of: Self.body(2)), TileDigest(of: Self.body(1))])
        // One unknown URL, and the batch is unknown.
        #expect(second.freshDigests(["http://127.0.0.1/a", "http://127.0.0.1/c"]) == nil)
    }

    @Test("an entry that must be revalidated (max-age=0, no-cache) or has expired has no fresh digest")
    func staleHasNoDigest() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = Self.cache(folder)
        cache.store("http://127.0.0.1/zero", headers: HTTPHeaders([("Cache-Control", "max-age=0"), ("ETag", "\"z\"")]), body: Self.body(3))
        cache.store("http://127.0.0.1/nc", headers: HTTPHeaders([("Cache-Control", "no-cache, max-age=600")]), body: Self.body(4))
        cache.store("http://127.0.0.1/ten", headers: HTTPHeaders([("Cache-Control", "max-age=10")]), body: Self.body(5))
        #expect(cache.freshDigests(["http://127.0.0.1/zero"]) == nil)
        #expect(cache.freshDigests(["http://127.0.0.1/nc"]) == nil)
        #expect(cache.freshDigests(["http://127.0.0.1/ten"]) != nil)
        #expect(cache.freshDigests(["http://127.0.0.1/ten"], now: Date().addingTimeInterval(11)) == nil)
    }

    @Test("an entry file changed or replaced after indexing is not trusted; reading it verifies and re-indexes it")
    func changedFileIsNotTrusted() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = "http://127.0.0.1/a"
        Self.cache(folder).store(url, headers: Self.fresh, body: Self.body(1))
        let writer = Self.cache(folder)
        writer.store(url, headers: Self.fresh, body: Self.body(1))
        writer.finish()
        let file = try Self.entryFile(folder)

        // Same bytes written again (new mtime): the index no longer speaks for it.
        let bytes = try Data(contentsOf: file)
        try bytes.write(to: file)
        let reader = Self.cache(folder)
        #expect(reader.freshDigests([url]) == nil)
        // The slow way reads, verifies and re-indexes it: the next question is answered fast.
        #expect(reader.lookup(url)?.body == Self.body(1))
        #expect(reader.freshDigests([url]) == [TileDigest(of: Self.body(1))])

        // Deleted: unknown, and a lookup is a miss.
        try FileManager.default.removeItem(at: file)
        #expect(reader.freshDigests([url]) == nil)
        #expect(reader.lookup(url) == nil)
    }

    @Test("a damaged, foreign or removed index is rebuilt from the entry files: no wrong answer, no crash")
    func damagedIndex() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = "http://127.0.0.1/a"
        let writer = Self.cache(folder)
        writer.store(url, headers: Self.fresh, body: Self.body(1))
        writer.finish()
        let index = folder.appendingPathComponent("index.sqlite")
        let good = try Data(contentsOf: index)
        for damaged in [
            nil, Data(), Data("matsite-cache-index 1\n".utf8), good.prefix(good.count / 2), Data(repeating: 0xFF, count: good.count),
            good.prefix(100) + Data(repeating: 0x41, count: good.count - 100),
        ] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index.path + suffix) }
            if let damaged { try damaged.write(to: index) }
            let reader = Self.cache(folder)
            // At worst the answer is "unknown" and the entry is read the slow way.
            let digests = reader.freshDigests([url])
            #expect(digests == nil || digests == [TileDigest(of: Self.body(1))])
            #expect(reader.lookup(url)?.body == Self.body(1))
            reader.finish()
            // Rebuilt: the next build knows the entry without reading it.
            #expect(Self.cache(folder).freshDigests([url]) == [TileDigest(of: Self.body(1))], "\(damaged?.count ?? -1) bytes")
            #expect(try Self.rowCount(folder) == 1)
        }
    }

    /// Rows of the index's entry table, read with GRDB directly.
    static func rowCount(_ folder: URL) throws -> Int {
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("index.sqlite").path)
        return try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM entry") ?? -1 }
    }

    @Test("two caches writing one folder at once (several transactions each) lose nothing")
    func twoCachesAtOnce() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = Self.cache(folder), b = Self.cache(folder)
        // More than a batch each, so that both write transactions while the other is open.
        let count = 2 * CacheIndex.batchSize + 40
        let urls = (0..<2).map { side in (0..<count).map { "http://127.0.0.1/\(side)/\($0)" } }
        await withTaskGroup(of: Void.self) { group in
            for (side, cache) in [a, b].enumerated() {
                group.addTask {
                    for (i, url) in urls[side].enumerated() { cache.store(url, headers: Self.fresh, body: Self.body(i % 50)) }
                    cache.finish(evictUnusedOlderThan: HTTPCache.evictionGrace)
                }
            }
        }
        let reader = Self.cache(folder)
        for side in 0..<2 {
            #expect(reader.freshDigests(urls[side]) == (0..<count).map { TileDigest(of: Self.body($0 % 50)) })
        }
        #expect(try Self.rowCount(folder) == 2 * count)
        #expect(CacheBench.entryFiles(in: folder).count == 2 * count)
    }

    @Test("max_size counts the index's own bytes: the folder stays under it, least recently used entries go first")
    func maxSizeCountsTheIndex() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date().timeIntervalSince1970
        let seed = Self.cache(folder, at: start)
        for i in 0..<4 { seed.store("http://127.0.0.1/\(i)", headers: Self.fresh, body: Self.body(i)) }
        seed.finish()
        // Entry 3 used later than 0-2 (by more than the index's resolution): the one to keep.
        let user = Self.cache(folder, at: start + 2 * CacheIndex.useResolution)
        #expect(user.lookup("http://127.0.0.1/3") != nil)
        user.finish()
        let entry = try FileManager.default.attributesOfItem(atPath: Self.entryFile(folder).path)[.size] as? Int ?? 0
        // Room for the index and two entries, not three.
        let cap = Int64(CacheBench.folderSize(folder) - 4 * entry + 2 * entry + entry / 2)
        let cache = Self.cache(folder, maxSize: cap, at: start + 3 * CacheIndex.useResolution)
        cache.store("http://127.0.0.1/new", headers: Self.fresh, body: Self.body(9))
        cache.finish()
        #expect(CacheBench.folderSize(folder) <= cap)
        #expect(CacheBench.entryFiles(in: folder).count == 2)
        #expect(try Self.rowCount(folder) == 2)
        let reader = Self.cache(folder)
        #expect(reader.lookup("http://127.0.0.1/new")?.body == Self.body(9), "the entry just stored is the newest")
        #expect(reader.lookup("http://127.0.0.1/3")?.body == Self.body(3), "the entry used last stays")
    }

    @Test("a build that stored, dropped and newly used nothing writes nothing to the index, and evicts nothing it used")
    func idleBuildWritesNothing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = Self.cache(folder)
        writer.store("http://127.0.0.1/a", headers: Self.fresh, body: Self.body(1))
        writer.finish()
        let index = folder.appendingPathComponent("index.sqlite")
        let before = try FileManager.default.attributesOfItem(atPath: index.path)
        let reader = Self.cache(folder)
        #expect(reader.freshDigests(["http://127.0.0.1/a"]) != nil)
        reader.finish(evictUnusedOlderThan: HTTPCache.evictionGrace)
        #expect(reader.indexWrites == 0)
        let after = try FileManager.default.attributesOfItem(atPath: index.path)
        #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)
        #expect(after[.size] as? Int == before[.size] as? Int)
        #expect(try Self.rowCount(folder) == 1)
    }

    @Test("temporary files a killed build left behind are removed once they are an hour old, not while fresh")
    func staleTemporaryFilesGo() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let old = folder.appendingPathComponent(".tmp-killed"), fresh = folder.appendingPathComponent(".tmp-writing")
        try Data([1, 2, 3]).write(to: old)
        try Data([1, 2, 3]).write(to: fresh)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: old.path)
        let cache = Self.cache(folder)
        cache.store("http://127.0.0.1/a", headers: Self.fresh, body: Self.body(1))
        cache.finish()
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
    }
}
