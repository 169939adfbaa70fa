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
