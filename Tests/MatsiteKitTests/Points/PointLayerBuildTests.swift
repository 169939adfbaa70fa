import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteClustering
@testable import MatsiteKit

/// Point layers through a whole build: files and URLs (over a real loopback server), the
/// published levels and manifest entry, frame counts, and bad data leaving the site as it was.
@Suite("PointLayerBuild")
struct PointLayerBuildTests {
    static let times = ["2026-11-21T10:00:00Z", "2026-11-21T10:10:00Z", "2026-11-21T10:20:00Z"]

    static func animation(points: String) -> String {
        """
          - id: demo
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            source: { demo: radar }
            frames: { times: [\(times.joined(separator: ", "))] }
            points:
        \(points)
        """
    }

    static func geojson(_ points: [(lon: Double, lat: Double, time: String)]) -> String {
        let features = points.enumerated().map { i, p in
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(p.lon),\(p.lat)]},\"properties\":{\"time\":\"\(p.time)\",\"name\":\"p\(i) <img src=x>\"}}"
        }
        return "{\"type\":\"FeatureCollection\",\"features\":[\(features.joined(separator: ","))]}"
    }

    /// Writes the points as `data/r.geojson` in the site's folder.
    static func write(_ points: [(lon: Double, lat: Double, time: String)], in site: TestSite) throws {
        try FileManager.default.createDirectory(at: site.root.appendingPathComponent("data"), withIntermediateDirectories: true)
        try geojson(points).write(to: site.root.appendingPathComponent("data/r.geojson"), atomically: true, encoding: .utf8)
    }

    func level(_ site: TestSite, _ entry: [String: Any]) throws -> [String: Any] {
        let url = try #require(entry["url"] as? String)
        let data = try Data(contentsOf: site.output.appendingPathComponent("demo").appendingPathComponent(url))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("a GeoJSON layer is clustered into one content-hashed file per zoom, listed in the manifest, with counts per frame")
    func publishesLevels() async throws {
        let site = try TestSite()
        defer { site.remove() }
        var points: [(lon: Double, lat: Double, time: String)] = []
        for i in 0..<40 {
            let lon = Double(i % 8) * 0.001
            let lat = 45 + Double(i / 8) * 0.001
            points.append((lon, lat, Self.times[i % 3]))
        }
        points.append((5, 50, "2026-11-21T09:55:00Z"))
        try Self.write(points, in: site)
        let yaml = site.yaml(
            Self.animation(
                points: """
                          - id: reports
                            title: Storm reports
                            geojson: data/r.geojson
                            time: time
                            window: PT10M
                            label: name
                            popup: [name]
                            cluster: { radius_px: 40, max_zoom: 12, min_zoom: 2 }
                    """))
        try await site.build(yaml)
        let manifest = try site.manifest("demo")
        let layers = try #require(manifest["points"] as? [[String: Any]])
        try #require(layers.count == 1)
        let layer = layers[0]
        #expect(layer["id"] as? String == "reports" && layer["title"] as? String == "Storm reports")
        #expect(layer["count"] as? Int == 41 && layer["timed"] as? Bool == true && layer["labeled"] as? Bool == true)
        let levels = try #require(layer["levels"] as? [[String: Any]])
        #expect(levels.compactMap { $0["zoom"] as? Int } == Array(2...13))
        let slots = try #require(layer["slots"] as? [String: Any])
        #expect(slots["origin"] as? String == "2026-11-21T10:00:00Z" && slots["step_ms"] as? Int == 600_000)
        let frameSlots = try #require(slots["frames"] as? [Int])
        #expect(frameSlots == [0, 1, 2])
        for entry in levels {
            let url = try #require(entry["url"] as? String)
            #expect(url.wholeMatch(of: /points\/reports\/z[0-9]{2}-[0-9a-f]{12}\.json/) != nil, "\(url)")
            let data = try level(site, entry)
            let lat = try #require(data["lat"] as? [Double])
            let counts = data["points"] as? Bool == true ? Array(repeating: 1, count: lat.count) : try #require(data["count"] as? [Int])
            #expect(counts.reduce(0, +) == 41)
            #expect((data["parent"] as? [Int])?.count == lat.count)
            // Per frame: the 40 points split over the three frames; the early point (09:55,
            // window 10 min) shows in frame 0 only. Counts are keyed by slots of the frames'
            // 10 minutes, from the first slot a point shows in (10:00).
            let changes = try #require(data["slots"] as? [[Int]])
            var perFrame = [0, 0, 0]
            for item in changes {
                for (f, slot) in frameSlots.enumerated() {
                    var count = 0
                    for k in stride(from: 0, to: item.count - 1, by: 2) where item[k] <= slot { count = item[k + 1] }
                    perFrame[f] += count
                }
            }
            #expect(perFrame == [15, 13, 13], "z\(entry["zoom"] ?? "?")")
        }
        // At zoom 2 the far point (about 25 px away) is within the 40 px radius: one cluster.
        // At zoom 4 (about 100 px away) the 40 nearby points are one cluster, the far one alone.
        #expect((try level(site, levels[0])["count"] as? [Int]) == [41])
        #expect((try level(site, levels[2])["count"] as? [Int])?.sorted() == [1, 40])
        let props = try #require(layer["properties"] as? String)
        let text = try String(contentsOf: site.output.appendingPathComponent("demo").appendingPathComponent(props), encoding: .utf8)
        #expect(text.contains("p3 \\u003cimg src=x\\u003e"))

        // An unchanged rebuild publishes the same names.
        try await site.build(yaml)
        let again = try #require((try site.manifest("demo")["points"] as? [[String: Any]])?.first?["levels"] as? [[String: Any]])
        #expect(again.compactMap { $0["url"] as? String } == levels.compactMap { $0["url"] as? String })
    }

    @Test(
        "a window moved one step (--at) over a live feed changes the new frame, the manifests and the pages: every file of the timed point layer stays, and only the frames' slots in the manifest move"
    )
    func movedWindowKeepsThePointFiles() async throws {
        try await withTestServer { server in
            let feed = FeedServer(server, tileLag: 0)
            let site = try TestSite()
            defer { site.remove() }
            // Reports every 5 minutes from 11:20 to 12:10, in three places, served over loopback.
            var reports: [(lon: Double, lat: Double, time: String)] = []
            for k in 0..<11 {
                let time = TimeInstant(millisecondsSinceEpoch: 1_795_260_000_000 + Int64(k) * 300_000).manifestText
                for place in 0..<3 { reports.append((-5 + Double(place) * 4 + Double(k) * 0.01, 45 + Double(place), time)) }
            }
            server.route("/reports.geojson", .text(Self.geojson(reports), contentType: "application/geo+json"))
            let yaml = site.yaml(
                LiveFeedTests.animation(url: server.url("/radar/{time}/{z}/{x}/{y}.png"), frames: "{ last: PT20M, step: PT5M }") + """

                        points:
                          - id: reports
                            url: \(server.url("/reports.geojson"))
                            time: time
                            window: PT10M
                            label: name
                            cluster: { radius_px: 40, max_zoom: 8, min_zoom: 0 }
                    """)
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:00:00Z", feed: feed)
            let before = try site.fileHashes()
            let first = try site.manifest("radar")
            try await LiveFeedTests.build(site, yaml, at: "2026-11-21T12:05:00Z", feed: feed)
            let after = try site.fileHashes()
            let second = try site.manifest("radar")

            // What changed: the new frame's file, the manifests, the pages and the poster.
            let newFrame = try #require(try site.frames("radar").last?["url"] as? String)
            #expect(before["radar/\(newFrame)"] == nil)
            let changed = Set(after.filter { before[$0.key] != $0.value }.keys)
            let rewritten: Set<String> = ["manifest.json", "index.html", "radar/manifest.json", "radar/index.html", "radar/embed.html", "radar/poster.png"]
            #expect(changed.subtracting(rewritten) == ["radar/\(newFrame)"], "\(changed.sorted())")
            // The layer's files are the same files with the same bytes, listed the same way.
            let pointFiles = { (hashes: [String: String]) in hashes.filter { $0.key.hasPrefix("radar/points/") } }
            #expect(pointFiles(after) == pointFiles(before) && pointFiles(before).count == 10 + 1)
            let layers = try #require(first["points"] as? [[String: Any]]).first, moved = try #require(second["points"] as? [[String: Any]]).first
            #expect(layers?["levels"] as? [[String: AnyHashable]] == moved?["levels"] as? [[String: AnyHashable]])
            // The frames' slots move on by one; the grid stays (5 minutes from 11:20).
            let slots = try #require(layers?["slots"] as? [String: Any]), movedSlots = try #require(moved?["slots"] as? [String: Any])
            #expect(slots["origin"] as? String == "2026-11-21T11:20:00Z" && movedSlots["origin"] as? String == "2026-11-21T11:20:00Z")
            #expect(slots["frames"] as? [Int] == [4, 5, 6, 7, 8] && movedSlots["frames"] as? [Int] == [5, 6, 7, 8, 9])
        }
    }

    @Test(
        "a CSV layer from a URL is fetched over HTTP; bad data fails a build that never published it, naming row and column; once published, the layer is kept as it was and the loop moves on, saying so"
    )
    func urlAndFailure() async throws {
        try await withTestServer { server in
            let site = try TestSite()
            defer { site.remove() }
            server.route("/reports.csv", .text("lat,lon,kind\n45,1,hail\n45.0001,1.0001,wind\n", contentType: "text/csv"))
            server.route("/bad.csv", .text("lat,lon,kind\n45,1,hail\n45,,wind\n", contentType: "text/csv"))
            let layer = { (path: String) in
                """
                      - id: reports
                        url: \(server.url(path))
                        popup: [kind]
                """
            }
            try await site.build(site.yaml(Self.animation(points: layer("/reports.csv"))))
            #expect(server.requestCount("/reports.csv") == 1)
            let before = try site.fileHashes()
            let entry = try #require((try site.manifest("demo")["points"] as? [[String: Any]])?.first)
            #expect(entry["count"] as? Int == 2 && entry["timed"] as? Bool == false)
            // Published before: the layer is kept as published, the rest of the loop moves on.
            let reporter = RecordingReporter()
            try await site.build(site.yaml(Self.animation(points: layer("/bad.csv"))), reporter: reporter)
            let alert = try #require(reporter.alerts.first).description
            #expect(alert.contains("points reports kept as last published") && alert.contains("row 3, column lon"), "\(alert)")
            let kept = try site.fileHashes().filter { $0.key.contains("/points/") }
            #expect(kept == before.filter { $0.key.contains("/points/") })
            #expect(SiteStatus.read(output: site.output)?.animations.first?.alerts?.first == alert)

            // Never published: the loop fails, naming row and column, and the site stays as it was.
            let fresh = try TestSite()
            defer { fresh.remove() }
            let error = await #expect(throws: BuildError.self) { try await fresh.build(fresh.yaml(Self.animation(points: layer("/bad.csv")))) }
            let text = try #require(error).description
            #expect(text.contains("animations[0].points[0]") && text.contains("bad.csv") && text.contains("row 3, column lon"), "\(text)")
            #expect(!FileManager.default.fileExists(atPath: fresh.output.path))
        }
    }

    @Test("a level over tile_above_bytes is published as tiles: an index, and tiles whose items together are the level's, each in its tile")
    func tiledLevels() async throws {
        let site = try TestSite()
        defer { site.remove() }
        // 400 points over the box, on a jittered grid: the points' level and the deep
        // cluster levels are far over 2 KiB, the shallow ones under it.
        var points: [(lon: Double, lat: Double, time: String)] = []
        for i in 0..<400 {
            points.append((-9.5 + Double(i % 20) * 0.95 + Double(i % 7) * 0.01, 40.5 + Double(i / 20) * 0.55, Self.times[i % 3]))
        }
        try Self.write(points, in: site)
        let yaml = site.yaml(
            Self.animation(
                points: """
                          - id: reports
                            geojson: data/r.geojson
                            time: time
                            cluster: { radius_px: 40, max_zoom: 8, min_zoom: 2, tile_above_bytes: 2048 }
                    """))
        try await site.build(yaml)
        let layer = try #require((try site.manifest("demo")["points"] as? [[String: Any]])?.first)
        let levels = try #require(layer["levels"] as? [[String: Any]])
        var tiled = 0
        for entry in levels {
            let zoom = try #require(entry["zoom"] as? Int)
            let data = try level(site, entry)
            guard let count = entry["tiles"] as? Int else {
                #expect(data["tiles"] == nil && (entry["bytes"] as? Int ?? 0) <= 2048 || zoom <= 3, "z\(zoom) is one file")
                continue
            }
            tiled += 1
            let items = try #require(entry["items"] as? Int)
            let tiles = try #require(data["tiles"] as? [String: String])
            #expect(tiles.count == count && count > 1)
            var seen = [Int](repeating: 0, count: items)
            var total = 0
            for (key, url) in tiles {
                #expect(url.wholeMatch(of: /points\/reports\/z[0-9]{2}-[0-9]+-[0-9]+-[0-9]+-[0-9a-f]{12}\.json/) != nil, "\(url)")
                let parts = key.split(separator: "/").compactMap { Int($0) }
                try #require(parts.count == 3)
                // No cell finer than three zooms above the level.
                #expect(parts[0] <= max(0, zoom - 3), "z\(zoom) tile \(key)")
                let tile = try level(site, ["url": url])
                let index = try #require(tile["index"] as? [Int])
                let lat = try #require(tile["lat"] as? [Double])
                let lon = try #require(tile["lon"] as? [Double])
                #expect(lat.count == index.count && (tile["parent"] as? [Int])?.count == index.count)
                let side = Double(1 << parts[0])
                for (k, i) in index.enumerated() {
                    seen[i] += 1
                    // Each item lies in its cell (5-decimal coordinates: a hair of slack).
                    let x = (lon[k] + 180) / 360 * side
                    let y = PointClusterer.worldY(lat[k]) * side
                    #expect(x >= Double(parts[1]) - 1e-4 && x <= Double(parts[1] + 1) + 1e-4, "z\(zoom) item \(i)")
                    #expect(y >= Double(parts[2]) - 1e-4 && y <= Double(parts[2] + 1) + 1e-4, "z\(zoom) item \(i)")
                }
                total += tile["points"] as? Bool == true ? index.count : (tile["count"] as? [Int] ?? []).reduce(0, +)
            }
            #expect(seen.allSatisfy { $0 == 1 }, "z\(zoom): every item in exactly one tile")
            #expect(total == 400, "z\(zoom)")
        }
        #expect(tiled >= 2)
        // Unchanged: not clustered again; the same files, linked (one inode).
        let files = try site.fileHashes()
        let inode = { (url: String) in
            try FileManager.default.attributesOfItem(atPath: site.output.appendingPathComponent("demo/\(url)").path)[.systemFileNumber] as? Int
        }
        let deepest = try #require(levels.last?["url"] as? String)
        let before = try inode(deepest)
        let recording = RecordingReporter()
        try await site.build(yaml, reporter: recording)
        #expect(recording.pointLayers.map { [$0.layer, "\($0.points)", "\($0.reused)"] } == [["reports", "400", "true"]])
        #expect(try site.fileHashes() == files)
        #expect(try inode(deepest) == before)
        // A changed document is read and clustered again.
        points[0].lon += 0.5
        try Self.write(points, in: site)
        let changed = RecordingReporter()
        try await site.build(yaml, reporter: changed)
        #expect(changed.pointLayers.map { [$0.layer, "\($0.points)", "\($0.reused)"] } == [["reports", "400", "false"]])
        // A file of the previous layer gone: made again rather than published missing.
        let now = try #require((try site.manifest("demo")["points"] as? [[String: Any]])?.first?["levels"] as? [[String: Any]])
        let gone = try #require(now.first(where: { $0["tiles"] == nil })?["url"] as? String)
        try FileManager.default.removeItem(at: site.output.appendingPathComponent("demo/\(gone)"))
        let remade = RecordingReporter()
        try await site.build(yaml, reporter: remade)
        #expect(remade.pointLayers.map(\.reused) == [false])
        #expect(FileManager.default.fileExists(atPath: site.output.appendingPathComponent("demo/\(gone)").path))
    }

    @Test(
        "slots: the grid's step is the frames' spacing (their gaps' common divisor), a point's slots are the frames it shows in, and an item's counts change where its points come and go"
    )
    func slotCounts() throws {
        let at = { (iso: String) in try #require(PointTime.parse(iso)) }
        // Frames 10:00, 10:10, 10:25: 5-minute slots from 10:00.
        let grid = SlotGrid(frames: [try at("2026-11-21T10:00:00Z"), try at("2026-11-21T10:10:00Z"), try at("2026-11-21T10:25:00Z")])
        #expect(grid.step == 300_000 && grid.frames.map { $0 - grid.frames[0] } == [0, 2, 5])
        let first = grid.frames[0]
        // At or after: a time on a slot is that slot, one a second past it the next.
        #expect(grid.slot(atOrAfter: try at("2026-11-21T10:10:00Z")) - first == 2)
        #expect(grid.slot(atOrAfter: try at("2026-11-21T10:10:01Z")) - first == 3)
        #expect(grid.slot(atOrAfter: try at("2026-11-21T09:59:59Z")) - first == 0)
        // Points 0-3 in item 0, point 4 alone in item 1, point 5 (an empty range) in item 2.
        let ranges = SlotRanges(
            start: [0, 2, 2, 4, 1, 3], end: [2, 5, 3, 6, 3, 3], startOrder: [0, 4, 1, 2, 5, 3], endOrder: [0, 2, 4, 5, 1, 3],
            slots: .init(origin: "2026-11-21T10:00:00Z", stepMs: 300_000, frames: [0, 2, 5]))
        let counts = PointPublisher.slotCounts(owner: [0, 0, 0, 0, 1, 2], items: 3, ranges: ranges)
        // Item 0: 1 from 0; at 2 point 0 goes and 1 and 2 come (2); at 3 point 2 goes (1);
        // at 4 point 3 comes (2); at 5 point 1 goes (1); at 6 none.
        #expect(counts == [[0, 1, 2, 2, 3, 1, 4, 2, 5, 1, 6, 0], [1, 1, 3, 0], []])
        // Without a window a point counts for good.
        let open = SlotRanges(start: [3, 1], end: nil, startOrder: [1, 0], endOrder: nil, slots: ranges.slots)
        #expect(PointPublisher.slotCounts(owner: [0, 0], items: 1, ranges: open) == [[1, 1, 3, 2]])
        #expect(PointPublisher.slotCounts(owner: nil, items: 2, ranges: open) == [[3, 1], [1, 1]])
    }

    @Test("quadtree cells: dense regions get small cells, sparse ones stay large, none finer than the deepest zoom")
    func quadtreeCells() {
        // 1,000 points in a small box near (0.3, 0.3), 10 spread over the world.
        var x: [Double] = [], y: [Double] = []
        for i in 0..<1000 {
            x.append(0.3 + Double(i % 40) * 1e-6)
            y.append(0.3 + Double(i / 40) * 1e-6)
        }
        for i in 0..<10 {
            x.append(0.05 + Double(i) * 0.095)
            y.append(0.95 - Double(i) * 0.09)
        }
        let cells = PointPublisher.cells(x: x, y: y, deepest: 9, most: 100)
        #expect(cells.flatMap(\.items).sorted() == Array(x.indices))
        for cell in cells {
            let side = Double(1 << cell.z)
            for i in cell.items {
                #expect(Int(x[i] * side) == cell.x && Int(y[i] * side) == cell.y)
            }
            #expect(cell.items.count <= 100 || cell.z == 9)
        }
        // The dense box ends in a cell of the deepest zoom; the spread points in coarse ones.
        #expect(cells.contains { $0.z == 9 && $0.items.count == 1000 })
        #expect(cells.count < 20)
        #expect(PointPublisher.cells(x: x, y: y, deepest: 0, most: 1).count == 1)
    }

    @Test("time: needs frames with times")
    func timeNeedsTimedFrames() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try "lat,lon,t\n45,1,2026-11-21T10:00:00Z\n".write(to: site.root.appendingPathComponent("p.csv"), atomically: true, encoding: .utf8)
        let yaml = site.yaml(
            """
              - id: demo
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                source: { demo: radar }
                frames: { count: 2 }
                points:
                  - { id: p, csv: p.csv, time: t }
            """)
        let error = await #expect(throws: BuildError.self) { try await site.build(yaml) }
        #expect(error?.description.contains("frames have no times") == true)
    }
}
