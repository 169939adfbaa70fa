import Foundation
import NIOHTTP1
import Testing

@testable import MatsiteKit

/// The cache's index: what lets an unchanged rebuild know every fresh tile without
/// reading it, and why it can never make the cache give a wrong answer.
@Suite("HTTP cache index")
struct CacheIndexTests {
    static let fresh = HTTPHeaders([("Cache-Control", "max-age=600"), ("ETag", "\"a\"")])

    /// A cache in a new temporary folder.
    static func cache(_ folder: URL, maxSize: Int64 = 1 << 30) -> HTTPCache {
        HTTPCache(directory: folder, maxSize: maxSize, varyHeaders: [:])
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func body(_ n: Int) -> [UInt8] { (0..<(500 + n)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }

    static func entryFile(_ folder: URL) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        return folder.appendingPathComponent(try #require(names.first))
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
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".index").path))

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

    @Test("a damaged or foreign index reads as empty: entries are read the slow way, nothing crashes")
    func damagedIndex() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = "http://127.0.0.1/a"
        let writer = Self.cache(folder)
        writer.store(url, headers: Self.fresh, body: Self.body(1))
        writer.finish()
        let index = folder.appendingPathComponent(".index")
        let good = try Data(contentsOf: index)
        for damaged in [
            Data(), Data("matsite-cache-index 1\n".utf8), good.dropLast(5), Data(repeating: 0xFF, count: good.count),
            Data(good.prefix(16)) + Data(repeating: 0x41, count: 112 * 3),
        ] {
            try damaged.write(to: index)
            let reader = Self.cache(folder)
            // Garbage records name no real entry, so at worst the answer is "unknown".
            #expect(reader.freshDigests([url]) == nil || reader.freshDigests([url]) == [TileDigest(of: Self.body(1))])
            #expect(reader.lookup(url)?.body == Self.body(1))
        }
    }

    @Test("two builds sharing a cache folder: the index ends up knowing what both stored")
    func mergesWithOtherBuilds() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = Self.cache(folder), b = Self.cache(folder)
        a.store("http://127.0.0.1/a", headers: Self.fresh, body: Self.body(1))
        b.store("http://127.0.0.1/b", headers: Self.fresh, body: Self.body(2))
        a.finish()
        b.finish()
        let reader = Self.cache(folder)
        #expect(reader.freshDigests(["http://127.0.0.1/a", "http://127.0.0.1/b"]) == [TileDigest(of: Self.body(1)), TileDigest(of: Self.body(2))])
    }

    @Test("eviction counts the index's own bytes: the folder stays under max_size, oldest entries go first")
    func evictionCountsTheIndex() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seed = Self.cache(folder)
        for i in 0..<4 { seed.store("http://127.0.0.1/\(i)", headers: Self.fresh, body: Self.body(i)) }
        seed.finish()
        let entry = try FileManager.default.attributesOfItem(atPath: Self.entryFile(folder).path)[.size] as? Int ?? 0
        // Room for two entries and their index records, not three.
        let cap = Int64(16 + 2 * (entry + 112) + 60)
        let cache = Self.cache(folder, maxSize: cap)
        cache.store("http://127.0.0.1/new", headers: Self.fresh, body: Self.body(9))
        cache.finish()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let total = try names.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($1).path)[.size] as? Int ?? 0) }
        #expect(total <= cap)
        #expect(names.filter { !$0.hasPrefix(".") }.count == 2)
        #expect(cache.lookup("http://127.0.0.1/new")?.body == Self.body(9), "the entry just stored is the newest")
    }

    @Test("a build that stored, dropped and newly used nothing leaves the index file untouched")
    func idleBuildWritesNothing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = Self.cache(folder)
        writer.store("http://127.0.0.1/a", headers: Self.fresh, body: Self.body(1))
        writer.finish()
        let index = folder.appendingPathComponent(".index")
        let before = try FileManager.default.attributesOfItem(atPath: index.path)
        let reader = Self.cache(folder)
        #expect(reader.freshDigests(["http://127.0.0.1/a"]) != nil)
        reader.finish()
        let after = try FileManager.default.attributesOfItem(atPath: index.path)
        #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)
        #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int)
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
