import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// The demo's weather is a picture of its time: a demo loop moves with the clock (and with
/// `--at`) as a live feed's does, and a time shows the same pixels in every build.
@Suite("Demo weather over time")
struct DemoWeatherTests {
    /// A rolling window of six frames, ten minutes apart, over a small box.
    static let animation = """
          - id: demo
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 5
            source: { demo: radar }
            frames: { last: PT50M, step: PT10M }
        """
    static let at = TimeInstant(millisecondsSinceEpoch: 1_795_262_400_000) // 2026-11-21T12:00:00Z

    /// Builds the window ending at `at` into `site`, as `matsite build --at` does.
    @discardableResult
    static func build(_ site: TestSite, at: TimeInstant, reporter: any BuildReporter = SilentReporter()) async throws -> BuildSummary {
        var options = BuildOptions()
        options.useCache = false
        options.lockWait = TestSite.lockWait
        options.at = at
        return try await Builder(config: site.config(site.yaml(animation)), options: options, reporter: reporter).run()
    }

    /// Every frame's decoded pixels and its time, oldest first.
    static func frames(_ site: TestSite) throws -> [(time: String, pixels: [UInt8])] {
        try site.frames("demo").indices.map { index in
            (try #require(site.frames("demo")[index]["time"] as? String), try site.frameRGBA("demo", index: index).pixels)
        }
    }

    @Test("the same time gives the same pixels; ten minutes later the loop moves on by one frame, the frames it keeps identical")
    func loopMovesWithTheClock() async throws {
        let (first, again, later) = (try TestSite(), try TestSite(), try TestSite())
        defer { for site in [first, again, later] { site.remove() } }
        try await Self.build(first, at: Self.at)
        try await Self.build(again, at: Self.at)
        try await Self.build(later, at: Self.at.adding(ISODuration(milliseconds: 600_000)))
        let (a, b, c) = (try Self.frames(first), try Self.frames(again), try Self.frames(later))

        #expect(a.map(\.time) == ["11:10", "11:20", "11:30", "11:40", "11:50", "12:00"].map { "2026-11-21T\($0):00Z" })
        #expect(c.map(\.time) == a.map(\.time).dropFirst() + ["2026-11-21T12:10:00Z"])
        // Two builds that share nothing (separate folders, no cache) draw the same pixels.
        #expect(a.map(\.pixels) == b.map(\.pixels))
        // The later window's first five frames are the earlier one's last five, pixel for pixel.
        #expect(Array(c.prefix(5).map(\.pixels)) == Array(a.suffix(5).map(\.pixels)))
        // A frame is a picture of its time: no two frames are alike, and there is weather in each.
        for (older, newer) in zip(a, a.dropFirst()) { #expect(older.pixels != newer.pixels, "\(older.time) and \(newer.time)") }
        #expect(!a.map(\.pixels).contains(c[5].pixels))
        for frame in a + [c[5]] {
            let wet = stride(from: 3, to: frame.pixels.count, by: 4).filter { frame.pixels[$0] > 0 }.count
            #expect(wet > frame.pixels.count / 4 / 50, "\(frame.time): \(wet) wet pixels")
        }
    }

    @Test("a rebuild ten minutes later draws one frame and keeps the other five by their time")
    func rebuildDrawsOnlyTheNewFrame() async throws {
        let (site, fresh) = (try TestSite(), try TestSite())
        defer { for each in [site, fresh] { each.remove() } }
        try await Self.build(site, at: Self.at)
        let recorder = RecordingReporter()
        let summary = try await Self.build(site, at: Self.at.adding(ISODuration(milliseconds: 600_000)), reporter: recorder)
        #expect(summary.framesReused == 5)
        #expect(recorder.stitchedFrames == [5])
        // What the rebuild kept and drew is what a build from nothing draws.
        try await Self.build(fresh, at: Self.at.adding(ISODuration(milliseconds: 600_000)))
        #expect(try Self.frames(site).map(\.pixels) == Self.frames(fresh).map(\.pixels))
    }

    @Test("a demo tile is a function of its time and place: drawn twice alike, and different ten minutes on")
    func tileDependsOnTime() {
        let time = TimeInstant(millisecondsSinceEpoch: 1_795_000_200_000)
        let tile = DemoTile(layer: "radar", time: time, z: 5, x: 15, y: 10)
        var later = tile
        later.time = TimeInstant(millisecondsSinceEpoch: time.millisecondsSinceEpoch + 600_000)
        #expect(DemoRadar.tile(tile) == DemoRadar.tile(tile))
        #expect(DemoRadar.tile(tile) != DemoRadar.tile(later))
        #expect(DemoRadar.digest(tile) != DemoRadar.digest(later))
    }

    @Test("a storm report keeps its time and place whichever window asks; reports lie in the box and the window")
    func reportsAreStable() throws {
        let box = BoundingBox(west: -95.5, south: 29.0, east: -74.5, north: 43.5)
        let start: Int64 = 1_795_000_200
        /// The reports from `from` through `through` minutes after `start`, by their time in seconds.
        func reports(from: Int64, through: Int64) throws -> [(seconds: Int64, key: String, lon: Double, lat: Double)] {
            let bytes = DemoReports.geojson(
                bbox: box, from: TimeInstant(millisecondsSinceEpoch: (start + from * 60) * 1000),
                through: TimeInstant(millisecondsSinceEpoch: (start + through * 60) * 1000))
            let document = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            return try #require(document["features"] as? [[String: Any]]).map { feature in
                let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
                let properties = try #require(feature["properties"] as? [String: String])
                let time = try TimeInstant.parse(properties["time"] ?? "")
                let key = "\(coordinates) \(properties["time"] ?? "") \(properties["type"] ?? "") \(properties["magnitude"] ?? "")"
                return (time.millisecondsSinceEpoch / 1000, key, coordinates[0], coordinates[1])
            }
        }
        let early = try reports(from: 0, through: 120), late = try reports(from: 60, through: 180)
        #expect(early.count >= 5, "two hours of storms over the demo's box make some reports: \(early.count)")
        for (list, from, through) in [(early, start, start + 7200), (late, start + 3600, start + 10800)] {
            for report in list {
                #expect(from...through ~= report.seconds, "\(report.key)")
                #expect(box.west...box.east ~= report.lon && box.south...box.north ~= report.lat, "\(report.key)")
            }
        }
        // The hour both windows cover has the same reports in both.
        let shared = start + 3600...start + 7200
        let fromEarly = early.filter { shared ~= $0.seconds }.map(\.key), fromLate = late.filter { shared ~= $0.seconds }.map(\.key)
        #expect(!fromEarly.isEmpty)
        #expect(Set(fromEarly) == Set(fromLate))
    }

    @Test("the embedded demo's loop has a now: two hours observed up to it, then half an hour of nowcast from the same weather")
    func embeddedDemoNowcast() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-demo-nowcast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // No export font: the loop alone, as quick as the demo's frames are.
        let demo = ConfigLoader.demo(directory: folder, environment: ["MATSITE_EXPORT_FONT": "/nonexistent/font.ttf"])
        var options = BuildOptions()
        options.useCache = false
        options.at = try TimeInstant.parse("2026-11-26T00:10:00Z")
        _ = try await Builder(config: demo.config, options: options, reporter: SilentReporter()).run()
        let data = try Data(contentsOf: folder.appendingPathComponent("site/radar/manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(manifest["frames"] as? [[String: Any]])
        let observed = frames.filter { $0["kind"] == nil }.compactMap { $0["time"] as? String }
        let forecast = frames.filter { $0["kind"] as? String == "forecast" }.compactMap { $0["time"] as? String }
        #expect(manifest["now"] as? String == "2026-11-26T00:10:00Z")
        #expect(observed.count == 12 && observed.last == "2026-11-26T00:10:00Z", "\(observed)")
        #expect(forecast == ["2026-11-26T00:20:00Z", "2026-11-26T00:30:00Z", "2026-11-26T00:40:00Z"])
        #expect(frames.allSatisfy { $0["run"] == nil }, "a nowcast has no model run")
        #expect(frames.map { $0["time"] as? String ?? "" } == (observed + forecast), "the forecast follows the past")
    }

    @Test("the demo's storm reports stop at the newest observed step: nothing is reported from a nowcast's future")
    func demoReportsStopAtNow() async throws {
        let demo = ConfigLoader.demo(directory: URL(fileURLWithPath: "/nonexistent"), environment: ["MATSITE_EXPORT_FONT": "/nonexistent/font.ttf"])
        let radar = try #require(demo.config.animations.first)
        let layer = try #require(radar.points.first)
        let start = try TimeInstant.parse("2026-11-26T00:00:00Z")
        // Two hours observed, then two hours of forecast: the weather makes reports in both.
        let times: [TimeInstant?] = (0...24).map { start.adding(ISODuration(milliseconds: 600_000), times: Int64($0)) }
        let now = start.adding(ISODuration(milliseconds: 7_200_000))
        func reportTimes(_ loader: PointLoader) async throws -> [TimeInstant] {
            let bytes = try await loader.bytes(of: layer, animation: radar, frameTimes: times)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            return try #require(document["features"] as? [[String: Any]]).map { feature in
                try TimeInstant.parse((feature["properties"] as? [String: String])?["time"] ?? "")
            }
        }
        let all = try await reportTimes(PointLoader(config: demo.config, fetcher: nil))
        #expect(all.contains { $0 > now }, "the forecast hours have storms strong enough for reports")
        let cut = try await reportTimes(PointLoader(config: demo.config, fetcher: nil, observedThrough: now))
        #expect(!cut.isEmpty && cut.allSatisfy { $0 <= now })
        #expect(cut.count == all.filter { $0 <= now }.count)
    }

    @Test("the embedded demo shows every feature the machine can make, and says what it leaves out and why")
    func embeddedDemoConfig() throws {
        let folder = URL(fileURLWithPath: "/nonexistent")
        let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        guard FileManager.default.fileExists(atPath: font) else {
            Issue.record("the export font \(font) is missing: bash scripts/install-deps.sh test")
            return
        }
        let full = ConfigLoader.demo(directory: folder, environment: ["MATSITE_EXPORT_FONT": font])
        let radar = try #require(full.config.animations.first)
        guard case .rolling = radar.frames else {
            Issue.record("the demo's frames are not a rolling window: \(radar.frames)")
            return
        }
        #expect(radar.legend?.stops.contains { $0.label == "60 hail" } == true)
        #expect(radar.points.map(\.source) == [.demo("reports")])
        #expect(radar.timeLabel == "both")
        #expect(radar.export?.formats.contains(.gif) == true)
        #expect(full.config.isEmbeddedDemo, "a newcomer's first build is not told to set base_url in a file it has not got")

        let noFfmpeg = ConfigLoader.demo(directory: folder, environment: ["MATSITE_EXPORT_FONT": font, "MATSITE_FFMPEG": "/nonexistent/ffmpeg"])
        #expect(noFfmpeg.config.animations.first?.export?.formats == [.gif])
        #expect(noFfmpeg.leftOut.count == 1, "\(noFfmpeg.leftOut)")
        let mp4 = try #require(noFfmpeg.leftOut.first)
        #expect(BuildWarning.demoLeftOut(mp4).description.hasPrefix("the demo's MP4 is left out: "), "\(mp4)")
        #expect(BuildWarning.demoLeftOut(mp4).description.contains("/nonexistent/ffmpeg"), "\(mp4)")

        let noFont = ConfigLoader.demo(directory: folder, environment: ["MATSITE_EXPORT_FONT": "/nonexistent/font.ttf"])
        #expect(noFont.config.animations.first?.export == nil)
        #expect(noFont.leftOut.count == 1, "\(noFont.leftOut)")
        let exports = try #require(noFont.leftOut.first)
        #expect(BuildWarning.demoLeftOut(exports).description.hasPrefix("the demo's exported loops are left out: "), "\(exports)")
        #expect(BuildWarning.demoLeftOut(exports).description.contains("/nonexistent/font.ttf"), "\(exports)")
    }
}
