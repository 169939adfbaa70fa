import MatsiteCapabilities

/// What an animation shows, entry by entry: a time, how long it is shown, and per layer of
/// its stack (bottom to top) the position of the layer frame shown then, or nil. A
/// one-source animation's entries are its frames, each showing itself; a layered one's
/// are its timeline's times, each layer showing its newest frame at or before that time
/// while that frame is no older than the layer's `max_age`. The functions that place a
/// layer's frames so are pure: the build, `check` and the tests all call them.
struct Timeline: Sendable, Equatable {
    /// One time of the animation.
    struct Entry: Sendable, Equatable {
        var time: TimeInstant?
        var durationMs: Int
        /// Per layer, the position in that layer's frames of the frame shown, or nil.
        var frames: [Int?]
    }

    /// In order, oldest first.
    var entries: [Entry]

    /// The entries of `plan` (its stack's mappings on its frames' times and durations).
    init(_ plan: AnimationPlan) {
        entries = plan.frames.enumerated().map { position, frame in
            Entry(time: frame.time, durationMs: frame.durationMs, frames: plan.stack.map { $0.mapping[position] })
        }
    }

    /// For each of `timeline`'s times, the position in `frames` (a layer's frame times,
    /// oldest first) of the frame shown then, or nil. `maxAge` nil: no limit.
    static func map(_ timeline: [TimeInstant], frames: [TimeInstant], maxAge: ISODuration?) -> [Int?] {
        timeline.map { time in
            // The newest frame at or before `time`: binary search over the sorted times.
            var low = 0
            var high = frames.count
            while low < high {
                let middle = (low + high) / 2
                if frames[middle] <= time { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return nil }
            let found = low - 1
            if let maxAge, frames[found].adding(maxAge) < time { return nil }
            return found
        }
    }

    /// A layer's default `max_age`: twice its step (a rolling window's or a range's), or
    /// twice its frames' median spacing (an index's, a list's, a service's), or with a
    /// single frame twice the timeline's; nil when none of them has two times.
    static func defaultMaxAge(_ frames: FramesConfig, times: [TimeInstant], timeline: [TimeInstant]) -> ISODuration? {
        let step: ISODuration? =
            switch frames {
            case .rolling(let window): window.step
            case .range(_, _, let step): step
            default: nil
            }
        if let step { return ISODuration(months: 2 * step.months, milliseconds: 2 * step.milliseconds) }
        guard let spacing = medianSpacing(times) ?? medianSpacing(timeline) else { return nil }
        return ISODuration(milliseconds: 2 * spacing)
    }

    /// The median of the gaps between consecutive times (the lower middle one of an even
    /// count), in milliseconds; nil with fewer than two times.
    static func medianSpacing(_ times: [TimeInstant]) -> Int64? {
        guard times.count >= 2 else { return nil }
        let gaps = zip(times.dropFirst(), times).map { $0.millisecondsSinceEpoch - $1.millisecondsSinceEpoch }.sorted()
        return gaps[(gaps.count - 1) / 2]
    }

    /// A layer's frames as the timeline uses them: the positions (into the layer's frames)
    /// of those shown at some time, oldest first, and the mapping onto that shorter list.
    /// Frames no timeline time shows are not fetched nor published.
    static func used(_ mapping: [Int?]) -> (frames: [Int], mapping: [Int?]) {
        let frames = Array(Set(mapping.compactMap { $0 })).sorted()
        let position = Dictionary(uniqueKeysWithValues: frames.enumerated().map { ($1, $0) })
        return (frames, mapping.map { $0.flatMap { position[$0] } })
    }
}
