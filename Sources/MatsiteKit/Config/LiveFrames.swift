import MatsiteCapabilities

/// `frames: { last: PT2H, step: PT5M, delay: PT2M }`: the newest time is `now - delay`
/// rounded down to a multiple of `step` (counted from the Unix epoch, UTC); the times run
/// back from it while they are within `last` of it.
public struct RollingWindow: Sendable, Equatable {
    /// How far back the window reaches from its newest time.
    public var last: ISODuration
    /// The spacing of the times (fixed length); nil for a WMTS/WMS source, whose advertised
    /// times are taken as they are.
    public var step: ISODuration?
    /// How long after a nominal time the feed publishes it.
    public var delay = ISODuration()
    /// At most this many of the newest times (WMTS/WMS sources).
    public var latest: Int?
    /// How far past now the window reaches (`next:`): its times after now are forecasts.
    public var next: ISODuration? = nil

    /// A window.
    public init(last: ISODuration, step: ISODuration? = nil, delay: ISODuration = ISODuration(), latest: Int? = nil) {
        self.last = last
        self.step = step
        self.delay = delay
        self.latest = latest
    }

    /// The instant the window ends at, before rounding: `now - delay`.
    public func end(now: TimeInstant) -> TimeInstant {
        now.adding(delay, times: -1)
    }

    /// The window's times at `now`, oldest first (needs `step`).
    public func times(now: TimeInstant) -> [TimeInstant] {
        guard let step else { return [] }
        let newest = end(now: now).floored(toMultipleOf: step)
        let oldest = newest.adding(last, times: -1)
        let count = TimeInstant.series(from: oldest, through: newest, step: step, limit: 100_001).count
        // Counted back from the newest, so every time stays on the step grid.
        return (0..<Int64(count)).reversed().map { newest.adding(step, times: -$0) }.filter { $0 >= oldest }
    }

    /// The window's forecast times at `now`, oldest first (needs `step` and `next`): the
    /// step grid's times t with now < t <= now + next.
    public func forecastTimes(now: TimeInstant) -> [TimeInstant] {
        guard let step, let next else { return [] }
        let first = now.floored(toMultipleOf: step).adding(step)
        return TimeInstant.series(from: first, through: now.adding(next), step: step, limit: 100_001)
    }
}

/// `frames.index`: a JSON document listing the frames.
public struct FrameIndexConfig: Sendable, Equatable {
    /// Where the document is.
    public enum Location: Sendable, Equatable {
        /// Fetched through the tile fetcher and cache.
        case url(HTTPURL)
        /// Read from a file (relative to the config).
        case file(String)
    }

    /// Where the document is.
    public var location: Location
    /// The dotted path of the list of items; empty: the document is the list. With
    /// `items: { observed, forecast }`, the observed list.
    public var items: String
    /// With `items: { observed, forecast }`, the dotted path of the forecast list (a
    /// nowcast's): its items after the newest observed one are forecast frames. nil: none.
    public var forecastItems: String? = nil
    /// The item field holding the time (Unix seconds or ISO 8601); empty: the item is the time.
    public var time: String
    /// Template placeholder name -> item field (dotted).
    public var fields: [String: String]
    /// Template placeholder name -> root field (dotted).
    public var globals: [String: String]
    /// Keep only the newest N items.
    public var latest: Int?

    /// The placeholder names the index fills besides `{time}`.
    public var placeholderNames: Set<String> { Set(fields.keys).union(globals.keys) }

    /// An index setting.
    public init(
        location: Location, items: String = "", time: String = "", fields: [String: String] = [:],
        globals: [String: String] = [:], latest: Int? = nil
    ) {
        self.location = location
        self.items = items
        self.time = time
        self.fields = fields
        self.globals = globals
        self.latest = latest
    }

    /// How messages name the document.
    public var name: String {
        switch location {
        case .url(let url): url.text
        case .file(let path): path
        }
    }
}
