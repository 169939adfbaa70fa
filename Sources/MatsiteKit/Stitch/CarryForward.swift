import Foundation
import MatsiteCapabilities

/// Frames already published, carried forward by later builds without asking the feed
/// again: a live loop's past does not change, so a 5-minute cron asks for the new frames'
/// tiles, not the window's.
///
/// A frame is carried forward when the previous site has a frame made from the same URLs
/// with the same settings (`FrameStitcher.sourceHash`) and the frame is settled: its time
/// is at least `settle:` before now (feeds do correct their newest frames). Only frames
/// with a time whose tiles come over HTTP are carried so; files, archives and the demo are
/// read as before (they cost no request).
///
/// In a live loop (a rolling window, an index, a service's newest times), a frame inside the
/// window (any but the newest, or one at or before the newest time published) whose tiles
/// cannot all be had keeps its published version, settled or not, whatever `missing:`
/// says; one that was never published is left out with a note, so one hole in the past
/// does not block every build until it leaves the window. `missing:` rules the newest frame.
struct CarryForward: Sendable {
    /// The build's now.
    let now: TimeInstant
    /// How long after its time a frame is settled.
    let settle: ISODuration
    /// `build --recheck`: every frame is asked again (one that fails is still kept).
    let recheck: Bool
    /// The newest time the animation (or layer) has published.
    let publishedNewest: TimeInstant?
    /// True for a live loop, whose past frames are kept or left out when they fail.
    let live: Bool
    /// The position of the newest frame planned.
    let newestIndex: Int
    /// True when a frame that fails and was never published may be left out (a one-source
    /// animation; a layer's frames are mapped onto the timeline by position).
    let mayLeaveOut: Bool

    /// Nothing carried forward, nothing kept.
    static let none = CarryForward(
        now: TimeInstant(millisecondsSinceEpoch: 0), settle: ISODuration(), recheck: true, publishedNewest: nil, live: false,
        newestIndex: 0, mayLeaveOut: false)

    /// True when `frame` is one this mechanism may carry: timed, its tiles over HTTP.
    func applies(to frame: FramePlan) -> Bool {
        guard frame.time != nil, !frame.tiles.isEmpty else { return false }
        return frame.tiles.allSatisfy { if case .http = $0 { true } else { false } }
    }

    /// True when `frame` may be kept without asking the feed.
    func isSettled(_ frame: FramePlan) -> Bool {
        guard !recheck, applies(to: frame), let time = frame.time else { return false }
        return !(now < time.adding(settle))
    }

    /// True when `frame` is a live loop's past: not its newest, or at or before the newest
    /// time published.
    func isPast(_ frame: FramePlan) -> Bool {
        guard live, let time = frame.time else { return false }
        if frame.index < newestIndex { return true }
        guard let publishedNewest else { return false }
        return !(publishedNewest < time)
    }
}
