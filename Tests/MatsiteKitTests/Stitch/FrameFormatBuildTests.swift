import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Whole builds over real JPEG tiles (GDAL's MBTiles driver wrote them, see
/// Tests/MatsiteImagingTests/Fixtures/make_fixtures.py) served on 127.0.0.1: which format
/// each frame is written in, its name, its pixels, and what a rebuild keeps.
@Suite("Frame formats in a build")
struct FrameFormatBuildTests {
    static let fixture = CLI.packageRoot.appendingPathComponent("Tests/MatsiteImagingTests/Fixtures/gdal-mbtiles-jpeg")
    /// The fixture's window at zoom 3 (global pixels), from its case.json.
    static let window = (x: 529, y: 772, width: 472, height: 226)

    static func tile(_ x: Int) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixture.appendingPathComponent("\(x)_3.jpg")))
    }

    /// A box whose pixel window at zoom 3 is exactly the fixture's (edges 0.2 px inside the
    /// rounding points of the contract's pixel-centre rule).
    static var bbox: String {
        let world = 256.0 * 8
        func lon(_ px: Double) -> Double { px / world * 360 - 180 }
        func lat(_ py: Double) -> Double { atan(sinh(.pi * (1 - 2 * py / world))) * 180 / .pi }
        let w = window
        return "[\(lon(Double(w.x) + 0.2)), \(lat(Double(w.y + w.height) - 0.2)), \(lon(Double(w.x + w.width) - 0.2)), \(lat(Double(w.y) + 0.2))]"
    }

    /// Serves /j/<frame>/<z>/<x>/<y>.jpg: the fixture's tile for x (2 or 3), 404 for `missing`.
    static func serve(on server: TestServer, missing: String? = nil) throws {
        let (left, right) = (try tile(2), try tile(3))
        server.route(
            prefix: "/j/",
            .dynamic { request in
                if request.path == missing { return .status(404) }
                let parts = request.path.split(separator: "/")
                return .ok(parts.count >= 5 && parts[3] == "2" ? left : right, contentType: "image/jpeg")
            })
    }

    static func animation(_ server: TestServer, extra: String = "", fallback: Int = 0) -> String {
        """
          - id: sat
            bbox: \(bbox)
            zoom: 3
            fallback: { levels: \(fallback) }
            source: { url: "\(server.url("/j/{frame}/{z}/{x}/{y}.jpg"))", max_zoom: 4 }
            frames: { count: 2 }
        \(extra.isEmpty ? "" : "    " + extra)
        """
    }

    @Test("frames of JPEG tiles are JPEG (format: auto), equal the tiles' mosaic within tolerance, and a rebuild keeps them")
    func jpegFrames() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let reporter = RecordingReporter()
        try await withTestServer { server in
            try Self.serve(on: server)
            let yaml = site.yaml(Self.animation(server))
            try await site.build(yaml)
            let frames = try site.frames("sat")
            #expect(frames.allSatisfy { ($0["url"] as? String)?.hasSuffix(".jpg") == true }, "\(frames)")
            let bytes = try site.frameBytes("sat", index: 0)
            #expect(ImageKind.sniff(bytes) == .jpeg)
            #expect(frames[0]["bytes"] as? Int == bytes.count)
            let image = try JPEGDecoder().decode(bytes)
            // The independent mosaic: Pillow's decode of the same two tiles, cropped.
            let expected = try PNGDecoder().decode(
                [UInt8](Data(contentsOf: Self.fixture.appendingPathComponent("expected.png"))), keepIndices: false)
            #expect(image.width == expected.width && image.height == expected.height)
            let diffs = zip(image.pixels, expected.pixels).enumerated().filter { $0.offset % 4 != 3 }.map {
                abs(Int($0.element.0) - Int($0.element.1))
            }
            let mean = Double(diffs.reduce(0, +)) / Double(diffs.count)
            #expect(mean < 3.0 && (diffs.max() ?? 0) <= 64, "mean \(mean), worst \(diffs.max() ?? 0)")
            // Re-encoded at the tiles' own quality (GDAL's 75), a crop of two tiles weighs less than they do.
            #expect(try JPEGDecoder().quality(of: bytes) == 75)
            #expect(bytes.count < (try Self.tile(2).count + Self.tile(3).count))
            try expectValidSite(site.output)
            try Self.expectPoster(site, named: "poster.jpg", kind: .jpeg, lastFrame: try site.frameBytes("sat", index: 1))

            // Same inputs again: the frames are kept under the same .jpg names, nothing stitched.
            try await site.build(yaml, reporter: reporter)
            #expect(reporter.stitchedFrames.isEmpty)
            #expect(try site.frames("sat").map { $0["url"] as? String } == frames.map { $0["url"] as? String })
            try expectValidSite(site.output)
            // The kept last frame keeps its poster too.
            try Self.expectPoster(site, named: "poster.jpg", kind: .jpeg, lastFrame: try site.frameBytes("sat", index: 1))
        }
    }

    @Test("format: png keeps PNG, format: webp writes lossy WebP, and a JPEG frame with a missing tile becomes WebP with alpha")
    func otherFormats() async throws {
        for (extra, missing, suffix) in [
            ("format: png", nil, ".png"), ("format: webp", nil, ".webp"),
            ("missing: transparent", "/j/0/3/3/3.jpg", ".webp"),
        ] {
            let site = try TestSite()
            defer { site.remove() }
            try await withTestServer { server in
                try Self.serve(on: server, missing: missing)
                try await site.build(site.yaml(Self.animation(server, extra: extra)))
            }
            let url = try #require(try site.frames("sat")[0]["url"] as? String)
            #expect(url.hasSuffix(suffix), "\(extra): \(url)")
            let bytes = try site.frameBytes("sat", index: 0)
            switch suffix {
            case ".png": #expect(ImageKind.sniff(bytes) == .png)
            default:
                #expect(ImageKind.sniff(bytes) == .webp)
                let image = try WebPDecoder().decode(bytes)
                // Tile x=3 starts at global pixel 768: 239 frame columns in.
                let split = 768 - Self.window.x
                let leftAlpha = image.pixels[(10 * image.width + split - 5) * 4 + 3]
                let rightAlpha = image.pixels[(10 * image.width + split + 5) * 4 + 3]
                #expect(leftAlpha == 255)
                #expect(rightAlpha == (missing == nil ? 255 : 0), "\(extra)")
            }
            try expectValidSite(site.output)
            // The poster is the last frame's format (a missing tile in frame 0 leaves frame 1 JPEG).
            let last = try #require(try site.frames("sat")[1]["url"] as? String)
            let kinds: [String: ImageKind] = ["png": .png, "jpg": .jpeg, "webp": .webp]
            let ext = (last as NSString).pathExtension
            try Self.expectPoster(site, named: "poster.\(ext)", kind: try #require(kinds[ext]), lastFrame: try site.frameBytes("sat", index: 1))
        }
    }

    /// The poster is in the frames' format (named for it in the manifest), no bigger than
    /// about a frame, and the only poster of the animation.
    static func expectPoster(_ site: TestSite, named name: String, kind: ImageKind, lastFrame: [UInt8]) throws {
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: site.output.appendingPathComponent("sat/manifest.json"))) as? [String: Any])
        #expect(manifest["poster"] as? String == name)
        let bytes = [UInt8](try Data(contentsOf: site.output.appendingPathComponent("sat/\(name)")))
        #expect(ImageKind.sniff(bytes) == kind, "\(name)")
        #expect(bytes.count <= lastFrame.count * 3 / 2, "\(name): \(bytes.count) bytes, a frame \(lastFrame.count)")
        let others = try FileManager.default.contentsOfDirectory(atPath: site.output.appendingPathComponent("sat").path)
            .filter { $0.hasPrefix("poster.") && $0 != name }
        #expect(others.isEmpty, "\(others)")
    }

    /// Tiles x 2...4 of row 3 at zoom 3 on disk under `root/mixed/`: those in `png` as PNG
    /// with a transparent left half (a server's edge tiles), the others JPEG (its interior).
    static func writeMixedTiles(_ root: URL, png: Set<Int>) throws {
        for x in 2...4 {
            var pixels = [UInt8](repeating: 0, count: 256 * 256 * 4)
            for row in 0..<256 {
                for column in 0..<256 {
                    let at = (row * 256 + column) * 4
                    pixels.replaceSubrange(at..<(at + 4), with: FormulaTiles.rgba(x * 256 + column, 3 * 256 + row))
                    if png.contains(x) && column < 128 { pixels[at + 3] = 0 }
                }
            }
            let bytes =
                png.contains(x)
                ? try PNGWriter.encode(width: 256, height: 256, format: .rgba, pixels: pixels)
                : try pixels.withUnsafeBytes { try FrameFormat.jpeg(quality: 80).encode(rgba: $0, width: 256, height: 256, stride: 1024) }
            let folder = root.appendingPathComponent("mixed/3/\(x)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(bytes).write(to: folder.appendingPathComponent("3.tile"))
        }
    }

    @Test(
        "frames from PNG edge tiles and JPEG inside: lossy WebP with alpha when most tiles are JPEG, else PNG and a line saying format: webp",
        arguments: [(Set([2]), ".webp"), (Set([2, 4]), ".png")])
    func mixedTiles(png: Set<Int>, suffix: String) async throws {
        let site = try TestSite()
        defer { site.remove() }
        try Self.writeMixedTiles(site.root, png: png)
        let world = 256.0 * 8
        func lon(_ px: Double) -> Double { px / world * 360 - 180 }
        func lat(_ py: Double) -> Double { atan(sinh(.pi * (1 - 2 * py / world))) * 180 / .pi }
        let reporter = RecordingReporter()
        try await site.build(
            site.yaml(
                """
                  - id: mix
                    bbox: [\(lon(600.2)), \(lat(899.8)), \(lon(1099.8)), \(lat(800.2))]
                    zoom: 3
                    source: { path: "\(site.root.path)/mixed/{z}/{x}/{y}.tile" }
                    frames: { count: 2 }
                """), reporter: reporter)
        let frames = try site.frames("mix")
        #expect(frames.allSatisfy { ($0["url"] as? String)?.hasSuffix(suffix) == true }, "\(frames)")
        let bytes = try site.frameBytes("mix", index: 0)
        if suffix == ".webp" {
            let image = try WebPDecoder().decode(bytes)
            // The PNG tile's transparent half stays transparent; the JPEG tiles are opaque.
            #expect(image.pixels[(50 * image.width + 10) * 4 + 3] == 0)
            #expect(image.pixels[(50 * image.width + 300) * 4 + 3] == 255)
            let mixed = reporter.events.compactMap { if case .mixedTilesWrittenLossy(let r) = $0 { r } else { nil } }
            #expect(mixed == [MixedTilesReport(animation: "mix", frames: 2, lossyTiles: 4, losslessTiles: 2, framesWrittenLossy: 2)], "\(mixed)")
            // (TestSite sets no base_url: that warning is another matter.)
            #expect(reporter.warnings.filter { !$0.contains("base_url") }.isEmpty, "\(reporter.warnings)")
        } else {
            #expect(ImageKind.sniff(bytes) == .png)
            #expect(
                reporter.warnings.contains { $0.contains("mix: 2 of 2 frame(s)") && $0.contains("format: webp would write them lossy") }, "\(reporter.warnings)"
            )
        }
    }

    @Test("fallback tiles are named for their format: JPEG tiles are .jpg files and the manifest's template says so")
    func fallbackTileNames() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            try Self.serve(on: server)
            try await site.build(site.yaml(Self.animation(server, fallback: 1)))
        }
        let fallback = try #require(try site.manifest("sat")["fallback"] as? [String: Any])
        let templates = try #require(fallback["templates"] as? [String], "\(fallback)")
        #expect(!templates.isEmpty && templates.allSatisfy { $0.hasPrefix("tiles/") && $0.hasSuffix("/{z}/{x}/{y}.jpg") }, "\(fallback)")
        let folder = site.output.appendingPathComponent("sat").appendingPathComponent(String(templates[0].dropLast("{z}/{x}/{y}.jpg".count)) + "4")
        let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter { $0.contains(".") }
        #expect(!files.isEmpty && files.allSatisfy { $0.hasSuffix(".jpg") }, "\(files)")
    }
}
