import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Frames published as tile pyramids (`pyramid:`), built from the offline demo source as a
/// user would: the manifest's `pyramid` and `tiles`, every tile on disk, the finest level
/// equal to the frame, levels kept by hard links, and no change at all without levels.
@Suite("FramePyramidPublisher")
struct FramePyramidPublisherTests {
    /// The frames' box: about 1343 x 755 pixels at zoom 5, so two levels (z4 fits 1024 pixels).
    static let layout = WebMercator.layout(of: BoundingBox(west: -125, south: 24, east: -66, north: 50), zoom: 5, sourceZoom: 5, tileSize: 256)

    /// The frames' reduced copies (`levels:`, ReducedLevelsTests) are left out: the
    /// `frames/<hash>/` folders then hold the level tiles alone.
    static func yaml(_ site: TestSite, pyramid: String?, title: String = "Radar") -> String {
        site.yaml(
            """
              - id: radar
                title: \(title)
                bbox: [-125.0, 24.0, -66.0, 50.0]
                zoom: 5
                source: { demo: radar }
                frames: { count: 2 }
                levels: never
            \(pyramid.map { "    pyramid: \($0)" } ?? "")
            """)
    }

    @Test("publish: always writes the manifest's pyramid, each frame's tiles and every tile of every level")
    func publishesLevels() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let reporter = RecordingReporter()
        try await site.build(Self.yaml(site, pyramid: "{ publish: always }"), reporter: reporter)
        let manifest = try site.manifest("radar")
        let pyramid = try #require(manifest["pyramid"] as? [String: Any])
        #expect(pyramid["tile_size"] as? Int == 256)
        #expect(pyramid["min_zoom"] as? Int == 4 && pyramid["max_zoom"] as? Int == 5)
        let levels = try #require(pyramid["levels"] as? [[String: Int]])
        #expect(levels.map { $0["zoom"] } == [4, 5])
        // The finest level is the frame's own box.
        let layout = Self.layout
        #expect(levels[1] == ["zoom": 5, "x0": layout.originX, "y0": layout.originY, "width": layout.width, "height": layout.height])
        #expect(levels[1]["width"] == manifest["width"] as? Int && levels[1]["height"] == manifest["height"] as? Int)
        #expect(levels[0]["x0"] == layout.originX / 2 && levels[0]["width"] == (layout.originX + layout.width + 1) / 2 - layout.originX / 2)

        let frames = try site.frames("radar")
        var expected: Set<String> = []
        for frame in frames {
            let url = try #require(frame["url"] as? String)
            let tiles = try #require(frame["tiles"] as? String)
            #expect(tiles == url.dropLast(4) + "/{z}/{x}/{y}.png")
            for level in levels {
                let (z, x0, y0, w, h) = (level["zoom"]!, level["x0"]!, level["y0"]!, level["width"]!, level["height"]!)
                for x in (x0 / 256)...((x0 + w - 1) / 256) {
                    for y in (y0 / 256)...((y0 + h - 1) / 256) {
                        expected.insert("radar/" + tiles.replacingOccurrences(of: "{z}/{x}/{y}", with: "\(z)/\(x)/\(y)"))
                    }
                }
            }
        }
        let onDisk = Set(try site.fileHashes().keys.filter { $0.hasPrefix("radar/frames/") && $0.split(separator: "/").count > 4 })
        #expect(onDisk == expected)
        #expect(reporter.levels.count == 1)
        #expect(reporter.levels.first?.written == expected.count && reporter.levels.first?.linked == 0, "\(reporter.levels)")

        // Every finest tile, decoded, holds the frame's pixels at its place; outside the box, nothing.
        for (index, frame) in frames.enumerated() {
            let image = try site.frameRGBA("radar", index: index)
            let tiles = try #require(frame["tiles"] as? String)
            for x in (layout.originX / 256)...((layout.originX + layout.width - 1) / 256) {
                for y in (layout.originY / 256)...((layout.originY + layout.height - 1) / 256) {
                    let path = site.output.appendingPathComponent("radar/" + tiles.replacingOccurrences(of: "{z}/{x}/{y}", with: "5/\(x)/\(y)"))
                    let tile = try PNGDecoder().decode([UInt8](try Data(contentsOf: path)), keepIndices: false)
                    #expect(tile.width == 256 && tile.height == 256)
                    var mismatches = 0
                    for ty in 0..<256 {
                        for tx in 0..<256 {
                            let fx = x * 256 + tx - layout.originX, fy = y * 256 + ty - layout.originY
                            let got = tile.pixels[((ty * 256 + tx) * 4)..<((ty * 256 + tx) * 4 + 4)]
                            if fx >= 0 && fx < layout.width && fy >= 0 && fy < layout.height {
                                let at = (fy * layout.width + fx) * 4
                                if got != image.pixels[at..<(at + 4)] { mismatches += 1 }
                            } else if got.last != 0 {
                                mismatches += 1
                            }
                        }
                    }
                    #expect(mismatches == 0, "frame \(index) tile 5/\(x)/\(y)")
                }
            }
        }
    }

    @Test("the coarsest level is also one image a frame, listed as `coarsest`: the level's box, the frame halved pixel for pixel, linked when unchanged")
    func coarsestLevelIsOneImage() async throws {
        let site = try TestSite()
        defer { site.remove() }
        // The box a little further west than the others': it starts at an odd column, so the
        // coarsest level's first column is made from the frame's first alone.
        let yaml = Self.yaml(site, pyramid: "{ publish: always }").replacingOccurrences(of: "[-125.0,", with: "[-125.1,")
        try await site.build(yaml)
        let manifest = try site.manifest("radar")
        let coarse = try #require((manifest["pyramid"] as? [String: Any])?["levels"] as? [[String: Int]]).first!
        let layout = WebMercator.layout(of: BoundingBox(west: -125.1, south: 24, east: -66, north: 50), zoom: 5, sourceZoom: 5, tileSize: 256)
        #expect(layout.originX % 2 == 1 || layout.originY % 2 == 1, "an odd start is what the pairs' test is for: \(layout.originX), \(layout.originY)")
        var inodes: [UInt64] = []
        for (index, frame) in try site.frames("radar").enumerated() {
            let tiles = try #require(frame["tiles"] as? String)
            let listed = try #require(frame["coarsest"] as? [String: Any])
            let url = try #require(listed["url"] as? String)
            #expect(url == tiles.replacingOccurrences(of: "/{z}/{x}/{y}.png", with: "/4.png"))
            #expect(listed["width"] as? Int == coarse["width"] && listed["height"] as? Int == coarse["height"])
            let path = site.output.appendingPathComponent("radar/" + url)
            let bytes = [UInt8](try Data(contentsOf: path))
            #expect(listed["bytes"] as? Int == bytes.count)
            let decoded = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(site.frameBytes("radar", index: index), keepIndices: true)
            let expected = ReducedLevelsTests.Reference(
                width: layout.width, height: layout.height, rgba: decoded.palette == nil ? decoded.pixels : nil,
                indices: decoded.palette == nil ? nil : decoded.pixels, palette: decoded.palette
            ).halved(x0: layout.originX, y0: layout.originY)
            let image = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(bytes, keepIndices: false)
            #expect(image.width == coarse["width"] && image.height == coarse["height"])
            #expect(ReducedLevelsTests.mismatches(image.pixels, expected.rgbaPixels) == 0, "\(url)")
            inodes.append(try CacheBench.inode(path))
        }
        // Unchanged: the images are the previous site's files.
        try await site.build(yaml.replacingOccurrences(of: "title: Radar", with: "title: Radar again"))
        let again = try site.frames("radar").map { frame in
            let url = (frame["coarsest"] as? [String: Any])?["url"] as? String ?? ""
            return try CacheBench.inode(site.output.appendingPathComponent("radar/" + url))
        }
        #expect(again == inodes)
    }

    @Test("a coarsest level over 640 px also has its halvings as images (`coarsest.levels`), pixel for pixel, linked when unchanged")
    func coarsestHalvingsAreImages() async throws {
        let site = try TestSite()
        defer { site.remove() }
        // The odd western edge again: the halving's first column comes from one of the coarsest level's.
        let yaml = Self.yaml(site, pyramid: "{ publish: always }").replacingOccurrences(of: "[-125.0,", with: "[-125.1,")
        let reporter = RecordingReporter()
        try await site.build(yaml, reporter: reporter)
        let manifest = try site.manifest("radar")
        let levels = try #require((manifest["pyramid"] as? [String: Any])?["levels"] as? [[String: Int]])
        let coarse = levels[0]
        #expect(max(coarse["width"]!, coarse["height"]!) > ReducedLevelsSetting.coarsestMaxEdge, "a halving is what this test is for: \(coarse)")
        // The pyramid's own rule for the level below: pairs of global pixels.
        let halving = PyramidLevel(zoom: 4, x0: coarse["x0"]!, y0: coarse["y0"]!, width: coarse["width"]!, height: coarse["height"]!).coarser
        #expect(max(halving.width, halving.height) <= ReducedLevelsSetting.coarsestMaxEdge)
        var inodes: [UInt64] = [], imageBytes: [String: Int] = [:]
        for (index, frame) in try site.frames("radar").enumerated() {
            let listed = try #require(frame["coarsest"] as? [String: Any])
            let images = try #require(listed["levels"] as? [[String: Any]])
            // One halving: z3 fits 640 pixels, so the list stops there.
            #expect(images.count == 1)
            let image = try #require(images.first)
            let url = try #require(image["url"] as? String)
            #expect(url == (listed["url"] as? String)?.replacingOccurrences(of: "/4.png", with: "/3.png"))
            #expect(image["zoom"] as? Int == 3 && image["x0"] as? Int == halving.x0 && image["y0"] as? Int == halving.y0)
            #expect(image["width"] as? Int == halving.width && image["height"] as? Int == halving.height)
            let path = site.output.appendingPathComponent("radar/" + url)
            let bytes = [UInt8](try Data(contentsOf: path))
            #expect(image["bytes"] as? Int == bytes.count)
            imageBytes[url] = bytes.count + (listed["bytes"] as? Int ?? 0)
            // The frame halved twice by the reference, each time on the global grid's pairs.
            let decoded = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(site.frameBytes("radar", index: index), keepIndices: true)
            let layout = WebMercator.layout(of: BoundingBox(west: -125.1, south: 24, east: -66, north: 50), zoom: 5, sourceZoom: 5, tileSize: 256)
            let expected = ReducedLevelsTests.Reference(
                width: layout.width, height: layout.height, rgba: decoded.palette == nil ? decoded.pixels : nil,
                indices: decoded.palette == nil ? nil : decoded.pixels, palette: decoded.palette
            ).halved(x0: layout.originX, y0: layout.originY).halved(x0: coarse["x0"]!, y0: coarse["y0"]!)
            let got = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(bytes, keepIndices: false)
            #expect(got.width == halving.width && got.height == halving.height)
            #expect(ReducedLevelsTests.mismatches(got.pixels, expected.rgbaPixels) == 0, "\(url)")
            inodes.append(try CacheBench.inode(path))
        }
        // The images' bytes are counted with the coarsest level's tiles, as the coarsest image's are.
        let tileBytes = try site.fileHashes().keys.filter {
            $0.hasPrefix("radar/frames/") && $0.split(separator: "/").count > 4 && $0.split(separator: "/")[3] == "4"
        }
        .reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: site.output.appendingPathComponent($1).path)[.size] as? Int ?? 0) }
        #expect(reporter.levels.first?.levels.first?.bytes == tileBytes + imageBytes.values.reduce(0, +), "\(reporter.levels)")
        // Unchanged: the halvings are the previous site's files.
        try await site.build(yaml.replacingOccurrences(of: "title: Radar", with: "title: Radar again"))
        let again = try site.frames("radar").map { frame in
            let url = ((frame["coarsest"] as? [String: Any])?["levels"] as? [[String: Any]])?.first?["url"] as? String ?? ""
            return try CacheBench.inode(site.output.appendingPathComponent("radar/" + url))
        }
        #expect(again == inodes)
    }

    @Test("lossy frames (format: webp) get lossy WebP level tiles: near the frame's pixels, transparent outside its box, linked when unchanged")
    func lossyFramesGetWebPTiles() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let yaml = site.yaml(
            """
              - id: radar
                bbox: [-125.0, 24.0, -66.0, 50.0]
                zoom: 5
                format: webp
                source: { demo: radar }
                frames: { count: 1 }
                pyramid: { publish: always }
            """)
        try await site.build(yaml)
        let frame = try #require(try site.frames("radar").first)
        let url = try #require(frame["url"] as? String)
        let tiles = try #require(frame["tiles"] as? String)
        #expect(url.hasSuffix(".webp") && tiles == url.dropLast(5) + "/{z}/{x}/{y}.webp")
        #expect((frame["coarsest"] as? [String: Any])?["url"] as? String == url.dropLast(5) + "/4.webp")
        let layout = Self.layout
        let decoder = TileDecoder(maxWidth: 4096, maxHeight: 4096)
        let image = try decoder.decode([UInt8](try Data(contentsOf: site.output.appendingPathComponent("radar/" + url))), keepIndices: false)
        var error = 0, compared = 0, outsideOpaque = 0
        for x in (layout.originX / 256)...((layout.originX + layout.width - 1) / 256) {
            for y in (layout.originY / 256)...((layout.originY + layout.height - 1) / 256) {
                let path = site.output.appendingPathComponent("radar/" + tiles.replacingOccurrences(of: "{z}/{x}/{y}", with: "5/\(x)/\(y)"))
                let bytes = [UInt8](try Data(contentsOf: path))
                #expect(ImageKind.sniff(bytes) == .webp)
                let tile = try decoder.decode(bytes, keepIndices: false)
                for ty in stride(from: 0, to: 256, by: 3) {
                    for tx in stride(from: 0, to: 256, by: 3) {
                        let fx = x * 256 + tx - layout.originX, fy = y * 256 + ty - layout.originY
                        let t = (ty * 256 + tx) * 4
                        if fx >= 0 && fx < layout.width && fy >= 0 && fy < layout.height {
                            let f = (fy * layout.width + fx) * 4
                            // Premultiplied: the colour under a transparent pixel is anything.
                            let ta = Int(tile.pixels[t + 3]), fa = Int(image.pixels[f + 3])
                            for c in 0..<3 { error += abs(Int(tile.pixels[t + c]) * ta / 255 - Int(image.pixels[f + c]) * fa / 255) }
                            error += abs(ta - fa)
                            compared += 4
                        } else if tile.pixels[t + 3] != 0 {
                            outsideOpaque += 1
                        }
                    }
                }
            }
        }
        #expect(compared > 0 && Double(error) / Double(compared) < 4, "mean error \(Double(error) / Double(max(1, compared)))")
        #expect(outsideOpaque == 0)
        // Unchanged: the WebP tiles are linked, the site kept.
        let reporter = RecordingReporter()
        #expect(try await site.build(yaml, reporter: reporter).unchanged)
        #expect(reporter.levels.first?.written == 0, "\(reporter.levels)")
    }

    @Test("a rebuild with unchanged frames hard-links their level tiles from the previous site")
    func keepsLevelsByLink() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await site.build(Self.yaml(site, pyramid: "{ publish: always }"))
        let tilesBefore = try site.fileHashes().keys.filter { $0.hasPrefix("radar/frames/") && $0.split(separator: "/").count > 4 }.sorted()
        #expect(!tilesBefore.isEmpty)
        let inodes = try tilesBefore.map { try CacheBench.inode(site.output.appendingPathComponent($0)) }
        // The same config again: every tile linked, nothing written, the site left as it was.
        let same = RecordingReporter()
        #expect(try await site.build(Self.yaml(site, pyramid: "{ publish: always }"), reporter: same).unchanged)
        #expect(same.levels.first?.written == 0 && same.levels.first?.linked == tilesBefore.count, "\(same.levels)")
        // A new title changes the pages and manifest: the site is published again, not kept whole.
        let reporter = RecordingReporter()
        let summary = try await site.build(Self.yaml(site, pyramid: "{ publish: always }", title: "Radar again"), reporter: reporter)
        #expect(!summary.unchanged && summary.framesReused == 2)
        let tilesAfter = try site.fileHashes().keys.filter { $0.hasPrefix("radar/frames/") && $0.split(separator: "/").count > 4 }.sorted()
        #expect(tilesAfter == tilesBefore)
        #expect(try tilesAfter.map { try CacheBench.inode(site.output.appendingPathComponent($0)) } == inodes)
        #expect(reporter.levels.first?.written == 0 && reporter.levels.first?.linked == tilesBefore.count, "\(reporter.levels)")
        #expect(try site.manifest("radar")["pyramid"] != nil)
    }

    @Test("a kept frame whose previous level tiles are not all there gets its levels made again, the old files untouched")
    func missingPreviousTile() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await site.build(Self.yaml(site, pyramid: "{ publish: always }"))
        let frames = try site.frames("radar")
        let folder = try #require((frames[0]["tiles"] as? String)?.replacingOccurrences(of: "/{z}/{x}/{y}.png", with: ""))
        let tiles = try site.fileHashes().filter { $0.key.hasPrefix("radar/\(folder)/") && $0.key.split(separator: "/").count > 4 }
        let perFrame = tiles.count
        let gone = try #require(tiles.keys.sorted().last), kept = try #require(tiles.keys.sorted().first)
        try FileManager.default.removeItem(at: site.output.appendingPathComponent(gone))
        // A second name for an old tile: were the new build to write into a linked file, this would change.
        let witness = site.root.appendingPathComponent("witness.png")
        try FileManager.default.linkItem(at: site.output.appendingPathComponent(kept), to: witness)
        let reporter = RecordingReporter()
        try await site.build(Self.yaml(site, pyramid: "{ publish: always }", title: "Radar again"), reporter: reporter)
        #expect(reporter.levels.first?.written == perFrame && reporter.levels.first?.linked == perFrame, "\(reporter.levels)")
        let after = try site.fileHashes()
        #expect(after[gone] == tiles[gone])
        #expect(after[kept] == tiles[kept])
        #expect(SHA256.hex(of: [UInt8](try Data(contentsOf: witness))) == tiles[kept])
        #expect(try CacheBench.inode(witness) != CacheBench.inode(site.output.appendingPathComponent(kept)))
    }

    @Test("levels of a kept frame whose previous site had none are cut from its file")
    func levelsForKeptFrames() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await site.build(Self.yaml(site, pyramid: nil))
        let reporter = RecordingReporter()
        let summary = try await site.build(Self.yaml(site, pyramid: "{ publish: always }"), reporter: reporter)
        #expect(summary.framesReused == 2)
        let frames = try site.frames("radar")
        #expect(frames.allSatisfy { $0["tiles"] is String })
        #expect(reporter.levels.first?.linked == 0, "\(reporter.levels)")
        // And back: without levels, nothing of them is left.
        try await site.build(Self.yaml(site, pyramid: "{ publish: never }"))
        #expect(try site.manifest("radar")["pyramid"] == nil)
        #expect(try site.frames("radar").allSatisfy { $0["tiles"] == nil })
        #expect(try site.fileHashes().keys.allSatisfy { !$0.hasPrefix("radar/frames/") || $0.split(separator: "/").count == 3 })
    }

    @Test("publish: never, and auto below the threshold, publish exactly what a build without the key does")
    func noLevelsNoChange() async throws {
        var outputs: [[String: String]] = []
        for pyramid in [nil, "{ publish: never }", "{ publish: auto }", "{ publish: auto, above_px: \(Self.layout.width * Self.layout.height) }"] {
            let site = try TestSite()
            defer { site.remove() }
            // The site's path appears in no published file, so the trees compare across folders.
            try await site.build(Self.yaml(site, pyramid: pyramid), at: TimeInstant(millisecondsSinceEpoch: 1_795_867_200_000))
            let manifest = try site.manifest("radar")
            #expect(manifest["pyramid"] == nil)
            #expect(try site.frames("radar").allSatisfy { $0["tiles"] == nil })
            outputs.append(try site.fileHashes())
        }
        #expect(outputs.allSatisfy { $0 == outputs[0] })
        #expect(outputs[0].keys.allSatisfy { !$0.hasPrefix("radar/frames/") || $0.split(separator: "/").count == 3 })
    }

    @Test("auto above the threshold publishes levels")
    func autoAboveThreshold() async throws {
        let site = try TestSite()
        defer { site.remove() }
        // One pixel more than the threshold.
        try await site.build(Self.yaml(site, pyramid: "{ publish: auto, above_px: \(Self.layout.width * Self.layout.height - 1) }"))
        #expect(try site.manifest("radar")["pyramid"] != nil)
    }
}
