import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Frames stitched from tiles served over real HTTP on 127.0.0.1, compared pixel by pixel
/// with the tiles' formula over the window the contract defines.
@Suite("Frame stitching")
struct FrameStitcherTests {
    @Test("a box that starts and ends mid-tile is stitched pixel-exact, frame by frame")
    func unalignedBox() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(
                site.yaml(
                    """
                      - id: box
                        bbox: [-20.3, 10.1, 15.7, 40.2]
                        zoom: 4
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))" }
                        frames: { count: 2 }
                    """))
        }

        let window = FormulaTiles.window(west: -20.3, south: 10.1, east: 15.7, north: 40.2, zoom: 4)
        let manifest = try site.manifest("box")
        #expect(manifest["width"] as? Int == window.width)
        #expect(manifest["height"] as? Int == window.height)
        for frame in 0..<2 {
            let image = try site.frameRGBA("box", index: frame)
            #expect(image.width == window.width && image.height == window.height)
            let expected = FormulaTiles.expectedFrame(window: window, zoom: 4, sourceZoom: 4, frame: frame)
            let difference = FormulaTiles.firstDifference(image.pixels, expected, width: window.width)
            #expect(difference == nil, "frame \(frame): \(difference ?? "")")
        }
    }

    @Test("each frame's manifest entry names its file, size and SHA-256")
    func frameEntries() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(
                site.yaml(
                    """
                      - id: box
                        bbox: [1.0, 1.0, 9.0, 9.0]
                        zoom: 3
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))" }
                        frames: { count: 2 }
                    """))
        }
        for (i, entry) in try site.frames("box").enumerated() {
            let url = try #require(entry["url"] as? String)
            let bytes = try site.frameBytes("box", index: i)
            #expect(entry["bytes"] as? Int == bytes.count)
            let sha = SHA256.hex(of: bytes)
            #expect(entry["sha256"] as? String == sha)
            // Named by its content only: no position in the name.
            #expect(url == "frames/\(sha.prefix(16)).png")
        }
    }

    @Test("a box crossing the antimeridian wraps its columns: tiles from both ends of the world, pixel-exact")
    func antimeridian() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let requested = try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(
                site.yaml(
                    """
                      - id: pacific
                        bbox: [170.0, -20.0, -170.0, 5.0]
                        zoom: 4
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))" }
                        frames: { count: 1 }
                    """))
            return Set(server.allRequests.map(\.path))
        }
        #expect(requested.contains { $0.hasPrefix("/t/0/4/15/") })
        #expect(requested.contains { $0.hasPrefix("/t/0/4/0/") })
        #expect(!requested.contains { $0.hasPrefix("/t/0/4/16/") })

        let window = FormulaTiles.window(west: 170, south: -20, east: -170, north: 5, zoom: 4)
        let image = try site.frameRGBA("pacific", index: 0)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 4, sourceZoom: 4)
        let difference = FormulaTiles.firstDifference(image.pixels, expected, width: window.width)
        #expect(difference == nil, "\(difference ?? "")")
    }

    @Test("overzoom: with max_zoom two levels below the zoom, only max_zoom tiles are fetched and each source pixel is a 4x4 block")
    func overzoom() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let zooms = try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(
                site.yaml(
                    """
                      - id: deep
                        bbox: [10.2, 45.1, 14.9, 48.3]
                        zoom: 6
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))", max_zoom: 4 }
                        frames: { count: 1 }
                    """))
            return Set(server.allRequests.map { $0.path.split(separator: "/")[2] })
        }
        #expect(zooms == ["4"])

        let window = FormulaTiles.window(west: 10.2, south: 45.1, east: 14.9, north: 48.3, zoom: 6)
        let image = try site.frameRGBA("deep", index: 0)
        #expect(image.width == window.width && image.height == window.height)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 6, sourceZoom: 4)
        let difference = FormulaTiles.firstDifference(image.pixels, expected, width: window.width)
        #expect(difference == nil, "\(difference ?? "")")
    }

    @Test("a TMS source ({-y}) is read bottom-up and still stitched pixel-exact")
    func tmsRows() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server, tms: true)
            try await site.build(
                site.yaml(
                    """
                      - id: tms
                        bbox: [-30.0, 20.0, 30.0, 60.0]
                        zoom: 3
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{-y}.png"))" }
                        frames: { count: 1 }
                    """))
        }
        let window = FormulaTiles.window(west: -30, south: 20, east: 30, north: 60, zoom: 3)
        let image = try site.frameRGBA("tms", index: 0)
        let difference = FormulaTiles.firstDifference(
            image.pixels, FormulaTiles.expectedFrame(window: window, zoom: 3, sourceZoom: 3),
            width: window.width)
        #expect(difference == nil, "\(difference ?? "")")
    }

    @Test("palette tiles over HTTP give an indexed frame whose indices follow the formula")
    func indexedOverHTTP() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server, indexed: true)
            try await site.build(
                site.yaml(
                    """
                      - id: radar
                        bbox: [-95.5, 29.0, -74.5, 43.5]
                        zoom: 4
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))" }
                        frames: { count: 1 }
                    """))
        }
        let bytes = try site.frameBytes("radar", index: 0)
        let decoder = PNGDecoder(maxWidth: 16384, maxHeight: 16384)
        #expect(try decoder.info(of: bytes).colorType == 3)
        let image = try decoder.decode(bytes, keepIndices: true)
        #expect(image.palette == FormulaTiles.palette)
        let window = FormulaTiles.window(west: -95.5, south: 29, east: -74.5, north: 43.5, zoom: 4)
        var expected: [UInt8] = []
        for y in window.y..<(window.y + window.height) {
            for x in window.x..<(window.x + window.width) { expected.append(FormulaTiles.index(x, y)) }
        }
        #expect(image.pixels == expected)
    }

    @Test("overzoom across the antimeridian: wrapped columns and 2x2 blocks together")
    func overzoomAcrossAntimeridian() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(
                site.yaml(
                    """
                      - id: pacific
                        bbox: [172.5, -12.0, -171.0, 3.0]
                        zoom: 5
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))", max_zoom: 4 }
                        frames: { count: 1 }
                    """))
        }
        let window = FormulaTiles.window(west: 172.5, south: -12, east: -171, north: 3, zoom: 5)
        let image = try site.frameRGBA("pacific", index: 0)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 5, sourceZoom: 4)
        let difference = FormulaTiles.firstDifference(image.pixels, expected, width: window.width)
        #expect(difference == nil, "\(difference ?? "")")
    }

    @Test("512-pixel tiles are stitched pixel-exact")
    func bigTiles() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server, tileSize: 512)
            try await site.build(
                site.yaml(
                    """
                      - id: big
                        bbox: [-20.3, 10.1, 15.7, 40.2]
                        zoom: 3
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))", tile_size: 512 }
                        frames: { count: 1 }
                    """))
        }
        let window = FormulaTiles.window(west: -20.3, south: 10.1, east: 15.7, north: 40.2, zoom: 3, tileSize: 512)
        let manifest = try site.manifest("big")
        #expect(manifest["tile_size"] as? Int == 512 && manifest["width"] as? Int == window.width)
        let image = try site.frameRGBA("big", index: 0)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 3, sourceZoom: 3, tileSize: 512)
        #expect(FormulaTiles.firstDifference(image.pixels, expected, width: window.width) == nil)
    }

    @Test("a box reaching past the Mercator limit is clamped to the world's top row, pixel-exact")
    func clampedNorth() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(
                site.yaml(
                    """
                      - id: arctic
                        bbox: [-30.0, 70.0, 30.0, 89.0]
                        zoom: 2
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/t/{frame}/{z}/{x}/{y}.png"))" }
                        frames: { count: 1 }
                    """))
        }
        let window = FormulaTiles.window(west: -30, south: 70, east: 30, north: WebMercator.maxLatitude, zoom: 2)
        #expect(window.y == 0)
        #expect(try site.manifest("arctic")["height"] as? Int == window.height)
        let image = try site.frameRGBA("arctic", index: 0)
        let expected = FormulaTiles.expectedFrame(window: window, zoom: 2, sourceZoom: 2)
        #expect(FormulaTiles.firstDifference(image.pixels, expected, width: window.width) == nil)
    }

    @Test("a frame's input hash is the version tag, the render settings and each tile's digest, in order")
    func inputHashIsStable() {
        let layout = FrameLayout(width: 300, height: 200, originX: 1000, originY: 2000, shift: 1, tileSize: 256)
        let stitcher = FrameStitcher(
            layout: layout, grid: TileGrid(layout: layout, zoom: 3), compressionLevel: 6,
            missing: .transparent, timings: StageTimings())
        let digest = TileDigest(sha256: String(repeating: "ab", count: 32), size: 1234)
        // The text hashed, written out. The tag changes only when stitching writes other
        // bytes (stitch-4: frames of lossy tiles written as JPEG/WebP; stitch-5: frames of
        // mostly lossy tiles too), so an upgrade re-stitches exactly then; `f` is the
        // frames' format setting.
        let text =
            "matsite-stitch-5 300x200+1000+2000 s1 t256 z6 mtransparent fauto\n"
            + "png 1234 \(digest.sha256)\nabsent\n"
        #expect(FrameStitcher.renderVersion == "matsite-stitch-5")
        #expect(stitcher.inputHash([.image(digest), .absent]) == SHA256.hex(of: Array(text.utf8)))
        // Every setting that changes the bytes changes the hash.
        let other = FrameStitcher(layout: layout, grid: stitcher.grid, compressionLevel: 9, missing: .transparent, timings: StageTimings())
        #expect(other.inputHash([.image(digest), .absent]) != stitcher.inputHash([.image(digest), .absent]))
        #expect(stitcher.inputHash([.absent, .image(digest)]) != stitcher.inputHash([.image(digest), .absent]))
        var jpeg = stitcher
        jpeg.frameFormat = FrameFormatChoice(.jpeg, quality: 70)
        #expect(jpeg.inputHash([.image(digest), .absent]) != stitcher.inputHash([.image(digest), .absent]))
    }
}
