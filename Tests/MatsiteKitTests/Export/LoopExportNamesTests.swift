import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// The names of an export's files and pictures (`LoopExportNames`): what a loop's name
/// follows from, its size, its labels.
@Suite("LoopExportNames")
struct LoopExportNamesTests {
    static let layout = FrameLayout(width: 457, height: 395, originX: 0, originY: 0, shift: 0, tileSize: 256)

    static func names(
        _ animation: AnimationConfig, settings: ExportConfig = ExportConfig(formats: [.gif, .webp]), frames: [LoopExporter.Frame],
        background: LoopBackground = .color(RGB(1, 2, 3))
    ) -> LoopExportNames {
        LoopExportNames(
            animation: animation, settings: settings, size: (456, 394),
            labels: LoopLabels(legend: animation.legend, credit: LoopExportNames.plainText(animation.attribution)), background: background,
            times: frames.map { LoopExportNames.timeLabel(for: $0, count: frames.count, timeZone: animation.timeZone) })
    }

    @Test("the loop keeps the frame's aspect ratio with both edges even, cutting an odd frame rather than scaling it")
    func size() {
        #expect(LoopExportNames.size(of: Self.layout, width: nil) == (456, 394))
        #expect(LoopExportNames.size(of: Self.layout, width: 457) == (456, 394))
        #expect(LoopExportNames.size(of: Self.layout, width: 456) == (456, 394))
        // 201 x 395 / 457 = 173.7: rounded to 174, then both edges even.
        #expect(LoopExportNames.size(of: Self.layout, width: 201) == (200, 174))
        #expect(LoopExportNames.size(of: FrameLayout(width: 1, height: 1, originX: 0, originY: 0, shift: 0, tileSize: 256), width: nil) == (2, 2))
    }

    @Test("the attribution keeps its links' labels and drops their tags")
    func plainText() {
        #expect(
            LoopExportNames.plainText(#"Radar: <a href="https://example.org/">test source</a> &amp; <A HREF='x'>more</A>"#) == "Radar: test source &amp; more")
    }

    @Test("a frame's time label is UTC, or the animation's zone with its abbreviation, or its position without a time")
    func timeLabels() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fixture = try LoopExportFixture(root: root, count: 2)
        #expect(LoopExportNames.timeLabel(for: fixture.frames[1], count: 2, timeZone: nil) == "2026-11-21 10:10 UTC")
        #expect(LoopExportNames.timeLabel(for: fixture.frames[1], count: 2, timeZone: "America/Chicago") == "2026-11-21 04:10 CST")
        var untimed = fixture.frames[1]
        untimed.time = nil
        #expect(LoopExportNames.timeLabel(for: untimed, count: 2, timeZone: "America/Chicago") == "Frame 2 of 2")
    }

    @Test("a forecast step's label says how far ahead it is, from its run or else the newest observed step, and names the run")
    func forecastLabels() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var frame = try LoopExportFixture(root: root, count: 2).frames[1] // 10:10
        frame.forecastFrom = try TimeInstant.parse("2026-11-21T09:40:00Z")
        #expect(LoopExportNames.timeLabel(for: frame, count: 2, timeZone: nil) == "2026-11-21 10:10 UTC, forecast +30 min")
        frame.run = try TimeInstant.parse("2026-11-21T07:00:00Z")
        frame.forecastFrom = frame.run
        #expect(LoopExportNames.timeLabel(for: frame, count: 2, timeZone: nil) == "2026-11-21 10:10 UTC, forecast +3 h 10 min, run 07:00 UTC")
        #expect(
            LoopExportNames.timeLabel(for: frame, count: 2, timeZone: "America/Chicago") == "2026-11-21 04:10 CST, forecast +3 h 10 min, run 01:00 CST")
        frame.run = try TimeInstant.parse("2026-11-20T22:00:00Z")
        frame.forecastFrom = frame.run
        #expect(LoopExportNames.timeLabel(for: frame, count: 2, timeZone: nil) == "2026-11-21 10:10 UTC, forecast +12 h 10 min, run 2026-11-20 22:00 UTC")
        #expect(LoopExportNames.lead(from: try TimeInstant.parse("2026-11-21T12:00:00Z"), to: try TimeInstant.parse("2026-11-21T15:00:00Z")) == "+3 h")
        // A forecast names its files apart from the same frame observed.
        let animation = try LoopExportFixture.animation()
        var observed = frame
        observed.forecastFrom = nil
        observed.run = nil
        #expect(
            Self.names(animation, frames: [frame]).fileName(.gif, frames: [frame])
                != Self.names(animation, frames: [observed]).fileName(.gif, frames: [observed]))
    }

    @Test("an export counts a nowcast's lead from the newest observed step and a model's from its run")
    func leadsFromTheTimeline() throws {
        func entry(_ time: String, _ kind: FrameKind, run: String? = nil) throws -> Timeline.Entry {
            Timeline.Entry(time: try TimeInstant.parse(time), durationMs: 500, frames: [0], kind: kind, run: try run.map(TimeInstant.parse))
        }
        let nowcast = [
            try entry("2026-11-21T11:50:00Z", .observed), try entry("2026-11-21T12:00:00Z", .observed),
            try entry("2026-11-21T12:10:00Z", .forecast), try entry("2026-11-21T12:20:00Z", .forecast),
        ]
        #expect(ExportStep.forecastFrom(nowcast).map { $0?.iso8601 } == [nil, nil, "2026-11-21T12:00:00Z", "2026-11-21T12:00:00Z"])
        let model = [
            try entry("2026-11-21T12:00:00Z", .forecast, run: "2026-11-21T09:00:00Z"),
            try entry("2026-11-21T13:00:00Z", .forecast, run: "2026-11-21T09:00:00Z"),
        ]
        #expect(ExportStep.forecastFrom(model).map { $0?.iso8601 } == ["2026-11-21T09:00:00Z", "2026-11-21T09:00:00Z"])
    }

    @Test("a file's name follows its frames, durations, labels, legend and settings, and nothing else")
    func fileNames() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let frames = try LoopExportFixture(root: root, count: 3).frames
        let animation = try LoopExportFixture.animation()
        let names = Self.names(animation, frames: frames)
        let gif = names.fileName(.gif, frames: frames), webp = names.fileName(.webp, frames: frames)
        #expect(gif.wholeMatch(of: /loop-[0-9a-f]{16}\.gif/) != nil, "\(gif)")
        #expect(Self.names(animation, frames: frames).fileName(.gif, frames: frames) == gif)
        var longer = frames
        longer[2].durationMs = 600
        #expect(names.fileName(.gif, frames: longer) != gif)
        var lossy = ExportConfig(formats: [.gif, .webp])
        lossy.webpQuality = 80
        #expect(Self.names(animation, settings: lossy, frames: frames).fileName(.webp, frames: frames) != webp)
        #expect(Self.names(animation, settings: lossy, frames: frames).fileName(.gif, frames: frames) == gif)
        #expect(Self.names(animation, frames: frames, background: .demo).fileName(.gif, frames: frames) != gif)
        let zoned = try LoopExportFixture.animation(["    time_zone: America/Chicago"])
        #expect(Self.names(zoned, frames: frames).fileName(.gif, frames: frames) != gif)
        let legend = try LoopExportFixture.animation([##"    legend: { unit: dBZ, stops: [[5, "#04e9e7"]] }"##])
        #expect(Self.names(legend, frames: frames).fileName(.gif, frames: frames) != gif)
    }

    @Test("a picture's identity follows its frame, its label and the composition")
    func composedKeys() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let frames = try LoopExportFixture(root: root, count: 3).frames
        let animation = try LoopExportFixture.animation()
        let keys = Self.names(animation, frames: frames).composedKeys(frames)
        #expect(Set(keys).count == 3)
        // The same frame and label at another position keeps its identity: a moved window
        // finds its pictures in the cache.
        #expect(Self.names(animation, frames: Array(frames[1...])).composedKeys(Array(frames[1...])) == Array(keys[1...]))
        #expect(Self.names(animation, frames: frames).composedKeys(frames) == keys)
        #expect(Self.names(animation, frames: frames, background: .color(RGB(9, 9, 9))).composedKeys(frames) != keys)
    }
}
