// Helpers for the cache and incremental-build tests: a TestServer serving timed tiles with
// validators, a project whose builds use the tile cache (TestSite's own builds do not),
// and readers for the cache folder and the published frames.

import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// One project over one TestServer. Tiles live at `/t/<time>/<z>/<x>/<y>.png`; each
/// time's tiles are a solid colour of their own (unless `alike` gives two times one), so
/// frames of different times differ.
final class CacheBench: Sendable {
    let server: TestServer
    let site: TestSite

    /// Tiles per frame with the box and zoom of `yaml` (2 columns x 2 rows at zoom 4).
    static let tilesPerFrame = 4

    private init(server: TestServer, site: TestSite) {
        self.server = server
        self.site = site
    }

    /// A bench whose tiles answer with `etag` (the time, quoted), `lastModified` and
    /// `cacheControl` as given (nil leaves the header out).
    /// `delay` holds every tile answer back (to make builds overlap); `alike` maps a time
    /// stamp to another whose colour its tiles take (a feed that repeats itself).
    static func start(
        etag: Bool = true, lastModified: String? = nil, cacheControl: String? = nil,
        delay: Duration? = nil, alike: [String: String] = [:]
    ) async throws -> CacheBench {
        let server = try await TestServer.start()
        let tiles = LockedBox([String: [UInt8]]())
        server.route(
            prefix: "/t/",
            .dynamic { request in
                // /t/<time>/<z>/<x>/<y>.png
                let time = request.path.split(separator: "/").dropFirst().first.map(String.init) ?? "?"
                let body = tiles.withLock { cache in
                    if let png = cache[time] { return png }
                    let png = CacheBench.solidTile(seed: alike[time] ?? time)
                    cache[time] = png
                    return png
                }
                let answer = TestServer.Behaviour.ok(
                    body, contentType: "image/png", etag: etag ? "\"\(time)\"" : nil,
                    lastModified: lastModified, cacheControl: cacheControl)
                return delay.map { .delayed($0, answer) } ?? answer
            })
        return CacheBench(server: server, site: try TestSite())
    }

    /// Removes the project folder now (a `defer` cannot await) and stops the server.
    func close() {
        site.remove()
        let server = server
        Task { await server.stop() }
    }

    var cacheFolder: URL { site.root.appendingPathComponent("cache") }

    /// The config: one animation, 2x2 tiles at zoom 4, one frame per time in `times`
    /// (minutes after 10:00 on 2026-11-21). `cache` replaces the cache key's value.
    func yaml(times: [Int], cache: String? = nil, fallbackLevels: Int = 0, pyramid: Bool = false) -> String {
        let list = times.map { Self.iso($0) }.joined(separator: ", ")
        var text = site.yaml(
            """
              - id: loop
                title: Cache loop
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                fallback: { levels: \(fallbackLevels) }
                pyramid: { publish: \(pyramid ? "always" : "never") }
                source: { url: "\(server.url("/t/{time}/{z}/{x}/{y}.png"))" }
                frames: { times: [\(list)] }
                time_format: "%Y%m%d%H%M"
            """)
        if let cache {
            text = text.replacingOccurrences(of: "cache: \(cacheFolder.path)", with: "cache: \(cache)")
        }
        return text
    }

    /// Builds like `matsite build` does: with the tile cache unless `useCache` is false.
    @discardableResult
    func build(
        times: [Int] = [0, 10], cache: String? = nil, useCache: Bool = true, output: String? = nil,
        fallbackLevels: Int = 0, pyramid: Bool = false, at: TimeInstant? = nil
    ) async throws -> BuildSummary {
        var options = BuildOptions()
        options.at = at
        options.useCache = useCache
        options.output = output
        options.lockWait = TestSite.lockWait
        let text = yaml(times: times, cache: cache, fallbackLevels: fallbackLevels, pyramid: pyramid)
        return try await Builder(config: site.config(text), options: options).run()
    }

    /// The tile path of `time` (minutes after 10:00) as requested.
    static func tilePrefix(_ minutes: Int) -> String {
        "/t/\(stamp(minutes))/"
    }

    static func stamp(_ minutes: Int) -> String {
        String(format: "20261121%02d%02d", 10 + minutes / 60, minutes % 60)
    }

    static func iso(_ minutes: Int) -> String {
        String(format: "2026-11-21T%02d:%02d:00Z", 10 + minutes / 60, minutes % 60)
    }

    /// Requests for tiles since the server started (or `resetCounts()`).
    var tileRequests: [TestServer.RecordedRequest] {
        server.allRequests.filter { $0.path.hasPrefix("/t/") }
    }

    /// Cache entry files (in their shard folders; the index and temporary files left out).
    func cacheEntries() -> [URL] {
        Self.entryFiles(in: cacheFolder)
    }

    /// The entry files of a cache folder: `<2 hex>/<64 hex>`, sorted.
    static func entryFiles(in folder: URL) -> [URL] {
        let shards = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return shards.filter { $0.count == 2 }.sorted().flatMap { shard in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(shard).path)) ?? []
            return names.filter { $0.count == 64 }.sorted().map { folder.appendingPathComponent(shard).appendingPathComponent($0) }
        }
    }

    /// Bytes of every file under the cache folder (entries, index, temporary files).
    func cacheFolderSize() -> Int {
        Self.folderSize(cacheFolder)
    }

    static func folderSize(_ folder: URL) -> Int {
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else { return 0 }
        var total = 0
        for case let url as URL in walk {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += values?.fileSize ?? 0 }
        }
        return total
    }

    /// The published frames of `loop`: time -> (relative url, inode, sha256 from the manifest).
    func publishedFrames() throws -> [String: (url: String, inode: UInt64, sha256: String)] {
        var out: [String: (url: String, inode: UInt64, sha256: String)] = [:]
        for frame in try site.frames("loop") {
            let url = try #require(frame["url"] as? String)
            let time = try #require(frame["time"] as? String)
            let sha = try #require(frame["sha256"] as? String)
            out[time] = (url, try Self.inode(site.output.appendingPathComponent("loop").appendingPathComponent(url)), sha)
        }
        return out
    }

    /// Each frame's fallback tiles' folder (`tiles/<hash>`), by time, as the manifest's
    /// templates give them.
    func fallbackFolders() throws -> [String: String] {
        let manifest = try site.manifest("loop")
        let templates = try #require((manifest["fallback"] as? [String: Any])?["templates"] as? [String])
        let frames = try site.frames("loop")
        var out: [String: String] = [:]
        for (frame, template) in zip(frames, templates) {
            let time = try #require(frame["time"] as? String)
            out[time] = String(try #require(template.components(separatedBy: "/{z}").first))
        }
        return out
    }

    /// Names of the files in `site/loop/frames`.
    func frameFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: site.output.appendingPathComponent("loop/frames").path).sorted()
    }

    /// Every file under the output with its inode: equal before and after means nothing
    /// was replaced.
    func outputInodes() throws -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        for path in try site.fileHashes().keys {
            out[path] = try Self.inode(site.output.appendingPathComponent(path))
        }
        return out
    }

    static func inode(_ url: URL) throws -> UInt64 {
        var status = stat()
        guard stat(url.path, &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return UInt64(status.st_ino)
    }

    /// A 256 px opaque tile of one colour drawn from `seed`.
    static func solidTile(seed: String) -> [UInt8] { TestTiles.solid(seed: seed) }
}
