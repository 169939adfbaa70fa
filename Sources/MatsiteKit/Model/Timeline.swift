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
        /// Forecast when the frames it shows are forecasts; observed otherwise.
        var kind = FrameKind.observed
        /// The run of the forecast frames it shows, where they have one.
        var run: TimeInstant? = nil
    }

    /// In order, oldest first.
    var entries: [Entry]

    /// The entries of `plan` (its stack's mappings on its frames' times and durations).
    /// A one-source animation's entry is of its frame's kind and run; a layered one's is a
    /// forecast when a layer shows a forecast frame then and no layer shows a frame
    /// observed at that very time (the observation wins once the observed feed has it).
    init(_ plan: AnimationPlan) {
        entries = plan.frames.enumerated().map { position, frame in
            var entry = Entry(time: frame.time, durationMs: frame.durationMs, frames: plan.stack.map { $0.mapping[position] })
            guard !plan.layers.isEmpty else {
                (entry.kind, entry.run) = (frame.kind, frame.run)
                return entry
            }
            // A layer kept as published maps onto its published frames (`kept`), not its plan's.
            let shown = zip(plan.stack, entry.frames).compactMap { layer, index -> (kind: FrameKind, run: TimeInstant?, time: TimeInstant?)? in
                guard let index else { return nil }
                if let kept = layer.kept { return kept.indices.contains(index) ? kept[index] : nil }
                return layer.plan.frames.indices.contains(index)
                    ? (layer.plan.frames[index].kind, layer.plan.frames[index].run, layer.plan.frames[index].time) : nil
            }
            let observedNow = shown.contains { $0.kind == .observed && $0.time == frame.time }
            if !observedNow, let forecast = shown.first(where: { $0.kind == .forecast }) {
                (entry.kind, entry.run) = (.forecast, forecast.run)
            }
            return entry
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

    /// Where a stack with forecast frames splits past and future: the build's now, and the
    /// newest observation any layer has (nil: none).
    struct Future: Sendable, Equatable {
        var now: TimeInstant
        var observedUntil: TimeInstant?
    }

    /// `map` for a stack some of whose layers have forecast frames: a layer's observed
    /// frames show at times up to `now`, its forecast frames at times after
    /// `observedUntil` (a forecast time that has become past gives way once the observed
    /// feed has it). At a time both could show, an observation of that very time wins,
    /// else the forecast.
    static func map(
        _ timeline: [TimeInstant], frames: [(time: TimeInstant, kind: FrameKind)], maxAge: ISODuration?, future: Future
    ) -> [Int?] {
        let (now, observedUntil) = (future.now, future.observedUntil)
        let observed = frames.indices.filter { frames[$0].kind == .observed }
        let forecast = frames.indices.filter { frames[$0].kind == .forecast }
        let seen = map(timeline, frames: observed.map { frames[$0].time }, maxAge: maxAge)
        let foreseen = map(timeline, frames: forecast.map { frames[$0].time }, maxAge: maxAge)
        return timeline.indices.map { i in
            let time = timeline[i]
            let observation = time <= now ? seen[i].map { observed[$0] } : nil
            let prediction = observedUntil.map { time > $0 } ?? true ? foreseen[i].map { forecast[$0] } : nil
            if let observation, frames[observation].time == time { return observation }
            return prediction ?? observation
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
