import Foundation
import Testing

@testable import MatsiteKit

/// Atomic publishing, observed from outside: file hashes before and after builds.
@Suite("Staging")
struct StagingTests {
    static func animation(_ url: String, missing: String = "fail") -> String {
        """
          - id: loop
            bbox: [-170, -60, 170, 60]
            zoom: 1
            missing: \(missing)
            fallback: { levels: 0 }
            source: { url: "\(url)" }
            frames: { count: 3 }
        """
    }

    @Test("a build that fails midway leaves the previous site byte-for-byte as it was, with no leftovers")
    func failedBuildKeepsOldSite() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            let yaml = site.yaml(Self.animation(server.url("/t/{frame}/{z}/{x}/{y}.png")))
            try await site.build(yaml)
            let before = try site.fileHashes()
            let entriesBefore = try site.entries()
            #expect(before.keys.contains("loop/manifest.json"))
            #expect(before.keys.filter { $0.hasPrefix("loop/frames/") }.count == 3)

            // Now frame 2 has a tile that 404s and frame 0 has new pixels: the build stitches
            // what it can, then fails.
            server.route("/t/2/1/1/1.png", .status(404))
            server.route("/t/0/1/0/0.png", .ok(try FormulaTiles.tile(z: 1, x: 0, y: 0, frame: 9), contentType: "image/png"))
            await #expect(throws: BuildError.self) { try await site.build(yaml) }
            #expect(try site.fileHashes() == before)
            #expect(try site.entries() == entriesBefore)
        }
    }

    @Test("an identical second build reports unchanged and keeps every file")
    func unchangedBuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            let yaml = site.yaml(Self.animation(server.url("/t/{frame}/{z}/{x}/{y}.png")))
            let first = try await site.build(yaml)
            #expect(!first.unchanged)
            let before = try site.fileHashes()
            let inode = try FileManager.default.attributesOfItem(atPath: site.output.appendingPathComponent("manifest.json").path)[.systemFileNumber] as? Int
            let second = try await site.build(yaml)
            #expect(second.unchanged)
            #expect(second.framesReused == 3)
            #expect(try site.fileHashes() == before)
            let after = try FileManager.default.attributesOfItem(atPath: site.output.appendingPathComponent("manifest.json").path)[.systemFileNumber] as? Int
            #expect(inode == after, "the unchanged site was replaced anyway")
            #expect(try site.entries().filter { $0.contains("matsite-tmp") || $0.contains("matsite-old") }.isEmpty)
        }
    }

    @Test("a build with one tile changed re-stitches only that frame and keeps the others")
    func oneTileChanged() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let reporter = RecordingReporter()
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            let yaml = site.yaml(Self.animation(server.url("/t/{frame}/{z}/{x}/{y}.png")))
            try await site.build(yaml)
            let before = try site.fileHashes()
            server.route("/t/1/1/1/0.png", .ok(try FormulaTiles.tile(z: 1, x: 1, y: 0, frame: 7), contentType: "image/png"))
            let summary = try await site.build(yaml, reporter: reporter)
            #expect(!summary.unchanged)
            #expect(summary.frames == 3)
            #expect(summary.framesReused == 2)
            #expect(reporter.stitchedFrames == [1])
            let after = try site.fileHashes()
            let frameFiles = { (hashes: [String: String]) in hashes.filter { $0.key.hasPrefix("loop/frames/") } }
            #expect(Set(frameFiles(before).values).subtracting(frameFiles(after).values).count == 1)
            #expect(frameFiles(after).count == 3)
        }
        // The re-stitched frame shows the changed tile.
        let window = FormulaTiles.window(west: -170, south: -60, east: 170, north: 60, zoom: 1)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 1, sourceZoom: 1, frame: 1) { x, y, frame in
            FormulaTiles.rgba(x, y, frame: x / 256 == 1 && y / 256 == 0 ? 7 : frame)
        }
        #expect(FormulaTiles.firstDifference(try site.frameRGBA("loop", index: 1).pixels, expected, width: window.width) == nil)
    }

    @Test("the first build publishes into a folder that did not exist, leaving nothing else beside it")
    func firstBuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(site.yaml(Self.animation(server.url("/t/{frame}/{z}/{x}/{y}.png"))))
        }
        #expect(try site.entries().filter { !$0.hasSuffix("matsite-lock") } == ["site"])
    }

    @Test("recovery removes a killed build's staging folder but not one a live build still holds")
    func recoverySparesLiveStaging() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-staging-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let output = parent.appendingPathComponent("site")
        let live = try Staging.create(beside: output)
        try Data("x".utf8).write(to: live.url.appendingPathComponent("frame.png"))
        // A killed build's: the folder is there, its lock went with the process.
        let dead = parent.appendingPathComponent(".site.matsite-tmp-1-2")
        try FileManager.default.createDirectory(at: dead, withIntermediateDirectories: true)

        Staging.recover(output: output)
        #expect(FileManager.default.fileExists(atPath: live.url.appendingPathComponent("frame.png").path))
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        try live.publish()
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("frame.png").path))
    }
}
