import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Layered animations built end to end over HTTP on 127.0.0.1: a satellite layer every 10
/// minutes (`/sat/`, its green channel saying its time) under the radar feed every 5
/// (`FeedServer`, its red channel saying its time), on one timeline.
@Suite("Layers: the build")
struct LayersBuildTests {
    /// Serves `/sat/<yyyyMMddHHmm>/z/x/y.png`: opaque tiles at multiples of 10 minutes, 404 otherwise.
    static func serveSatellite(_ server: TestServer) {
        server.route(
            prefix: "/sat/",
            .dynamic { request in
                let parts = request.path.split(separator: "/").map(String.init)
                guard parts.count == 5, let time = FeedServer.instant(compact: parts[1]), time.millisecondsSinceEpoch % 600_000 == 0 else {
                    return .status(404)
                }
                return .ok(Self.satellitePNG(for: time), contentType: "image/png", cacheControl: "max-age=86400")
            })
    }

    /// The green channel of a satellite time's tiles: 10 apart from one time to the next, so
    /// that JPEG keeps them apart too.
    static func green(for time: TimeInstant) -> UInt8 {
        UInt8(truncatingIfNeeded: 20 + time.millisecondsSinceEpoch / 600_000 % 20 * 10)
    }

    static func satellitePNG(for time: TimeInstant) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: 256 * 256 * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = 30
            pixels[i + 1] = green(for: time)
            pixels[i + 2] = 200
        }
        return (try? PNGWriter.encode(width: 256, height: 256, format: .rgba, pixels: pixels)) ?? []
    }

    /// A layered animation `storm` on `timeline`, with these layers (YAML list items) and
    /// `extra` lines of the animation's own.
    static func storm(timeline: String, layers: [String], extra: [String] = []) -> String {
        ([
            "  - id: storm",
            "    title: Radar over satellite",
            "    bbox: [-10.0, 40.0, 10.0, 52.0]",
            "    zoom: 3",
            "    frames: \(timeline)",
            "    attribution: Storm desk",
        ] + extra + ["    layers:"] + layers).joined(separator: "\n")
    }

    static func satellite(_ server: TestServer, frames: String = "{ last: PT1H, step: PT10M }", format: String = "jpeg", more: [String] = []) -> [String] {
        [
            "      - id: satellite",
            "        title: Infrared satellite",
            "        source: { url: \"\(server.url("/sat/{time}/{z}/{x}/{y}.png"))\" }",
            "        time_format: \"%Y%m%d%H%M\"",
            "        frames: \(frames)",
            "        format: \(format)",
            "        attribution: Satellite example",
        ] + more
    }

    static func radar(_ server: TestServer, opacity: Double = 0.6) -> [String] {
        [
            "      - id: radar",
            "        title: Radar",
            "        source: { url: \"\(server.url("/radar/{time}/{z}/{x}/{y}.png"))\" }",
            "        time_format: \"%Y%m%d%H%M\"",
            "        opacity: \(opacity)",
            "        legend: { unit: dBZ, stops: [[5, \"#04e9e7\"], [65, \"#f800fd\"]] }",
        ]
    }

    static func layers(_ manifest: [String: Any]) throws -> [[String: Any]] {
        try #require(manifest["layers"] as? [[String: Any]])
    }

    /// The timeline's `layers` arrays, null as nil.
    static func mapping(_ manifest: [String: Any]) throws -> [[Int?]] {
        try #require(manifest["frames"] as? [[String: Any]]).map { entry in
            try #require(entry["layers"] as? [Any]).map { $0 as? Int }
        }
    }

    /// Files in `site/<id>/<folder>` (not below).
    static func files(_ site: TestSite, _ folder: String) throws -> [String] {
        let url = site.output.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted()
    }

    static func bytes(_ site: TestSite, _ id: String, _ url: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: site.output.appendingPathComponent(id).appendingPathComponent(url)))
    }

    /// Runs `body` with the radar feed and the satellite on a fresh test server, and a fresh site.
    static func withFeeds(_ body: (TestServer, FeedServer, TestSite) async throws -> Void) async throws {
        try await withTestServer { server in
            let feed = FeedServer(server)
            serveSatellite(server)
            let site = try TestSite()
            defer { site.remove() }
            try await body(server, feed, site)
        }
    }

    /// The radar over the satellite, each at its own cadence, on a 5-minute timeline of an hour.
    static func standard(_ server: TestServer, _ site: TestSite) -> String {
        site.yaml(storm(timeline: "{ last: PT1H, step: PT5M }", layers: satellite(server) + radar(server)))
    }

    static func stitched(_ reporter: RecordingReporter, _ animation: String) -> Int {
        reporter.events.filter { if case .frameDone(animation, _, false) = $0 { true } else { false } }.count
    }

    @Test(
        "a JPEG layer every 10 minutes under a PNG layer every 5: one file per layer frame, each timeline time names the frames it shows, the poster composes them"
    )
    func twoCadences() async throws {
        try await Self.withFeeds { server, feed, site in
            let yaml = Self.standard(server, site)
            let reporter = RecordingReporter()
            // 12:07: the radar's 12:05 is out (at 12:06:30); the satellite's newest is 12:00.
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed, reporter: reporter)
            let manifest = try site.manifest("storm")
            let timeline = try #require(manifest["frames"] as? [[String: Any]])
            let times = (0...12).map { TimelineTests.t(11, 5).adding(ISODuration(milliseconds: 300_000), times: Int64($0)) }
            #expect(timeline.compactMap { $0["time"] as? String } == times.map(\.manifestText))
            // A timeline entry has no file of its own.
            #expect(timeline.allSatisfy { $0["url"] == nil && $0["sha256"] == nil && $0["duration_ms"] != nil })
            let layers = try Self.layers(manifest)
            #expect(layers.map { $0["id"] as? String } == ["satellite", "radar"])
            #expect(layers.map { $0["title"] as? String } == ["Infrared satellite", "Radar"])
            #expect(layers.map { $0["opacity"] as? Double } == [1, 0.6])
            #expect(layers[1]["legend"] != nil && layers[0]["legend"] == nil)
            #expect(manifest["attribution"] as? String == "Storm desk; Satellite example")
            #expect(manifest["opacity"] == nil && manifest["legend"] == nil)

            // The satellite's seven frames (11:00 to 12:00), each once, in JPEG; the radar's thirteen in PNG.
            let satellite = try #require(layers[0]["frames"] as? [[String: Any]])
            let radar = try #require(layers[1]["frames"] as? [[String: Any]])
            #expect(
                satellite.compactMap { $0["time"] as? String }
                    == (0...6).map { TimelineTests.t(11, 0).adding(ISODuration(milliseconds: 600_000), times: Int64($0)).manifestText })
            #expect(radar.compactMap { $0["time"] as? String } == times.map(\.manifestText))
            #expect(
                satellite.allSatisfy { ($0["url"] as? String)?.hasPrefix("satellite/frames/") == true && ($0["url"] as? String)?.hasSuffix(".jpg") == true })
            #expect(radar.allSatisfy { ($0["url"] as? String)?.hasPrefix("radar/frames/") == true && ($0["url"] as? String)?.hasSuffix(".png") == true })
            // Each satellite frame serves two timeline times, and is one file.
            #expect(try Self.files(site, "storm/satellite/frames").count == 7)
            #expect(try Self.files(site, "storm/radar/frames").count == 13)
            #expect(Self.stitched(reporter, "storm/satellite") == 7 && Self.stitched(reporter, "storm/radar") == 13)
            let expected: [[Int?]] = (0...12).map { [($0 + 1) / 2, $0] }
            #expect(try Self.mapping(manifest) == expected)

            // Each layer frame was drawn from its own time's tiles.
            for frame in radar {
                let image = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(
                    try Self.bytes(site, "storm", try #require(frame["url"] as? String)), keepIndices: false)
                let time = try TimeInstant.parse(try #require(frame["time"] as? String))
                #expect(image.pixels[0] == FeedServer.red(for: time) && image.pixels[3] == 255)
            }
            for frame in satellite {
                let bytes = try Self.bytes(site, "storm", try #require(frame["url"] as? String))
                #expect(ImageKind.sniff(bytes) == .jpeg)
                let image = try TileDecoder().decode(bytes, keepIndices: false)
                let time = try TimeInstant.parse(try #require(frame["time"] as? String))
                let centre = ((image.height / 2) * image.width + image.width / 2) * 4
                #expect(abs(Int(image.pixels[centre + 1]) - Int(Self.green(for: time))) <= 3, "satellite \(frame["time"] ?? "")")
            }
            // The poster: the last time's radar (12:05) at 0.6 over the satellite (12:00).
            let poster = try PNGDecoder(maxWidth: 4096, maxHeight: 4096).decode(try Self.bytes(site, "storm", "poster.png"), keepIndices: false)
            let centre = ((poster.height / 2) * poster.width + poster.width / 2) * 4
            let red = 0.6 * Double(FeedServer.red(for: times[12])) + 0.4 * 30
            #expect(abs(Double(poster.pixels[centre]) - red) <= 2 && poster.pixels[centre + 3] == 255, "poster \(Array(poster.pixels[centre..<(centre + 4)]))")
        }
    }

    @Test("five minutes later: only the new frames of each layer are fetched and stitched; every other layer frame keeps its file")
    func rebuild() async throws {
        try await Self.withFeeds { server, feed, site in
            let yaml = Self.standard(server, site)
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            let before = try Self.layers(site.manifest("storm")).map { try #require($0["frames"] as? [[String: Any]]) }
            func inode(_ url: String) throws -> UInt64 {
                try #require(
                    try FileManager.default.attributesOfItem(atPath: site.output.appendingPathComponent("storm/\(url)").path)[.systemFileNumber] as? UInt64)
            }
            let kept = try before.map { try $0.dropFirst().map { try inode(try #require($0["url"] as? String)) } }

            server.resetCounts()
            let reporter = RecordingReporter()
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:12:00Z", feed: feed, reporter: reporter)
            #expect(Self.stitched(reporter, "storm/satellite") == 1 && Self.stitched(reporter, "storm/radar") == 1)
            let satelliteRequests = server.allRequests.filter { $0.path.hasPrefix("/sat/") }.map { String($0.path.split(separator: "/")[1]) }
            #expect(Set(satelliteRequests) == ["202611211210"])
            let after = try Self.layers(site.manifest("storm")).map { try #require($0["frames"] as? [[String: Any]]) }
            // The window moved by one frame in each layer: the frames both builds show keep their names and files.
            for (layer, (old, new)) in zip(before, after).enumerated() {
                #expect(old.dropFirst().map { $0["url"] as? String } == new.dropLast().map { $0["url"] as? String }, "layer \(layer)")
                #expect(try new.dropLast().map { try inode(try #require($0["url"] as? String)) } == kept[layer], "layer \(layer)")
            }
            #expect(try Self.mapping(site.manifest("storm")) == (0...12).map { [$0 / 2, $0] })
        }
    }

    @Test("a rebuild whose last timeline time shows the same layer frames links the published poster; another opacity composes it again")
    func posterKept() async throws {
        try await Self.withFeeds { server, feed, site in
            func inode() throws -> UInt64 {
                try #require(
                    try FileManager.default.attributesOfItem(atPath: site.output.appendingPathComponent("storm/poster.png").path)[.systemFileNumber]
                        as? UInt64)
            }
            let yaml = Self.standard(server, site)
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            let published = try inode()
            // Only the title changes: a new manifest, the same stack at the last time.
            let retitled = yaml.replacingOccurrences(of: "title: Radar over satellite", with: "title: Storm")
            #expect(!(try await LiveFeedTests.build(site, retitled, at: "2026-11-21T12:07:00Z", feed: feed).unchanged))
            #expect(try site.manifest("storm")["title"] as? String == "Storm")
            #expect(try inode() == published)
            // The radar fainter: the last time's stack is another picture, composed again.
            let fainter = site.yaml(Self.storm(timeline: "{ last: PT1H, step: PT5M }", layers: Self.satellite(server) + Self.radar(server, opacity: 0.3)))
            try await LiveFeedTests.build(site, fainter, at: "2026-11-21T12:07:00Z", feed: feed)
            #expect(try inode() != published)
        }
    }

    @Test("a layer from a JSON index and a layer from a template, each placed by its own times, with max_age")
    func indexAndTemplate() async throws {
        try await Self.withFeeds { server, feed, site in
            let radar = [
                "      - id: radar",
                "        source: { url: \"{host}{path}/256/{z}/{x}/{y}/2/1_1.png\" }",
                "        frames: { index: { url: \"\(server.url("/public/weather-maps.json"))\", items: radar.past, time: time, fields: { path: path }, globals: { host: host } } }",
            ]
            let yaml = site.yaml(
                Self.storm(
                    timeline: "{ last: PT30M, step: PT5M }",
                    layers: Self.satellite(server, frames: "{ last: PT30M, step: PT10M }", more: ["        max_age: PT4M"]) + radar))
            // 12:02: the index lists 11:35 to 12:00 (every 5 minutes), the timeline is 11:30 to 12:00.
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:02:00Z", feed: feed)
            let manifest = try site.manifest("storm")
            #expect(try Self.mapping(manifest) == [[0, nil], [nil, 0], [1, 1], [nil, 2], [2, 3], [nil, 4], [3, 5]])
            let layers = try Self.layers(manifest)
            #expect(try #require(layers[1]["frames"] as? [[String: Any]]).count == 6)
            #expect(try #require(layers[0]["frames"] as? [[String: Any]]).count == 4)
        }
    }

    @Test("a layer that nothing on the timeline shows fails the build, naming the layer; the site stays as it was")
    func layerNotShown() async throws {
        try await Self.withFeeds { server, feed, site in
            let good = Self.standard(server, site)
            try await LiveFeedTests.build(site, good, at: "2026-11-21T12:07:00Z", feed: feed)
            let published = try site.fileHashes()
            // Yesterday's satellite pictures: none within max_age of the timeline.
            let stale = site.yaml(
                Self.storm(
                    timeline: "{ last: PT1H, step: PT5M }",
                    layers: Self.satellite(server, frames: "{ range: { start: 2026-11-20T10:00:00Z, end: 2026-11-20T11:00:00Z, step: PT10M } }")
                        + Self.radar(server)))
            do {
                try await LiveFeedTests.build(site, stale, at: "2026-11-21T12:07:00Z", feed: feed)
                Issue.record("built a layer that shows nothing")
            } catch {
                let text = "\(error)"
                #expect(text.contains("animations[0].layers[0]") && text.contains("layer satellite"), "\(text)")
                // Named like a config error: the file and the layer's line first.
                let line = try #require(stale.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("- id: satellite") }) + 1
                #expect(text.contains("matsite.yml:\(line): animations[0].layers[0]: "), "\(text)")
                #expect(text.contains("2026-11-20T10:00:00Z to 2026-11-20T11:00:00Z") && text.contains("max_age PT20M"), "\(text)")
                #expect(ExitClass.of(error) == .failed)
            }
            #expect(try site.fileHashes() == published)
        }
    }

    @Test("a layer whose every tile is missing fails as an empty loop naming the layer, under missing: transparent too")
    func emptyLayer() async throws {
        try await Self.withFeeds { server, feed, site in
            server.route(prefix: "/gone/", .status(404))
            let gone = [
                "      - id: lightning",
                "        source: { url: \"\(server.url("/gone/{time}/{z}/{x}/{y}.png"))\" }",
                "        time_format: \"%Y%m%d%H%M\"",
                "        frames: { times: [2026-11-21T11:30:00Z, 2026-11-21T11:40:00Z] }",
                "        missing: transparent",
            ]
            let yaml = site.yaml(Self.storm(timeline: "{ last: PT1H, step: PT5M }", layers: Self.satellite(server) + gone))
            do {
                try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
                Issue.record("published an empty layer")
            } catch {
                #expect("\(error)".contains("storm/lightning: not one tile of any frame could be had"), "\(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: site.output.appendingPathComponent("storm").path))
        }
    }

    @Test("a layer's newest frame not published yet is left out of that layer; the timeline shows its frame before, while fresh")
    func notPublishedYet() async throws {
        try await Self.withFeeds { server, feed, site in
            // 12:06: the timeline ends at 12:05, whose radar tiles come out at 12:06:30.
            try await LiveFeedTests.build(site, Self.standard(server, site), at: "2026-11-21T12:06:00Z", feed: feed)
            let manifest = try site.manifest("storm")
            let radar = try Self.layers(manifest)[1]
            let skipped = try #require(radar["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == ["2026-11-21T12:05:00Z"])
            #expect(manifest["skipped"] == nil)
            let frames = try #require(radar["frames"] as? [[String: Any]])
            #expect(frames.count == 12 && frames.last?["time"] as? String == "2026-11-21T12:00:00Z")
            // At 12:05 the radar shows 12:00's frame (5 minutes old, within twice its step).
            #expect(try Self.mapping(manifest).last == [6, 11])
        }
    }

    @Test("pyramid and fallback are per layer: each layer's levels and fallback tiles in its folder, named in its manifest entry")
    func levelsAndFallbackPerLayer() async throws {
        try await Self.withFeeds { server, feed, site in
            let layers =
                Self.satellite(server, more: ["        pyramid: { publish: always }"])
                + Self.radar(server) + ["        fallback: { levels: 1 }", "        pyramid: { publish: never }"]
            let yaml = site.yaml(Self.storm(timeline: "{ last: PT10M, step: PT5M }", layers: layers))
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            let entries = try Self.layers(site.manifest("storm"))
            // The satellite has levels, no fallback; the radar fallback tiles, no levels.
            #expect(entries[0]["pyramid"] != nil && entries[0]["fallback"] == nil)
            #expect(entries[1]["pyramid"] == nil)
            let satellite = try #require(entries[0]["frames"] as? [[String: Any]])
            for frame in satellite {
                let tiles = try #require(frame["tiles"] as? String)
                #expect(tiles.hasPrefix("satellite/frames/") && tiles.contains("/{z}/{x}/{y}."), "\(tiles)")
                let folder = site.output.appendingPathComponent("storm/" + String(tiles.prefix { $0 != "{" }.dropLast()))
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("3").path), "\(folder.path)")
            }
            let fallback = try #require(entries[1]["fallback"] as? [String: Any])
            let templates = try #require(fallback["templates"] as? [String])
            #expect(templates.count == 3 && templates.allSatisfy { $0.hasPrefix("radar/tiles/") }, "\(templates)")
            #expect(fallback["published"] as? Bool == true)
            let radar = try #require(entries[1]["frames"] as? [[String: Any]])
            #expect(radar.allSatisfy { $0["fallback_hash"] != nil && $0["tiles"] == nil })
            #expect(FileManager.default.fileExists(atPath: site.output.appendingPathComponent("storm/radar/tiles").path))
            #expect(!FileManager.default.fileExists(atPath: site.output.appendingPathComponent("storm/tiles").path))

            // Five minutes later the window moves on: the level tiles of a frame both builds
            // show are the same files (a layer's levels are kept as a one-source animation's).
            let newest = try #require(satellite.last?["tiles"] as? String)
            let folder = "storm/" + String(newest.prefix { $0 != "{" })
            let tile = try #require(
                FileManager.default.subpathsOfDirectory(atPath: site.output.appendingPathComponent(folder).path).first { $0.contains(".") })
            func inode() throws -> UInt64? {
                try FileManager.default.attributesOfItem(atPath: site.output.appendingPathComponent(folder + tile).path)[.systemFileNumber] as? UInt64
            }
            let before = try inode()
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:12:00Z", feed: feed)
            #expect(try inode() == before && before != nil, "\(folder + tile)")
        }
    }

    @Test("check reports the timeline, then each layer on lines of its own, and probes each layer's frames")
    func check() async throws {
        try await Self.withFeeds { server, feed, site in
            feed.set("2026-11-21T12:07:00Z")
            let config = try site.config(Self.standard(server, site))
            let lines = LockedBox([Checker.Line]())
            let worst = await Checker(config: config, at: TimeFormat.instant("2026-11-21T12:07:00Z")).run { line in lines.withLock { $0.append(line) } }
            #expect(worst == nil)
            let facts = lines.withLock { $0 }.compactMap { if case .fact(let text) = $0 { text } else { nil } }
            #expect(facts.first == "timeline: 13 times, 2026-11-21T11:05:00Z .. 2026-11-21T12:05:00Z", "the timeline first: \(facts)")
            // Then each layer in order, all its lines together.
            let owners = facts.dropFirst().map { $0.hasPrefix("layer satellite: ") ? 0 : $0.hasPrefix("layer radar: ") ? 1 : -1 }
            #expect(owners == owners.sorted() && owners.first == 0 && owners.last == 1, "\(facts)")
            #expect(facts.contains("layer satellite: shown at 13 of 13 timeline times (max_age PT20M)"), "\(facts)")
            #expect(facts.contains("layer radar: shown at 13 of 13 timeline times (max_age PT10M)"), "\(facts)")
            #expect(facts.contains("layer satellite: probed 7 tile(s), one per frame: 7 ok"), "\(facts)")
            #expect(facts.contains("layer radar: probed 13 tile(s), one per frame: 13 ok"), "\(facts)")
            #expect(!FileManager.default.fileExists(atPath: site.output.path), "check writes nothing")
        }
    }

    @Test("an exported loop composes the layers bottom to top at their opacities, on the timeline's times")
    func export() async throws {
        try await Self.withFeeds { server, feed, site in
            let layers = Self.satellite(server, format: "png") + Self.radar(server, opacity: 0.5)
            let yaml = site.yaml(Self.storm(timeline: "{ last: PT20M, step: PT5M }", layers: layers, extra: ["    export: [webp]", "    export_quality: 100"]))
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:07:00Z", feed: feed)
            let manifest = try site.manifest("storm")
            let name = try #require((manifest["exports"] as? [String: String])?["webp"])
            let frames = try LoopFrames.webp(try Self.bytes(site, "storm", name))
            // One loop frame per timeline time (11:45 to 12:05).
            #expect(frames.count == 5)
            // The first: 11:45's radar at half opacity over 11:40's satellite, in the middle of the picture.
            let first = try WebPDecoder(maxWidth: 4096, maxHeight: 4096).decode(frames[0])
            let centre = ((first.height / 2) * first.width + first.width / 2) * 4
            let radarRed = Int(FeedServer.red(for: try TimeInstant.parse("2026-11-21T11:45:00Z")))
            let satelliteGreen = Int(Self.green(for: try TimeInstant.parse("2026-11-21T11:40:00Z")))
            // LoopCanvas blends with alpha 128/255 for opacity 0.5: (src * 128 + dst * 127 + 127) / 255.
            let expected = [(radarRed * 128 + 30 * 127 + 127) / 255, (60 * 128 + satelliteGreen * 127 + 127) / 255, (120 * 128 + 200 * 127 + 127) / 255]
            #expect(Array(first.pixels[centre..<(centre + 3)]).map(Int.init) == expected)
        }
    }
}

/// The frames of an animated WebP, each as a still WebP file (the first is the whole canvas).
enum LoopFrames {
    static func webp(_ bytes: [UInt8]) throws -> [[UInt8]] {
        func chunks(_ data: ArraySlice<UInt8>) -> [(String, ArraySlice<UInt8>)] {
            var out: [(String, ArraySlice<UInt8>)] = []
            var at = data.startIndex
            while at + 8 <= data.endIndex {
                let size = Int(data[at + 4]) | Int(data[at + 5]) << 8 | Int(data[at + 6]) << 16 | Int(data[at + 7]) << 24
                out.append((String(decoding: data[at..<(at + 4)], as: UTF8.self), data[(at + 8)..<min(data.endIndex, at + 8 + size)]))
                at += 8 + size + size % 2
            }
            return out
        }
        return chunks(bytes[12...]).filter { $0.0 == "ANMF" }.map { frame in
            // After 16 bytes of position, size, duration and flags: the frame's own chunks.
            var body: [UInt8] = []
            for (name, data) in chunks(frame.1.dropFirst(16)) {
                let size = data.count
                body += Array(name.utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24 & 0xFF)] + data
                if size % 2 == 1 { body.append(0) }
            }
            let total = body.count + 4
            return Array("RIFF".utf8) + [UInt8(total & 0xFF), UInt8(total >> 8 & 0xFF), UInt8(total >> 16 & 0xFF), UInt8(total >> 24 & 0xFF)]
                + Array("WEBP".utf8) + body
        }
    }
}
