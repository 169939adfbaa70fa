import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Each frame's reduced copies (`levels:`), built as a user would (the offline demo source,
/// or formula tiles over loopback): the manifest's `levels`, the files with those bytes, the
/// pixels against the frame halved by the pyramid's rule (computed here, from the frame file,
/// not with the pipeline's code), kept by hard links on an unchanged rebuild.
@Suite("Reduced levels")
struct ReducedLevelsTests {
    /// Demo radar over the US at zoom 5: 1347 x 755 palette frames (both sides odd), so two
    /// copies, 674 x 378 and 337 x 189.
    static func radar(_ site: TestSite, id: String = "radar", levels: String? = nil, zoom: Int = 5, count: Int = 2) -> String {
        site.yaml(
            """
              - id: \(id)
                bbox: [-125.0, 24.0, -65.8, 50.0]
                zoom: \(zoom)
                source: { demo: radar }
                frames: { count: \(count) }
            \(levels.map { "    levels: \($0)" } ?? "")
            """)
    }

    @Test("palette frames: the manifest lists each copy coarsest first, and each file holds the frame halved, palette kept, pixel for pixel")
    func paletteFrames() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let reporter = RecordingReporter()
        try await site.build(Self.radar(site), reporter: reporter)
        let manifest = try site.manifest("radar")
        let (width, height) = (try #require(manifest["width"] as? Int), try #require(manifest["height"] as? Int))
        #expect(width % 2 == 1 && height % 2 == 1, "odd sides are what this test is for: \(width)x\(height)")
        for (index, frame) in try site.frames("radar").enumerated() {
            let levels = try Self.levels(frame, site: site, in: "radar", width: width, height: height, ext: "png")
            #expect(levels.count == 2)
            let decoded = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(site.frameBytes("radar", index: index), keepIndices: true)
            let palette = try #require(decoded.palette)
            var expected = Reference(width: width, height: height, rgba: nil, indices: decoded.pixels, palette: palette)
            for level in levels.reversed() {
                expected = expected.halved()
                let copy = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(level.bytes, keepIndices: true)
                #expect(copy.palette != nil, "\(level.url) is a palette PNG, as its frame")
                let rgba = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(level.bytes, keepIndices: false)
                #expect(rgba.width == expected.width && rgba.height == expected.height)
                #expect(Self.mismatches(rgba.pixels, expected.rgbaPixels) == 0, "\(level.url)")
            }
        }
        let report = try #require(reporter.reducedLevels.first)
        #expect(reporter.reducedLevels.count == 1 && report.animation == "radar" && report.frames == 2)
        #expect(report.levels.map(\.halvings) == [2, 1] && report.levels.map(\.width) == [337, 674] && report.levels.map(\.height) == [189, 378])
        #expect(report.written == 4 && report.linked == 0, "\(report)")
        let files = try Self.copies(site, under: "radar/frames/")
        #expect(report.bytes == files.values.reduce(0) { $0 + $1.size })
    }

    @Test("an unchanged rebuild keeps every copy (the same inode) and makes none again")
    func unchangedRebuildLinks() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await site.build(Self.radar(site))
        let before = try Self.copies(site, under: "radar/frames/")
        #expect(before.count == 4)
        let manifest = try Data(contentsOf: site.output.appendingPathComponent("radar/manifest.json"))
        let reporter = RecordingReporter()
        try await site.build(Self.radar(site), reporter: reporter)
        let after = try Self.copies(site, under: "radar/frames/")
        #expect(after == before)
        #expect(try Data(contentsOf: site.output.appendingPathComponent("radar/manifest.json")) == manifest)
        let report = try #require(reporter.reducedLevels.first)
        #expect(report.written == 0 && report.linked == 4, "\(report)")
        // A moved window: the frame still in it keeps its copies, the new one gets its own.
        let moved = RecordingReporter()
        try await site.build(Self.radar(site, count: 3), reporter: moved)
        let grown = try Self.copies(site, under: "radar/frames/")
        #expect(grown.count == 6)
        for (path, file) in before { #expect(grown[path] == file, "\(path)") }
        #expect(moved.reducedLevels.first?.written == 2 && moved.reducedLevels.first?.linked == 4)
    }

    @Test("a kept frame whose previous copies are not all there gets them made again, the old files untouched")
    func missingPreviousCopy() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await site.build(Self.radar(site))
        let before = try Self.copies(site, under: "radar/frames/")
        // r1 is linked last (coarsest first): r2 is linked, then r1 is found gone.
        let gone = try #require(before.keys.sorted().first { $0.hasSuffix("/r1.png") })
        let kept = gone.replacingOccurrences(of: "/r1.png", with: "/r2.png")
        let keptBytes = try Data(contentsOf: site.output.appendingPathComponent(kept))
        try FileManager.default.removeItem(at: site.output.appendingPathComponent(gone))
        // A second name for the old r2: were the new build to write into a linked file, this would change.
        let witness = site.root.appendingPathComponent("witness.png")
        try FileManager.default.linkItem(at: site.output.appendingPathComponent(kept), to: witness)
        let reporter = RecordingReporter()
        let summary = try await site.build(Self.radar(site), reporter: reporter)
        #expect(summary.framesReused == 2)
        #expect(reporter.reducedLevels.first?.written == 2 && reporter.reducedLevels.first?.linked == 2, "\(reporter.reducedLevels)")
        let after = try Self.copies(site, under: "radar/frames/")
        #expect(Set(after.keys) == Set(before.keys))
        #expect(try Data(contentsOf: witness) == keptBytes)
        #expect(after[kept]?.inode != before[kept]?.inode)
        #expect(try Data(contentsOf: site.output.appendingPathComponent(kept)) == keptBytes, "made again alike")
    }

    @Test("RGBA frames: each copy is the premultiplied box average of the frame, pixel for pixel")
    func rgbaFrames() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(Self.formula(site, url: server.url("/t/{frame}/{z}/{x}/{y}.png"), format: nil))
        }
        let manifest = try site.manifest("world")
        let (width, height) = (try #require(manifest["width"] as? Int), try #require(manifest["height"] as? Int))
        let frame = try #require(try site.frames("world").first)
        let levels = try Self.levels(frame, site: site, in: "world", width: width, height: height, ext: "png")
        #expect(levels.count == 1)
        let decoded = try site.frameRGBA("world", index: 0)
        let expected = Reference(width: width, height: height, rgba: decoded.pixels, indices: nil, palette: nil).halved()
        let copy = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(levels[0].bytes, keepIndices: true)
        #expect(copy.palette == nil && copy.width == expected.width && copy.height == expected.height)
        #expect(Self.mismatches(copy.pixels, expected.rgbaPixels) == 0)
    }

    @Test("JPEG frames get JPEG copies of the halved size, at the frame's quality, close to the frame halved")
    func jpegFrames() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            FormulaTiles.serve(on: server)
            try await site.build(Self.formula(site, url: server.url("/t/{frame}/{z}/{x}/{y}.png"), format: "jpeg"))
        }
        let manifest = try site.manifest("world")
        let (width, height) = (try #require(manifest["width"] as? Int), try #require(manifest["height"] as? Int))
        let frame = try #require(try site.frames("world").first)
        #expect((frame["url"] as? String)?.hasSuffix(".jpg") == true)
        let levels = try Self.levels(frame, site: site, in: "world", width: width, height: height, ext: "jpg")
        #expect(levels.count == 1)
        let jpeg = JPEGDecoder(maxWidth: 4096, maxHeight: 4096)
        let frameBytes = try site.frameBytes("world", index: 0)
        #expect(try jpeg.quality(of: levels[0].bytes) == (try jpeg.quality(of: frameBytes)))
        let copy = try jpeg.decode(levels[0].bytes)
        let expected = Reference(width: width, height: height, rgba: try jpeg.decode(frameBytes).pixels, indices: nil, palette: nil).halved()
        #expect(copy.width == expected.width && copy.height == expected.height)
        // Lossy: near the frame halved, not equal to it.
        var error = 0
        for i in copy.pixels.indices { error += abs(Int(copy.pixels[i]) - Int(expected.rgbaPixels[i])) }
        let mean = Double(error) / Double(copy.pixels.count)
        #expect(mean < 6, "mean error \(mean) per channel")
    }

    @Test("lossless WebP frames get lossless WebP copies, the frame halved pixel for pixel")
    func losslessWebPFrames() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await site.build(
            Self.radar(site, levels: nil, count: 1).replacingOccurrences(
                of: "    frames: { count: 1 }", with: "    frames: { count: 1 }\n    format: webp-lossless"))
        let manifest = try site.manifest("radar")
        let (width, height) = (try #require(manifest["width"] as? Int), try #require(manifest["height"] as? Int))
        let frame = try #require(try site.frames("radar").first)
        let levels = try Self.levels(frame, site: site, in: "radar", width: width, height: height, ext: "webp")
        let decoder = WebPDecoder(maxWidth: 4096, maxHeight: 4096)
        var expected = Reference(width: width, height: height, rgba: try decoder.decode(site.frameBytes("radar", index: 0)).pixels, indices: nil, palette: nil)
        for level in levels.reversed() {
            expected = expected.halved()
            #expect(try decoder.isLossy(level.bytes) == false, "\(level.url)")
            let copy = try decoder.decode(level.bytes)
            #expect(copy.width == expected.width && copy.height == expected.height)
            #expect(Self.mismatches(copy.pixels, expected.rgbaPixels) == 0, "\(level.url)")
        }
    }

    @Test("a frame at most 640 pixels on its longer side stays one file, and levels: never makes no copies")
    func noCopies() async throws {
        for (zoom, levels) in [(3, nil), (5, "never")] {
            let site = try TestSite()
            defer { site.remove() }
            let reporter = RecordingReporter()
            try await site.build(Self.radar(site, levels: levels, zoom: zoom), reporter: reporter)
            let manifest = try site.manifest("radar")
            if zoom == 3 { #expect(max(try #require(manifest["width"] as? Int), try #require(manifest["height"] as? Int)) <= 640) }
            for frame in try site.frames("radar") { #expect(frame["levels"] == nil) }
            #expect(try Self.copies(site, under: "radar/frames/").isEmpty)
            #expect(reporter.reducedLevels.isEmpty)
            #expect(!String(decoding: try Data(contentsOf: site.output.appendingPathComponent("radar/manifest.json")), as: UTF8.self).contains("\"levels\""))
        }
    }

    @Test("a layered animation's layer frames get their copies in the layer's folder, per layer's levels:, kept on a rebuild")
    func layers() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let yaml = site.yaml(
            """
              - id: storm
                bbox: [-125.0, 24.0, -66.0, 50.0]
                zoom: 5
                frames: { times: [2026-11-21T10:00:00Z, 2026-11-21T10:10:00Z] }
                layers:
                  - id: below
                    source: { demo: radar }
                  - id: above
                    source: { demo: radar }
                    levels: never
            """)
        let reporter = RecordingReporter()
        try await site.build(yaml, reporter: reporter)
        let manifest = try site.manifest("storm")
        let layers = try #require(manifest["layers"] as? [[String: Any]])
        let (width, height) = (try #require(manifest["width"] as? Int), try #require(manifest["height"] as? Int))
        let below = try #require(layers.first { $0["id"] as? String == "below" }?["frames"] as? [[String: Any]])
        let above = try #require(layers.first { $0["id"] as? String == "above" }?["frames"] as? [[String: Any]])
        #expect(below.count == 2 && above.count == 2)
        for frame in below {
            let levels = try Self.levels(frame, site: site, in: "storm", width: width, height: height, ext: "png")
            #expect(levels.count == 2 && levels.allSatisfy { $0.url.hasPrefix("below/frames/") })
        }
        for frame in above { #expect(frame["levels"] == nil) }
        // The timeline's entries have no files, so no copies.
        for entry in try site.frames("storm") { #expect(entry["levels"] == nil) }
        #expect(reporter.reducedLevels.map(\.animation) == ["storm/below"])
        let before = try Self.copies(site, under: "storm/")
        #expect(before.count == 4 && before.keys.allSatisfy { $0.hasPrefix("storm/below/frames/") })
        let again = RecordingReporter()
        try await site.build(yaml, reporter: again)
        #expect(try Self.copies(site, under: "storm/") == before)
        #expect(again.reducedLevels.first?.written == 0 && again.reducedLevels.first?.linked == 4)
    }
}

extension ReducedLevelsTests {
    /// A copy as the manifest lists it, with its file's bytes.
    struct Listed {
        var url: String
        var bytes: [UInt8]
    }

    /// Formula tiles (opaque RGBA) over the world at zoom 2, `format:` as given: 967 pixels
    /// across, so one copy.
    static func formula(_ site: TestSite, url: String, format: String?) -> String {
        site.yaml(
            """
              - id: world
                bbox: [-170, -60, 170, 60]
                zoom: 2
                source: { url: "\(url)" }
                frames: { count: 1 }
            \(format.map { "    format: \($0)" } ?? "")
            """)
    }

    /// A frame's `levels`, checked against the frame's size and its files: coarsest first,
    /// `r<k>` in the frame's folder, each ceil(size / 2^k), `bytes` the file's.
    static func levels(_ frame: [String: Any], site: TestSite, in id: String, width: Int, height: Int, ext: String) throws -> [Listed] {
        let url = try #require(frame["url"] as? String)
        let entries = try #require(frame["levels"] as? [[String: Any]], "no levels in \(frame)")
        let folder = url.dropLast(ext.count + 1)
        var listed: [Listed] = []
        for (i, entry) in entries.enumerated() {
            let halvings = entries.count - i
            let levelURL = try #require(entry["url"] as? String)
            #expect(levelURL == "\(folder)/r\(halvings).\(ext)")
            let scale = 1 << halvings
            #expect(entry["width"] as? Int == (width + scale - 1) / scale && entry["height"] as? Int == (height + scale - 1) / scale, "\(entry)")
            let bytes = [UInt8](try Data(contentsOf: site.output.appendingPathComponent(id).appendingPathComponent(levelURL)))
            #expect(entry["bytes"] as? Int == bytes.count)
            listed.append(Listed(url: levelURL, bytes: bytes))
        }
        // The coarsest is the first at most 640 pixels on its longer side.
        let sizes = entries.compactMap { entry in (entry["width"] as? Int).flatMap { w in (entry["height"] as? Int).map { max(w, $0) } } }
        #expect(sizes.first.map { $0 <= 640 } == true && sizes.dropFirst().allSatisfy { $0 > 640 } && max(width, height) > 640)
        return listed
    }

    /// The copies (`r<k>.<ext>` files) under `prefix` of the site, with their size and inode.
    static func copies(_ site: TestSite, under prefix: String) throws -> [String: TreeComparison.File] {
        let files = try #require(TreeComparison.files(site.output))
        return files.filter { path, _ in
            path.hasPrefix(prefix) && (path as NSString).lastPathComponent.range(of: #"^r[0-9]+\.(png|jpg|webp)$"#, options: .regularExpression) != nil
        }
    }

    /// Pixels (4 bytes each) that differ.
    static func mismatches(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return max(a.count, b.count) / 4 }
        var count = 0
        for i in stride(from: 0, to: a.count, by: 4) where a[i..<(i + 4)] != b[i..<(i + 4)] { count += 1 }
        return count
    }

    /// The frame halved by the documented rule, worked out here on its own: pixel (px, py)
    /// from the frame's pixels (2px...2px+1, 2py...2py+1) that exist; palette: the most
    /// frequent index, ties to the more opaque colour, then the first in reading order; RGBA:
    /// colour Σ(c·a)/Σa and alpha Σa/n, rounded half up.
    struct Reference {
        var width: Int
        var height: Int
        var rgba: [UInt8]?
        var indices: [UInt8]?
        var palette: Palette?

        /// Halved; (`x0`, `y0`): where the box starts on a global pixel grid whose even
        /// columns and rows start the pairs (a pyramid level's; 0, 0 for a reduced copy):
        /// an odd start makes the first coarse column or row from one fine one.
        func halved(x0: Int = 0, y0: Int = 0) -> Reference {
            let left = x0 % 2, top = y0 % 2
            let w = (left + width + 1) / 2, h = (top + height + 1) / 2
            var out = Reference(width: w, height: h, rgba: nil, indices: nil, palette: palette)
            // The fine pixels of coarse pixel (x, y): columns 2x - left + dx, rows 2y - top + dy inside the box.
            let inside = { (x: Int, y: Int) in x >= 0 && x < width && y >= 0 && y < height }
            if let indices, let palette {
                var result = [UInt8](repeating: 0, count: w * h)
                for y in 0..<h {
                    for x in 0..<w {
                        var four: [UInt8] = []
                        for dy in 0...1 {
                            for dx in 0...1 where inside(2 * x - left + dx, 2 * y - top + dy) {
                                four.append(indices[(2 * y - top + dy) * width + 2 * x - left + dx])
                            }
                        }
                        let counts = four.map { c in four.filter { $0 == c }.count }
                        let top = counts.max()!
                        let alphaOf = { (c: UInt8) in palette.rgba[Int(c) * 4 + 3] }
                        let tied = four.indices.filter { counts[$0] == top }
                        let opaque = tied.map { alphaOf(four[$0]) }.max()!
                        result[y * w + x] = four[tied.first { alphaOf(four[$0]) == opaque }!]
                    }
                }
                out.indices = result
            } else if let rgba {
                var result = [UInt8](repeating: 0, count: w * h * 4)
                for y in 0..<h {
                    for x in 0..<w {
                        var n = 0, a = 0, c = [0, 0, 0]
                        for dy in 0...1 {
                            for dx in 0...1 where inside(2 * x - left + dx, 2 * y - top + dy) {
                                let p = ((2 * y - top + dy) * width + 2 * x - left + dx) * 4
                                let alpha = Int(rgba[p + 3])
                                for k in 0..<3 { c[k] += Int(rgba[p + k]) * alpha }
                                a += alpha
                                n += 1
                            }
                        }
                        let o = (y * w + x) * 4
                        if a > 0 { for k in 0..<3 { result[o + k] = UInt8((c[k] + a / 2) / a) } }
                        result[o + 3] = UInt8((a + n / 2) / n)
                    }
                }
                out.rgba = result
            }
            return out
        }

        /// Its pixels as RGBA (indices looked up in the palette).
        var rgbaPixels: [UInt8] {
            if let rgba { return rgba }
            guard let indices, let palette else { return [] }
            return indices.flatMap { palette.rgba[(Int($0) * 4)..<(Int($0) * 4 + 4)] }
        }
    }
}

/// `levels: auto | never`: its default, its values, and its errors (file, key path and line).
@Suite("Reduced levels: config")
struct ReducedLevelsConfigTests {
    static func parse(_ yaml: String) throws -> SiteConfig {
        try ConfigLoader.parse(Data(yaml.utf8), file: "site.yml")
    }

    static func failure(_ yaml: String) throws -> ConfigError {
        let error = #expect(throws: ConfigError.self) { try parse(yaml) }
        return try #require(error)
    }

    static let layered = """
        animations:
          - id: storm
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 5
            frames: { times: [2026-11-21T10:00:00Z] }
            layers:
              - id: radar
                source: { demo: radar }
        """

    @Test("without the key, frames get copies (auto); never turns them off, for an animation or a layer")
    func values() throws {
        #expect(try #require(try Self.parse(ConfigLoaderTests.yaml(appending: [])).animations.first).levels == .auto)
        #expect(try #require(try Self.parse(ConfigLoaderTests.yaml(appending: ["    levels: never"])).animations.first).levels == .never)
        let layer = try #require(try Self.parse(Self.layered + "\n        levels: never\n").animations.first?.layers.first)
        #expect(layer.feed.levels == .never)
    }

    @Test("a bad value names the file, the key path, the line and the values there are")
    func badValue() throws {
        let error = try Self.failure(ConfigLoaderTests.yaml(appending: ["    levels: sometimes"]))
        #expect(error.description.hasPrefix("site.yml:10: animations[0].levels: "), "\(error.description)")
        #expect(error.message.contains("auto, never") && error.message.contains("sometimes"), "\(error.message)")
        let onLayer = try Self.failure(Self.layered + "\n        levels: yes\n")
        #expect(onLayer.description.hasPrefix("site.yml:9: animations[0].layers[0].levels: "), "\(onLayer.description)")
    }

    @Test("on a layered animation the key belongs to each layer")
    func layeredAnimation() throws {
        let error = try Self.failure(Self.layered.replacingOccurrences(of: "    zoom: 5\n", with: "    zoom: 5\n    levels: never\n"))
        #expect(error.keyPath == "animations[0].levels" && error.line == 5, "\(error.description)")
        #expect(error.message.contains("layer's key"), "\(error.message)")
    }
}
