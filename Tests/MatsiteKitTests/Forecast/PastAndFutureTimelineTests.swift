import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// `Timeline.map(_:frames:maxAge:future:)`, the pure placing of a layer's observed and
/// forecast frames on a timeline reaching past now, and the entries' kinds.
@Suite("Forecast: placing past and future on the timeline")
struct PastAndFutureTimelineTests {
    static func at(_ hhmm: String) -> TimeInstant {
        (try? TimeInstant.parse("2026-11-21T\(hhmm):00Z")) ?? TimeInstant(millisecondsSinceEpoch: 0)
    }

    static let timeline = ["11:50", "11:55", "12:00", "12:05", "12:10"].map(at)
    static let tenMinutes = ISODuration(milliseconds: 600_000)

    @Test("observed frames show up to now, forecasts after the newest observation; an observation of the very time wins")
    func placing() {
        let future = Timeline.Future(now: Self.at("12:02"), observedUntil: Self.at("11:55"))
        // A layer with both: observations to 11:55, a nowcast from 11:55 to 12:10.
        let frames: [(time: TimeInstant, kind: FrameKind)] = [
            (Self.at("11:50"), .observed), (Self.at("11:55"), .observed), (Self.at("11:55"), .forecast), (Self.at("12:00"), .forecast),
            (Self.at("12:05"), .forecast), (Self.at("12:10"), .forecast),
        ]
        #expect(Timeline.map(Self.timeline, frames: frames, maxAge: Self.tenMinutes, future: future) == [0, 1, 3, 4, 5])
        // An observed layer alone: nothing after now, whatever max_age allows.
        let radar = Array(frames.prefix(2))
        #expect(Timeline.map(Self.timeline, frames: radar, maxAge: Self.tenMinutes, future: future) == [0, 1, 1, nil, nil])
        // A forecast layer alone: nothing at or before the newest observation of the stack.
        let nowcast = Array(frames.suffix(4))
        #expect(Timeline.map(Self.timeline, frames: nowcast, maxAge: Self.tenMinutes, future: future) == [nil, nil, 1, 2, 3])
        // Once 12:00 is observed (by any layer), its forecast gives way.
        let later = Timeline.Future(now: Self.at("12:07"), observedUntil: Self.at("12:00"))
        #expect(Timeline.map(Self.timeline, frames: nowcast, maxAge: Self.tenMinutes, future: later) == [nil, nil, nil, 2, 3])
    }

    @Test("a one-source plan's entries take their frames' kind and run; absent frames leave an entry observed")
    func oneSourceEntries() {
        let config = AnimationConfig(
            id: "m", title: "m", bbox: BoundingBox(west: -1, south: -1, east: 1, north: 1), zoom: 2, source: SourceConfig(kind: .demo("radar")),
            frames: .count(1))
        let run = Self.at("11:00")
        let source = ResolvedSource(
            frames: [
                SourceFrame(index: 0, time: Self.at("12:00"), timeText: nil),
                SourceFrame(index: 1, time: Self.at("12:05"), timeText: nil, kind: .forecast, run: run),
            ], locate: { _, _, _, _ in .file("") })
        let plan = Planner.plan(config, source: source).alone()
        let entries = Timeline(plan).entries
        #expect(entries.map(\.kind) == [.observed, .forecast] && entries.map(\.run) == [nil, run])
    }
}
