/// `legend:`: a colour key drawn beside the player (and on exported loops).
public struct LegendConfig: Sendable, Equatable {
    /// One stop, written `[value, "#rrggbb"]` or `[value, "#rrggbb", "label"]`.
    public struct Stop: Sendable, Equatable {
        /// The value the colour stands for.
        public var value: Double
        /// `#rgb`, `#rrggbb` or `#rrggbbaa`.
        public var color: String
        /// Shown instead of the value.
        public var label: String?

        /// Creates a stop.
        public init(value: Double, color: String, label: String? = nil) {
            self.value = value
            self.color = color
            self.label = label
        }
    }

    /// The values' unit.
    public var unit: String
    /// The colours, in order.
    public var stops: [Stop]
    /// An image shown beside the stops: a file, relative to the config (published under a
    /// content-hashed name; the manifest gives that URL).
    public var image: String? = nil
    /// What the image shows, for readers who cannot see it.
    public var imageAlt: String? = nil
    /// Line of `legend.image` in the config, for messages about the file.
    public var imageLine: Int? = nil

    /// A legend of `stops` in `unit`.
    public init(unit: String, stops: [Stop]) {
        self.unit = unit
        self.stops = stops
    }
}
