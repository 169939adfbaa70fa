import Foundation
import GRDB
import NIOHTTP1
import Testing

@testable import MatsiteKit

/// Issue 33 item 4's day of a 5-minute feed, on the cache alone: builds 5 minutes apart on
/// a simulated clock, each knowing its window's last 370 entries fresh from the index and
/// storing 30 new ones (about 3 KB, as the users' tiles). The assertions are about sizes
/// (the cache stays the size of the window when builds evict; without eviction it grows by
/// 30 entries a build); the per-build times are printed as figures, never asserted.
/// `CACHE_BENCH_BUILDS` sets the number of builds (default 120; `bench/cache.sh`: 288, a day).
@Suite("HTTP cache over a day of builds")
struct HTTPCacheGrowthTests {
    static let builds = max(101, ProcessInfo.processInfo.environment["CACHE_BENCH_BUILDS"].flatMap(Int.init) ?? 120)
    static let window = 400
    static let newPerBuild = 30
    static let checkpoints = [10, 100, builds]
    static let headers = HTTPHeaders([("Cache-Control", "max-age=31536000"), ("ETag", "\"t\"")])

    struct Figure {
        var build: Int
        var rows: Int
        var files: Int
        var indexBytes: Int
        var folderBytes: Int
        /// Wall time of a build, median of the last 10.
        var medianMilliseconds: Double
        /// The process's CPU time of a build (all threads), median of the last 10.
        var medianCPUMilliseconds: Double
    }

    @Test("builds of a 5-minute feed: evicting builds keep the cache the size of the window; per-build time printed")
    func dayOfBuilds() throws {
        let evicting = try Self.simulate(evict: true)
        let growing = try Self.simulate(evict: false)
        for (label, figures) in [("evicting (whole builds)", evicting), ("not evicting (shards only)", growing)] {
            for f in figures {
                print(
                    "cache bench, \(label): build \(f.build): \(f.rows) entries, \(f.files) files, index \(f.indexBytes) B,"
                        + " folder \(f.folderBytes) B, \(String(format: "%.1f", f.medianMilliseconds)) ms a build,"
                        + " CPU \(String(format: "%.1f", f.medianCPUMilliseconds)) ms (medians of 10)")
            }
        }
        let (at100, last) = (evicting[1], evicting[2])
        #expect(last.rows == at100.rows, "steady: as many entries at the last build as at build 100")
        // An entry goes once unused for the grace and the index's resolution of last uses.
        let kept = Int((HTTPCache.evictionGrace + CacheIndex.useResolution) / 300) + 1
        #expect(last.rows <= Self.window + kept * Self.newPerBuild, "the window and the grace's builds, no more")
        #expect(last.files == last.rows)
        #expect(last.indexBytes <= 2 * at100.indexBytes)
        #expect(growing[2].rows == Self.builds * Self.newPerBuild)
        #expect(growing[2].files == growing[2].rows)
    }

    static func simulate(evict: Bool) throws -> [Figure] {
        let folder = try CacheIndexTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date().timeIntervalSince1970
        var stored: [String] = []
        var times: [(wall: Double, cpu: Double)] = []
        var figures: [Figure] = []
        for build in 1...builds {
            let now = Date(timeIntervalSince1970: start + Double(build) * 300)
            let began = DispatchTime.now().uptimeNanoseconds, beganCPU = cpuNanoseconds()
            let cache = HTTPCache(directory: folder, maxSize: 2 << 30, varyHeaders: [:], clock: { now })
            let known = Array(stored.suffix(window - newPerBuild))
            if !known.isEmpty {
                let digests = cache.freshDigests(known, now: now)
                try #require(digests?.count == known.count, "build \(build): the window is known from the index")
            }
            for i in 0..<newPerBuild {
                let url = "http://127.0.0.1/t/\(build)/\(i)"
                cache.store(url, headers: headers, body: body(build * 100 + i))
                stored.append(url)
            }
            cache.finish(evictUnusedOlderThan: evict ? HTTPCache.evictionGrace : nil)
            times.append((Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6, Double(cpuNanoseconds() - beganCPU) / 1e6))
            guard checkpoints.contains(build) else { continue }
            let recent = times.suffix(10).map(\.wall).sorted(), recentCPU = times.suffix(10).map(\.cpu).sorted()
            figures.append(
                Figure(
                    build: build, rows: try CacheIndexTests.rowCount(folder), files: CacheBench.entryFiles(in: folder).count,
                    indexBytes: Int(CacheFolder(folder).indexBytes()), folderBytes: CacheBench.folderSize(folder),
                    medianMilliseconds: recent[recent.count / 2], medianCPUMilliseconds: recentCPU[recentCPU.count / 2]))
        }
        return figures
    }

    /// CPU time of the whole process (the index's queue runs on threads of its own).
    static func cpuNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// About 3 KB, different for each `seed`.
    static func body(_ seed: Int) -> [UInt8] {
        (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ seed &* 7 &+ $0 >> 8) }
    }
}
