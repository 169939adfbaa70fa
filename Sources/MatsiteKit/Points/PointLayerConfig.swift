import Foundation
import MatsiteCapabilities

/// One entry of an animation's `points:`: where the points come from, how they are read,
/// and how they are clustered. `ConfigLoader` has checked every value.
public struct PointLayerConfig: Sendable, Equatable {
    /// Where the points come from.
    public enum Source: Sendable, Equatable {
        /// A GeoJSON FeatureCollection of Point features (a config-relative file).
        case geojson(String)
        /// A CSV file with a header row (a config-relative file).
        case csv(String)
        /// A document fetched through the tile fetcher and its HTTP cache.
        case url(HTTPURL, format: Format)
        /// The embedded demo's storm reports (`reports`), made from the demo weather.
        case demo(String)

        /// The file or URL, for messages.
        public var name: String {
            switch self {
            case .geojson(let file), .csv(let file): file
            case .url(let url, _): url.text
            case .demo(let layer): "demo: \(layer)"
            }
        }

        /// True when the document is fetched over HTTP.
        var isFetched: Bool {
            if case .url = self { true } else { false }
        }

        /// How the document is read.
        public var format: Format {
            switch self {
            case .geojson, .demo: .geojson
            case .csv: .csv
            case .url(_, let format): format
            }
        }
    }

    /// The formats a point document may have.
    public enum Format: String, Sendable, Equatable, CaseIterable {
        case geojson, csv
    }

    /// Folder name below `<id>/points/` and the id in the manifest.
    public var id: String
    /// Name shown in the layer toggle and read to screen readers.
    public var title: String
    /// Where the points come from.
    public var source: Source
    /// Property (or CSV column) holding each point's time: ISO 8601 or Unix seconds.
    public var time: String?
    /// A point shows in the frames whose time `t` has `pointTime <= t < pointTime + window`;
    /// nil: in every frame from its own time on.
    public var window: ISODuration?
    /// Property shown as a single point's text.
    public var label: String?
    /// Properties shown, in this order, when a point is opened.
    public var popup: [String] = []
    /// CSV columns holding latitude and longitude in degrees.
    public var latColumn = "lat"
    public var lonColumn = "lon"
    /// Cluster radius in screen pixels: every member lies within it of its cluster.
    public var radiusPx = 40
    /// Shallowest zoom with published clusters (the player shows it when zoomed out further).
    public var minZoom = 0
    /// Deepest zoom with clusters; deeper, every point is drawn on its own.
    public var maxZoom = 14
    /// A level whose file would be larger than this is published as tiles instead, so a
    /// viewer fetches only the part of a deep level it looks at.
    public var tileAboveBytes = 1 << 20
    /// Skip (and count) invalid features or rows instead of failing the build.
    public var skipInvalid = false
    /// Most points accepted.
    public var maxPoints = 1_000_000
    /// Key path in messages, `animations[N].points[M]`.
    public var keyPath = ""

    /// Creates a layer with defaults for everything but its id and source.
    public init(id: String, source: Source) {
        self.id = id
        self.title = id
        self.source = source
    }
}
