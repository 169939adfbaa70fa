import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// The offline demo is what a new user builds first, then builds again: the second build
/// must not draw anything it drew before.
@Suite("Demo rebuilds")
struct DemoRebuildTests {
    @Test("an unchanged demo rebuild keeps its frames and fallback tiles without drawing them; the output is untouched")
    func unchangedDemoRebuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let yaml = site.yaml(
            """
              - id: demo
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                fallback: { levels: 1 }
                source: { demo: radar }
                frames: { count: 2 }
            """)
        try await site.build(yaml)
        let before = try site.fileHashes()
        let fallback = try #require(try site.manifest("demo")["fallback"] as? [String: Any])
        let folder = try #require((fallback["templates"] as? [String])?.last).split(separator: "{").first ?? ""
        #expect(before.keys.contains { $0.hasPrefix("demo/\(folder)5/") })
        let summary = try await site.build(yaml)
        #expect(summary.unchanged)
        #expect(summary.framesReused == 2)
        #expect(try site.fileHashes() == before)
    }

    @Test("a demo tile's digest is the same drawn or not: its drawing's version and coordinates")
    func digestWithoutDrawing() async throws {
        let tile = DemoTile(layer: "radar", time: TimeInstant(millisecondsSinceEpoch: 1_780_337_400_000), z: 4, x: 7, y: 5)
        let loader = TileSourceLoader(fetcher: nil)
        guard case .tile(_, let digest) = await loader.load(.demo(tile)) else {
            Issue.record("no demo tile")
            return
        }
        #expect(digest == loader.freshDigests([.demo(tile)])?.first)
        var other = tile
        other.time = TimeInstant(millisecondsSinceEpoch: 1_780_336_800_000)
        #expect(loader.freshDigests([.demo(other)])?.first != digest)
        // A mixed list is not known as a whole.
        #expect(loader.freshDigests([.demo(tile), .file("/nonexistent.png")]) == nil)
    }

    @Test("the demo base map is linked from the previous site when its folder names the same drawing, drawn when another")
    func baseMapKeptByVersion() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-basemap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let old = root.appendingPathComponent("site"), staging = root.appendingPathComponent("staging")
        // A previous site holding placeholder tiles under the current drawing's folder and
        // under an older one's: were any drawn, its bytes would differ from the placeholder.
        let older = "assets/demo-basemap-1"
        var tiles: [String] = []
        for z in 0...DemoBaseMap.maxZoom {
            for x in 0..<(1 << z) { for y in 0..<(1 << z) { tiles.append("\(z)/\(x)/\(y).png") } }
        }
        for folder in [DemoBaseMap.folder, older] {
            for tile in tiles {
                let file = old.appendingPathComponent("\(folder)/\(tile)")
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("placeholder".utf8).write(to: file)
            }
        }
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try SiteAssets.writeDemoBaseMap(with: SiteWriter(root: staging, previous: PreviousSite(output: old)))
        for tile in tiles {
            let path = "\(DemoBaseMap.folder)/\(tile)"
            #expect(try CacheBench.inode(staging.appendingPathComponent(path)) == CacheBench.inode(old.appendingPathComponent(path)), "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: staging.appendingPathComponent(older).path), "the older drawing is not published")

        // Only the older drawing in the previous site: every tile is drawn.
        try FileManager.default.removeItem(at: old.appendingPathComponent(DemoBaseMap.folder))
        try FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try SiteAssets.writeDemoBaseMap(with: SiteWriter(root: staging, previous: PreviousSite(output: old)))
        let first = try Data(contentsOf: staging.appendingPathComponent("\(DemoBaseMap.folder)/0/0/0.png"))
        #expect(first == Data(DemoBaseMap.tile(z: 0, x: 0, y: 0)))
    }
}
