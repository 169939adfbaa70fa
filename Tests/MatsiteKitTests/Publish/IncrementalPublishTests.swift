import Foundation
import Testing

@testable import MatsiteKit

/// What a rebuild publishes over a real tile server on 127.0.0.1: frames kept only while
/// their files are what the manifest says, the poster of the last frame, unchanged files
/// linked, fallback tiles of kept frames linked under their new index.
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

    @Test("fallback tiles of kept frames are kept too: linked under the frame's new index, not fetched or written again")
    func fallbackTilesAreKept() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600")
        defer { bench.close() }
        try await bench.build(times: [0, 10], fallbackLevels: 1)
        let perFrame = bench.tileRequests.filter { $0.path.hasPrefix(CacheBench.tilePrefix(0)) }.count
        try #require(perFrame > CacheBench.tilesPerFrame, "zoom 5 tiles are fetched for the fallback")
        let tiles = bench.site.output.appendingPathComponent("loop/tiles")
        let oldFiles = try FileManager.default.subpathsOfDirectory(atPath: tiles.appendingPathComponent("0001").path).filter { $0.hasSuffix(".png") }
        try #require(oldFiles.count == perFrame - CacheBench.tilesPerFrame)
        let oldInodes = try oldFiles.map { try CacheBench.inode(tiles.appendingPathComponent("0001/\($0)")) }

        // Nothing changed: no request, nothing replaced.
        bench.server.resetCounts()
        let same = try await bench.build(times: [0, 10], fallbackLevels: 1)
        #expect(bench.server.totalRequestCount == 0)
        #expect(same.unchanged)

        // The window moves: 10:10 becomes frame 0 and keeps its fallback tiles (same files).
        bench.server.resetCounts()
        try await bench.build(times: [10, 20], fallbackLevels: 1)
        #expect(bench.tileRequests.allSatisfy { $0.path.hasPrefix(CacheBench.tilePrefix(20)) })
        #expect(bench.tileRequests.count == perFrame)
        let newInodes = try oldFiles.map { try CacheBench.inode(tiles.appendingPathComponent("0000/\($0)")) }
        #expect(newInodes == oldInodes)
        let manifest = try bench.site.manifest("loop")
        let frames = try #require(manifest["frames"] as? [[String: Any]])
        #expect(frames.allSatisfy { ($0["fallback_hash"] as? String)?.count == 64 })
        try expectValidSite(bench.site.output)
    }
}
