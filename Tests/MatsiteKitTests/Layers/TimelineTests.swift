import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// Where each layer's frames fall on a layered animation's timeline (`Timeline`): the
/// newest frame at or before each timeline time, if no older than `max_age`.
@Suite("Layers: the timeline mapping")
struct TimelineTests {
    /// `12:MM` on 2026-11-21, UTC.
    static func t(_ hour: Int, _ minute: Int) -> TimeInstant {
        TimeInstant(year: 2026, month: 11, day: 21, hour: hour, minute: minute)!
    }

    /// Every `step` minutes from 12:00 through 13:00.
    static func every(_ step: Int, from: Int = 0, through: Int = 60) -> [TimeInstant] {
        stride(from: from, through: through, by: step).map { t(12 + $0 / 60, $0 % 60) }
    }

    static func minutes(_ m: Int64) -> ISODuration { ISODuration(milliseconds: m * 60_000) }

    @Test("a 10-minute layer on a 5-minute timeline: each frame shows at its own time and the one after")
    func tenOnFive() {
        let mapping = Timeline.map(Self.every(5), frames: Self.every(10), maxAge: Self.minutes(20))
        #expect(mapping == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6])
    }

    @Test("a 15-minute layer on a 5-minute timeline: each frame holds three steps")
    func fifteenOnFive() {
        let mapping = Timeline.map(Self.every(5), frames: Self.every(15), maxAge: Self.minutes(30))
        #expect(mapping == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4])
    }

    @Test("a 5-minute layer on a 15-minute timeline: every third frame is shown, the others never")
    func fiveOnFifteen() {
        let mapping = Timeline.map(Self.every(15), frames: Self.every(5), maxAge: Self.minutes(10))
        #expect(mapping == [0, 3, 6, 9, 12])
        let used = Timeline.used(mapping)
        // Frames no timeline time shows are neither fetched nor published.
        #expect(used.frames == [0, 3, 6, 9, 12])
        #expect(used.mapping == [0, 1, 2, 3, 4])
    }

    @Test("a gap in a layer: its last frame shows until it is max_age old, then nothing until the next")
    func gap() {
        // 12:00, 12:10, then nothing until 12:50.
        let frames = [Self.t(12, 0), Self.t(12, 10), Self.t(12, 50)]
        let mapping = Timeline.map(Self.every(5), frames: frames, maxAge: Self.minutes(20))
        // 12:30 is exactly 20 minutes after 12:10: still shown; 12:35 is not.
        #expect(mapping == [0, 0, 1, 1, 1, 1, 1, nil, nil, nil, 2, 2, 2])
    }

    @Test("max_age shorter than the step: a frame shows only while fresh")
    func shortMaxAge() {
        let mapping = Timeline.map(Self.every(5), frames: Self.every(15), maxAge: Self.minutes(5))
        #expect(mapping == [0, 0, nil, 1, 1, nil, 2, 2, nil, 3, 3, nil, 4])
    }

    @Test("a timeline time before the layer's first frame, or a layer frame after the timeline, shows nothing")
    func outside() {
        let frames = [Self.t(12, 20), Self.t(12, 30), Self.t(13, 30)]
        let mapping = Timeline.map(Self.every(10), frames: frames, maxAge: nil)
        #expect(mapping == [nil, nil, 0, 1, 1, 1, 1])
        #expect(Timeline.used(mapping).frames == [0, 1])
    }

    @Test("without max_age a frame shows however old it is; with a month it counts calendar months")
    func unlimitedAndCalendar() {
        let frames = [Self.t(12, 0)]
        #expect(Timeline.map(Self.every(30), frames: frames, maxAge: nil) == [0, 0, 0])
        let months = Timeline.map(
            [TimeInstant(year: 2026, month: 12, day: 21)!, TimeInstant(year: 2026, month: 12, day: 22)!], frames: frames, maxAge: ISODuration(months: 1))
        #expect(months == [0, nil])
    }

    @Test("the default max_age: twice a window's or a range's step, else twice the frames' median spacing")
    func defaultMaxAge() {
        let window = FramesConfig.rolling(RollingWindow(last: ISODuration(milliseconds: 3_600_000), step: Self.minutes(10)))
        #expect(Timeline.defaultMaxAge(window, times: [], timeline: []) == Self.minutes(20))
        let range = FramesConfig.range(start: Self.t(12, 0), end: Self.t(13, 0), step: Self.minutes(15))
        #expect(Timeline.defaultMaxAge(range, times: [], timeline: []) == Self.minutes(30))
        // An index with a late frame: the median ignores the one long gap.
        let listed = [Self.t(12, 0), Self.t(12, 5), Self.t(12, 10), Self.t(12, 15), Self.t(12, 50)]
        let index = FramesConfig.index(FrameIndexConfig(location: .file("times.json")))
        #expect(Timeline.defaultMaxAge(index, times: listed, timeline: []) == Self.minutes(10))
        // One frame: the timeline's spacing stands in.
        #expect(Timeline.defaultMaxAge(.times([Self.t(12, 0)]), times: [Self.t(12, 0)], timeline: Self.every(15)) == Self.minutes(30))
        #expect(Timeline.defaultMaxAge(.times([Self.t(12, 0)]), times: [Self.t(12, 0)], timeline: [Self.t(12, 0)]) == nil)
    }
}
