import MatsiteCapabilities

/// One of an animation's `layers:`: a feed of its own (source, cadence, format...) shown
/// on the animation's timeline, drawn over the layers before it.
public struct LayerConfig: Sendable {
    /// `[a-z0-9][a-z0-9-]*`, unique in its animation; names the layer's folder.
    public var id: String
    /// Shown in the player's layers control.
    public var title: String
    /// The layer's source and frames and how they are published. Without `frames:` of its
    /// own, its frames are the timeline's times.
    public var feed: FeedConfig
    /// How old a frame may be and still be shown at a timeline time; nil: the default
    /// (twice the layer's step, or its frames' median spacing; `Timeline.maxAge`).
    public var maxAge: ISODuration?
    /// Line of the layer's entry, for messages.
    public var line: Int?
    /// Position in the animation's `layers` list.
    public var position = 0

    /// Which layer a layer's build config is (`AnimationConfig.layer`).
    public struct Reference: Sendable, Equatable {
        public var id: String
        public var position: Int
    }

    /// A layer of this feed; the rest take their defaults.
    public init(id: String, title: String, feed: FeedConfig) {
        self.id = id
        self.title = title
        self.feed = feed
    }

    /// Names a layer folder may not take: the animation folder's own entries.
    static let reservedIDs: Set<String> = ["frames", "tiles", "points"]
}

extension AnimationConfig {
    /// True when the animation lists `layers:`.
    public var isLayered: Bool { !layers.isEmpty }

    /// The credit of everything the animation shows: its own attribution, then each
    /// layer's (for a one-source animation, its attribution).
    public var fullAttribution: String {
        ([feed.attribution] + layers.map(\.feed.attribution)).filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// The config `layer` is planned and built with, as a one-source animation of the same
    /// box, zoom and durations: its feed; its id `<animation>/<layer>`, the layer's folder in
    /// the site (so its frames, levels, fallback tiles and legend image land there, and
    /// messages name both); its line and key path in messages; and none of the animation's
    /// own products (points and exports belong to the whole animation).
    public func layerConfig(_ layer: LayerConfig) -> AnimationConfig {
        var config = self
        config.id = "\(id)/\(layer.id)"
        config.title = layer.title
        config.feed = layer.feed
        config.layers = []
        config.layer = .init(id: layer.id, position: layer.position)
        config.line = layer.line ?? line
        config.points = []
        config.export = nil
        return config
    }
}
