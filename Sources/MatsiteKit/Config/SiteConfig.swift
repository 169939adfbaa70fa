import Foundation
import MatsiteCapabilities
import MatsiteDeploy
import MatsiteImaging

/// A whole `matsite.yml`: the site and its animations, with every default filled in.
///
/// `ConfigLoader` builds it and has validated every value by then; the pipeline never
/// re-checks what this type promises.
public struct SiteConfig: Sendable {
    /// Site title (index page, manifest).
    public var title = "matsite"
    /// Where the site will be served; pages link relatively either way.
    public var baseURL = "/"
    /// True for the embedded demo, which has no config file in which to set `base_url`:
    /// a warning about its relative default would tell a newcomer to edit what is not there.
    public var isEmbeddedDemo = false
    /// The line of `base_url` in the config file, when the file sets it.
    public var baseURLLine: Int?
    /// Output folder (relative paths resolve against the config file's folder).
    public var output = "site"
    /// Tile cache settings.
    public var cache = CacheOptions()
    /// Folder whose files override the default templates, if any.
    public var templates: String?
    /// Folder holding Debian's libjs-leaflet files.
    public var leaflet = "/usr/share/javascript/leaflet"
    /// Background layer shown under the frames by the player (never fetched at build time).
    public var baseMap: BaseMapConfig?
    /// Fetching options.
    public var http = HTTPOptions()
    /// Size limits checked before anything is fetched.
    public var limits = Limits()
    /// Embed page options.
    public var embed = EmbedOptions()
    /// Whole-build deadline in seconds.
    public var deadlineSeconds: Double = 1800
    /// Where `matsite deploy` publishes the built site (`deploy:`); nil when not set.
    public var deploy: DeployConfig?
    /// The animations, in config order.
    public var animations: [AnimationConfig] = []
    /// Folder of the config file: relative paths resolve against it.
    public var directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    /// Display name of the config file, for messages.
    public var file = "matsite.yml"

    /// A config with every default and no animations.
    public init() {}

    /// Resolves a config-relative path.
    public func resolve(_ path: String) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
    }
}

/// Tile cache settings (`cache:` as a folder name, or a mapping).
public struct CacheOptions: Sendable, Equatable {
    /// Cache folder.
    public var path = ".matsite-cache"
    /// Size cap in bytes; least recently used entries go first.
    public var maxSize: Int64 = 2 << 30
    /// False with `--no-cache`.
    public var enabled = true
}

/// A base map for the player.
public struct BaseMapConfig: Sendable, Equatable {
    /// XYZ template fetched by the viewer's browser; nil for the demo base map.
    public var url: String?
    /// Attribution text (may hold http(s) links).
    public var attribution = ""
    /// Deepest zoom the server has.
    public var maxZoom = 19
    /// Subdomains for `{s}`.
    public var subdomains: [String] = []
    /// The built-in offline land/sea background.
    public var demo = false
}

/// HTTP client options.
public struct HTTPOptions: Sendable, Equatable {
    /// User-Agent; the default names matsite and its version.
    public var userAgent = "matsite/\(Matsite.version) (+https://github.com/matsite/matsite)"
    /// Requests in flight per host.
    public var concurrency = 6
    /// Per-request timeout in seconds.
    public var timeoutSeconds: Double = 30
    /// Retries after the first attempt, for transient failures only.
    public var retries = 4
    /// Retries a host may cost a build in all (beyond each request's first try), plus one
    /// per ten requests it answered: a host failing everywhere is not asked `retries` more
    /// times for each of its tiles.
    public var retryBudget = 20
    /// Failed requests in a row after which a host is not asked again this build.
    public var maxFailuresInARow = 8
    /// Seconds a host may keep a request waiting without sending a byte (while nothing else
    /// comes from it) before all its requests fail at once: a hung server costs this, not
    /// retries times `timeoutSeconds`.
    public var stallSeconds: Double = 20
    /// Base delay of the exponential backoff, in milliseconds.
    public var retryDelayMilliseconds = 500
    /// Longest `Retry-After` honoured, in seconds.
    public var maxRetryAfterSeconds: Double = 120
    /// Largest tile body accepted, in bytes.
    public var maxTileBytes = 8 << 20
    /// How long a 404/204 without an explicit lifetime is trusted from the cache, in seconds.
    public var missingTTLSeconds: Double = 120
    /// Extra request headers.
    public var headers: [String: String] = [:]
}

/// Limits that protect the machine from a config asking too much.
public struct Limits: Sendable, Equatable {
    /// Largest frame edge in pixels.
    public var maxFrameWidth = 16384
    /// Largest frame height in pixels.
    public var maxFrameHeight = 16384
    /// Most frames per animation.
    public var maxFrames = 500
}

/// Embed page options.
public struct EmbedOptions: Sendable, Equatable {
    /// Origins allowed to drive the player by postMessage; `*` means any.
    public var allowedOrigins = ["*"]
}

/// What a tile that cannot be had becomes.
public enum MissingPolicy: String, Sendable, Equatable {
    /// The build fails, listing every such tile.
    case fail
    /// The tile is drawn transparent and listed in the frame's manifest entry.
    case transparent
}

/// What a blank frame (every tile fully transparent) at the newest end of a live window
/// becomes.
public enum BlankPolicy: String, Sendable, Equatable {
    /// Left out as not published yet, as a frame of 404s is: servers such as MapServer
    /// answer a time they advertise but have no data for yet with transparent tiles. A
    /// window with nothing but blank frames keeps them (nothing there is late).
    case skipNewest = "skip_newest"
    /// Published like any frame: an empty frame is real (a clear sky on a radar layer).
    case keep
}

/// Tile row numbering.
public enum TileScheme: String, Sendable, Equatable {
    /// Row 0 at the top (Google/OSM).
    case xyz
    /// Row 0 at the bottom (TMS, MBTiles).
    case tms
}

/// One animation's settings.
@dynamicMemberLookup
public struct AnimationConfig: Sendable {
    /// Folder name and manifest id.
    public var id: String
    /// Title shown to viewers.
    public var title: String
    /// The requested box.
    public var bbox: BoundingBox
    /// Zoom the frames are rendered at.
    public var zoom: Int
    /// Time each frame is shown.
    public var frameDurationMs = 500
    /// Time the last frame is shown.
    public var lastFrameDurationMs: Int?
    /// Crossfade between frames.
    public var crossfadeMs = 250
    /// Loop playback.
    public var loop = true
    /// Where its pictures come from and how its frames are published (`source`, `frames`,
    /// `format`...): the animation's own, or with `layers:` the timeline's frames only.
    public var feed: FeedConfig
    /// IANA zone and time label kind for the player, copied into the manifest.
    public var timeZone: String?
    public var timeLabel: String?
    /// `layers:`, bottom to top, shown on the timeline `feed.frames` gives; empty for a
    /// one-source animation.
    public var layers: [LayerConfig] = []
    /// Set on the config a layer is planned and built with (`layerConfig(_:)`): which
    /// layer of its animation it is.
    public var layer: LayerConfig.Reference?
    /// Point layers drawn over the frames, clustered at build time.
    public var points: [PointLayerConfig] = []
    /// The loop exported as MP4, GIF and/or animated WebP (`export:`), if asked for.
    public var export: ExportConfig?
    /// Line of the animation's entry in the config, for messages.
    public var line: Int?
    /// Position in the config's `animations` list.
    public var position = 0

    /// The animation's key path in messages, `animations[N]` (the one style every stage
    /// uses), or for a layer's config `animations[N].layers[M]`.
    public var keyPath: String {
        layer.map { "animations[\(position)].layers[\($0.position)]" } ?? "animations[\(position)]"
    }

    /// An animation of these settings; the rest take their defaults.
    public init(
        id: String, title: String, bbox: BoundingBox, zoom: Int, frameDurationMs: Int = 500, lastFrameDurationMs: Int? = nil,
        crossfadeMs: Int = 250, attribution: String = "", source: SourceConfig, frames: FramesConfig
    ) {
        self.id = id
        self.title = title
        self.bbox = bbox
        self.zoom = zoom
        self.frameDurationMs = frameDurationMs
        self.lastFrameDurationMs = lastFrameDurationMs
        self.crossfadeMs = crossfadeMs
        feed = FeedConfig(source: source, frames: frames)
        feed.attribution = attribution
    }
}

/// A box in WGS84 degrees. `west > east` crosses the antimeridian.
public struct BoundingBox: Sendable, Equatable, Codable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    /// Creates a box.
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }
}

/// Where tiles come from, with the options every kind shares.
public struct SourceConfig: Sendable {
    /// The kind of source.
    public var kind: SourceKind
    /// Subdomains for `{s}`.
    public var subdomains: [String] = []
    /// Row numbering.
    public var scheme = TileScheme.xyz
    /// Deepest zoom the source has; deeper frames are scaled up from it.
    public var maxZoom: Int?
    /// Tile edge in pixels.
    public var tileSize = 256
}

/// The kinds of tile source.
public enum SourceKind: Sendable {
    /// An XYZ/TMS URL template.
    case url(TileTemplate)
    /// A local file template, relative to the config.
    case path(TileTemplate)
    /// A local MBTiles file template (one archive per frame via `{frame}`/`{time}`, or one for all).
    case mbtiles(TileTemplate)
    /// The built-in offline radar-like source.
    case demo(String)
    /// An OGC WMTS layer.
    case wmts(WMTSSourceConfig)
    /// An OGC WMS layer.
    case wms(WMSSourceConfig)
    /// Only options: each frame carries its own template (`frames.templates`).
    case perFrame
}

/// `source.wmts`.
public struct WMTSSourceConfig: Sendable, Equatable {
    public var capabilities: HTTPURL
    public var layer: String
    public var style: String?
    public var tileMatrixSet: String?
    public var format: String?
}

/// `source.wms`.
public struct WMSSourceConfig: Sendable, Equatable {
    public var url: HTTPURL
    public var layers: String
    public var version = "1.3.0"
    public var styles = ""
    public var format = "image/png"
}

/// Which frames an animation has.
public enum FramesConfig: Sendable {
    /// One full template per frame.
    case templates([TileTemplate])
    /// Explicit instants, filling `{time}`.
    case times([TimeInstant])
    /// `{frame}` from 0 to count - 1.
    case count(Int)
    /// The newest N instants the source advertises.
    case latest(Int)
    /// Instants from start to end by step.
    case range(start: TimeInstant, end: TimeInstant, step: ISODuration)
    /// The last stretch of time before now: `frames: { last, step, delay }` (or `last`
    /// with `latest` for a WMTS/WMS source).
    case rolling(RollingWindow)
    /// Times (and template fields) read from a JSON index document.
    case index(FrameIndexConfig)

    /// True for frames that move on with time: a live feed's, or a service's newest N.
    public var isLive: Bool {
        switch self {
        case .rolling, .index, .latest: true
        default: false
        }
    }

    /// True for frames that follow a live feed (a rolling window or an index): the newest
    /// of them may not be published yet when a build runs.
    public var followsLiveFeed: Bool {
        switch self {
        case .rolling, .index: true
        default: false
        }
    }
}

/// `pyramid`: when an animation's frames are also published as multi-level tile pyramids
/// (so the player loads only the visible tiles at the level that fits the screen).
public struct PyramidConfig: Sendable, Equatable {
    /// `auto`: frames with more pixels than `abovePx`; `always`; `never`.
    public enum Publish: String, Sendable, CaseIterable {
        case auto, always, never
    }

    /// When to publish levels.
    public var publish = Publish.auto
    /// The pixel count (width x height) above which `auto` publishes levels: 2048 x 2048,
    /// about what a large screen shows at device resolution.
    public var abovePx = 4_194_304

    /// True when frames of `width` x `height` pixels get levels.
    public func wants(width: Int, height: Int) -> Bool {
        switch publish {
        case .always: true
        case .never: false
        case .auto: width * height > abovePx
        }
    }
}

/// `levels`: whether each frame larger than a small phone's screen also gets reduced copies
/// beside it (`frames/<hash>/r1.png`, `r2.png`...: halved, and halved again), which a player
/// loads instead of the full frame when the view shows it smaller.
public enum ReducedLevelsSetting: String, Sendable, CaseIterable {
    /// Halve each frame while the level before is more than `coarsestMaxEdge` pixels on its
    /// longer side; a frame that fits gets none.
    case auto
    /// No reduced copies: each frame is one file.
    case never

    /// The longest side the coarsest reduced copy may have: a small phone's screen at its
    /// device pixels' half, so a player can always open on a copy no larger than it shows.
    public static let coarsestMaxEdge = 640
}

/// Published fallback tiles for zooming past the frames' detail.
public struct FallbackConfig: Sendable, Equatable {
    /// Zoom levels deeper than the frames' zoom to publish (0: none). None by default:
    /// each level costs four times the previous one's requests, so `levels: 1` alone makes
    /// a build ask for five times its frames' tiles (README: "Fallback tiles and their cost").
    public var levels = 0
    /// Let the player load tiles straight from the source's URL instead.
    public var fromSource = false
}
