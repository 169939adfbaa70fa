import Foundation
import Testing

@testable import MatsiteKit

/// What a rebuild publishes over a real tile server on 127.0.0.1: frames kept only while
/// their files are what the manifest says, the poster of the last frame, unchanged files
/// linked, fallback tiles of kept frames linked in their folder, named by their content.
@Suite("Incremental publishing: what a rebuild keeps, links and replaces")
struct IncrementalPublishTests {}

extension IncrementalPublishTests {
    @Test("a kept frame file that was changed in place (an optimiser run over site/) is stitched again, so the manifest stays true")
    func changedFrameFileIsNotKept() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build()
        let frame = try #require(try bench.publishedFrames()[CacheBench.iso(0)])
        let file = bench.site.output.appendingPathComponent("loop").appendingPathComponent(frame.url)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 0, 0]))
        try handle.close()
        let summary = try await bench.build()
        #expect(summary.framesReused == 1)
        #expect(!summary.unchanged)
        try expectValidSite(bench.site.output)
    }

    @Test("a window that loses its newest frame gets the poster of its new last frame, not the old one")
    func posterFollowsTheLastFrame() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        let reference = bench.site.root.appendingPathComponent("reference")
        try await bench.build(times: [0, 10], output: reference.path)
        try await bench.build(times: [0, 10, 20])
        let poster = bench.site.output.appendingPathComponent("loop/poster.png")
        let newest = try Data(contentsOf: poster)

        let summary = try await bench.build(times: [0, 10])
        #expect(summary.framesReused == 1, "the new last frame is stitched again to draw its poster")
        #expect(try Data(contentsOf: poster) != newest)
        #expect(try Data(contentsOf: poster) == Data(contentsOf: reference.appendingPathComponent("loop/poster.png")))
        try expectValidSite(bench.site.output)
    }

    @Test("a rebuild links every file whose bytes did not change (assets, pages) instead of writing it again")
    func unchangedFilesAreLinked() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build(times: [0, 10])
        let before = try bench.outputInodes()
        try await bench.build(times: [0, 10, 20])
        let after = try bench.outputInodes()
        let assets = before.keys.filter { $0.hasPrefix("assets/") }
        #expect(assets.count >= 5)
        for path in assets + ["loop/embed.html", "loop/index.html", "manifest.json"] {
            #expect(after[path] == before[path], "\(path) should be the same file")
        }
        // Changed files are new: the manifest lists another frame, the index another time span.
        #expect(after["loop/manifest.json"] != before["loop/manifest.json"])
        #expect(after["index.html"] != before["index.html"])
        try expectValidSite(bench.site.output)
    }

    @Test("fallback tiles of kept frames are kept too: their folder, named by their content, linked whatever the frame's position")
    func fallbackTilesAreKept() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build(times: [0, 10], fallbackLevels: 1)
        let perFrame = bench.tileRequests.filter { $0.path.hasPrefix(CacheBench.tilePrefix(0)) }.count
        try #require(perFrame > CacheBench.tilesPerFrame, "zoom 5 tiles are fetched for the fallback")
        let folders = try bench.fallbackFolders()
        #expect(folders.values.allSatisfy { $0.wholeMatch(of: /tiles\/[0-9a-f]{16}/) != nil }, "\(folders)")
        let kept = try #require(folders[CacheBench.iso(10)])
        let root = bench.site.output.appendingPathComponent("loop")
        let oldFiles = try FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent(kept).path).filter { $0.hasSuffix(".png") }
        try #require(oldFiles.count == perFrame - CacheBench.tilesPerFrame)
        let oldInodes = try oldFiles.map { try CacheBench.inode(root.appendingPathComponent("\(kept)/\($0)")) }

        // Nothing changed: no request, nothing replaced.
        bench.server.resetCounts()
        let same = try await bench.build(times: [0, 10], fallbackLevels: 1)
        #expect(bench.server.totalRequestCount == 0)
        #expect(same.unchanged)

        // The window moves: 10:10 becomes frame 0 and keeps its fallback folder (same name, same files).
        bench.server.resetCounts()
        try await bench.build(times: [10, 20], fallbackLevels: 1)
        #expect(bench.tileRequests.allSatisfy { $0.path.hasPrefix(CacheBench.tilePrefix(20)) })
        #expect(bench.tileRequests.count == perFrame)
        let moved = try bench.fallbackFolders()
        #expect(moved[CacheBench.iso(10)] == kept)
        let newInodes = try oldFiles.map { try CacheBench.inode(root.appendingPathComponent("\(kept)/\($0)")) }
        #expect(newInodes == oldInodes)
        // The folder of the frame that left is gone; nothing but the manifest's folders is published.
        let published = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("tiles").path)
        #expect(Set(published.map { "tiles/\($0)" }) == Set(moved.values))
        let manifest = try bench.site.manifest("loop")
        let frames = try #require(manifest["frames"] as? [[String: Any]])
        #expect(frames.allSatisfy { ($0["fallback_hash"] as? String)?.count == 64 })
        // The folder is named by the hash the manifest gives.
        #expect(frames.allSatisfy { frame in moved.values.contains { "tiles/" + ((frame["fallback_hash"] as? String)?.prefix(16) ?? "") == $0 } })
        try expectValidSite(bench.site.output)
    }

    @Test("the same content twice in one loop is one file: one frame file, one fallback folder, one folder of levels")
    func sameContentIsOneFile() async throws {
        // 10:10's tiles are 10:00's: a feed that repeated itself.
        let bench = try await CacheBench.start(cacheControl: "max-age=600", alike: [CacheBench.stamp(10): CacheBench.stamp(0)])
        defer { bench.close() }
        try await bench.build(times: [0, 10, 20], fallbackLevels: 1, pyramid: true)
        let frames = try bench.site.frames("loop")
        let urls = frames.compactMap { $0["url"] as? String }
        try #require(urls.count == 3)
        #expect(urls[0] == urls[1] && urls[1] != urls[2], "\(urls)")
        // Beside the frame files, one sheet of the two distinct first backgrounds (BackgroundSheetsTests).
        let files = try bench.frameFiles().filter { $0.contains(".") }
        #expect(files.filter { !$0.hasPrefix("sheet-") } == Set(urls).map { String($0.dropFirst("frames/".count)) }.sorted())
        #expect(files.filter { $0.hasPrefix("sheet-") }.count == 1, "\(files)")
        let tiles = frames.compactMap { $0["tiles"] as? String }
        #expect(tiles.count == 3 && tiles[0] == tiles[1] && tiles[1] != tiles[2], "\(tiles)")
        let folders = try bench.fallbackFolders()
        #expect(folders[CacheBench.iso(0)] == folders[CacheBench.iso(10)] && folders[CacheBench.iso(0)] != folders[CacheBench.iso(20)])
        let root = bench.site.output.appendingPathComponent("loop")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("tiles").path).count == 2)
        // Nothing left of the work: no temporary file or folder in the site.
        let hidden = try bench.site.fileHashes().keys.filter { $0.split(separator: "/").contains { $0.hasPrefix(".") } }
        #expect(hidden.isEmpty, "\(hidden)")
        try expectValidSite(bench.site.output)

        // Rebuilt as it is: nothing changes, the shared file is kept.
        let before = try bench.outputInodes()
        let again = try await bench.build(times: [0, 10, 20], fallbackLevels: 1, pyramid: true)
        #expect(again.unchanged)
        #expect(try bench.outputInodes() == before)
    }

    @Test("a site an older matsite published, frames and tiles named by position, gives its frames to the next build: same files, named by content")
    func positionNamedSiteIsKept() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build(times: [0, 10], fallbackLevels: 1)
        // The site as it was published before names by content: `frames/NNNN-<8 hex>.png`,
        // `tiles/NNNN/...`, and the fallback as one URL with `{frame}`.
        let fm = FileManager.default
        let root = bench.site.output.appendingPathComponent("loop")
        let file = root.appendingPathComponent("manifest.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var frames = try #require(manifest["frames"] as? [[String: Any]])
        var fallback = try #require(manifest["fallback"] as? [String: Any])
        let templates = try #require(fallback["templates"] as? [String])
        var inodes: [String: UInt64] = [:]
        for i in frames.indices {
            let url = try #require(frames[i]["url"] as? String), sha = try #require(frames[i]["sha256"] as? String)
            let old = String(format: "frames/%04d-", i) + sha.prefix(8) + ".png"
            try fm.moveItem(at: root.appendingPathComponent(url), to: root.appendingPathComponent(old))
            frames[i]["url"] = old
            inodes[sha] = try CacheBench.inode(root.appendingPathComponent(old))
            let folder = String(templates[i].prefix { $0 != "{" })
            try fm.moveItem(at: root.appendingPathComponent(folder), to: root.appendingPathComponent(String(format: "tiles/%04d", i)))
        }
        fallback["templates"] = nil
        fallback["published"] = nil
        fallback["url"] = "tiles/{frame}/{z}/{x}/{y}.png"
        manifest["frames"] = frames
        manifest["fallback"] = fallback
        try JSONSerialization.data(withJSONObject: manifest).write(to: file)

        let summary = try await bench.build(times: [0, 10], fallbackLevels: 1)
        #expect(summary.framesReused == 2, "the older manifest is read, and its frames kept")
        let published = try bench.publishedFrames()
        #expect(published.count == 2)
        for frame in published.values {
            #expect(frame.url == "frames/\(frame.sha256.prefix(16)).png")
            #expect(frame.inode == inodes[frame.sha256], "\(frame.url) is the older site's file, linked")
        }
        #expect(try bench.frameFiles() == published.values.map { String($0.url.dropFirst("frames/".count)) }.sorted())
        let folders = try bench.fallbackFolders()
        #expect(Set(folders.values) == Set(templates.map { String($0.prefix { $0 != "{" }.dropLast()) }), "the tiles' folders are named by content again")
        try expectValidSite(bench.site.output)
    }
}
