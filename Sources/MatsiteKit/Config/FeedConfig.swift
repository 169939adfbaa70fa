import MatsiteCapabilities
import MatsiteImaging

/// Where an animation's pictures come from and how its frames are published: the keys a
/// one-source animation has once and each of its `layers:` has again (`source`, `frames`,
/// `time_format`, `format`, `quality`, `compression`, `missing`, `blank`, `opacity`, `legend`,
/// `attribution`, `pyramid`, `levels`, `fallback`). One type, read by one function
/// (`ConfigLoader.feed`), so that a layer can never take a key differently.
public struct FeedConfig: Sendable {
    /// Where tiles come from.
    public var source: SourceConfig
    /// Which frames there are (for a layered animation: the timeline).
    public var frames: FramesConfig
    /// How `{time}` is written into URLs.
    public var timeFormat = TimeFormat.isoPattern
    /// What a missing tile becomes.
    public var missing = MissingPolicy.fail
    /// A frame published at least this long after its time is carried forward by later
    /// builds without asking the feed again (while its URLs and settings stay the same);
    /// a younger one is asked again, as feeds correct their newest frames.
    public var settle = ISODuration(milliseconds: 300_000)
    /// What a blank newest frame of a live window becomes.
    public var blank = BlankPolicy.skipNewest
    /// Attribution (may hold http(s) links).
    public var attribution = ""
    /// Published tiles for the player's zoom fallback.
    public var fallback = FallbackConfig()
    /// Compression level of PNG frames: 0-9 zlib's, 10-12 libdeflate's near-optimal parsing
    /// for palette frames (RGBA frames then get zlib's 6). Default 10: radar frames under 0.8
    /// of ImageMagick's bytes for the least CPU that reaches it (bench/README.md), decoded by
    /// browsers as fast as zlib's.
    public var compressionLevel = 10
    /// When frames are also published as tile pyramids.
    public var pyramid = PyramidConfig()
    /// Whether frames also get reduced copies beside them (`levels:`).
    public var levels = ReducedLevelsSetting.auto
    /// `format:` and `quality:`: the frames' file format (auto: PNG unless every tile is lossy).
    public var frameFormat = FrameFormatChoice()
    /// The frames' default opacity in the player, 0...1.
    public var opacity: Double?
    /// The colour key shown beside the player.
    public var legend: LegendConfig?
    /// `runs:` and `run_format`: the model runs a `{run}` template's frames belong to.
    public var runs: RunsConfig?

    /// A feed of these frames from this source; the rest take their defaults.
    public init(source: SourceConfig, frames: FramesConfig) {
        self.source = source
        self.frames = frames
    }
}

/// The feed's keys, as every part of the build reads them from an animation
/// (`animation.source`, `animation.frames`, `animation.missing`...): looked up in its
/// `feed`, so a one-source animation reads as it always has.
extension AnimationConfig {
    /// A key of the animation's feed.
    public subscript<Value>(dynamicMember key: WritableKeyPath<FeedConfig, Value>) -> Value {
        get { feed[keyPath: key] }
        set { feed[keyPath: key] = newValue }
    }
}

/// `runs: { every, delay }` with `run_format`: a template naming `{run}` (and the valid time
/// as `{time}` or the lead time as `{lead}`) draws its frames from one model run. Runs start
/// at the multiples of `every` (from 1970-01-01T00:00:00Z); the newest run out at `now` is
/// the one of `floor(now - delay)`.
public struct RunsConfig: Sendable, Equatable {
    /// How often a run starts (a fixed length).
    public var every: ISODuration
    /// How long after its start a run is (first) out.
    public var delay = ISODuration()
    /// How `{run}` is written (default `%Y%m%d%H`: 2026112812).
    public var format = RunsConfig.defaultFormat
    /// How many runs back a build looks for a complete one: the newest and two before it.
    public static let candidates = 3

    /// `%Y%m%d%H`.
    public static let defaultFormat = (try? TimeFormat("%Y%m%d%H")) ?? .isoPattern

    /// Runs.
    public init(every: ISODuration, delay: ISODuration = ISODuration(), format: TimeFormat = RunsConfig.defaultFormat) {
        self.every = every
        self.delay = delay
        self.format = format
    }

    /// The newest run out at `now`, then the ones before it, `candidates` in all.
    public func runs(now: TimeInstant) -> [TimeInstant] {
        let newest = now.adding(delay, times: -1).floored(toMultipleOf: every)
        return (0..<Int64(Self.candidates)).map { newest.adding(every, times: -$0) }
    }

    /// `{lead}`: the hours from `run` to `time`, at least two digits (`f03`, `f120`).
    public static func lead(from run: TimeInstant, to time: TimeInstant) -> String {
        let hours = (time.millisecondsSinceEpoch - run.millisecondsSinceEpoch) / 3_600_000
        return hours < 10 ? "0\(hours)" : String(hours)
    }
}
