import MatsiteCapabilities
import MatsiteImaging

/// Where one source tile's bytes live.
enum TileLocator: Sendable, Hashable, CustomStringConvertible {
    /// An http(s) URL.
    case http(String)
    /// A file on disk.
    case file(String)
    /// A row of an MBTiles archive (row in TMS order, as MBTiles stores it).
    case mbtiles(path: String, z: Int, x: Int, tmsY: Int)
    /// A procedurally drawn demo tile.
    case demo(DemoTile)

    var description: String {
        switch self {
        case .http(let url): url
        case .file(let path): path
        case .mbtiles(let path, let z, let x, let y): "\(path) (zoom_level \(z), tile_column \(x), tile_row \(y))"
        case .demo(let tile): "demo:\(tile.layer)/\(tile.time.manifestText)/\(tile.z)/\(tile.x)/\(tile.y)"
        }
    }
}

/// Coordinates of a procedural demo tile.
struct DemoTile: Sendable, Hashable {
    /// Which demo layer.
    var layer: String
    /// The instant drawn: the weather moves with the clock.
    var time: TimeInstant
    var z: Int
    var x: Int
    var y: Int
}

/// What loading a tile gave.
enum TileOutcome: Sendable {
    /// The tile's bytes, checked to be a PNG, with their digest when the source already
    /// knew it (a cached response, a demo tile), so that nobody hashes them twice.
    case tile(_ bytes: [UInt8], digest: TileDigest? = nil)
    /// The tile could not be had, or the source has none there (`.notFound`).
    case problem(TileProblem)
}

/// Loads tiles from one kind of place.
protocol TileLoader: Sendable {
    /// Loads one tile; never throws: every problem is an outcome, so one tile's failure
    /// never stops the others.
    func load(_ locator: TileLocator) async -> TileOutcome

    /// The digests `load` would give for these tiles, when every one is known without
    /// loading it (fresh cache entries); nil means "load them to know".
    func freshDigests(_ locators: [TileLocator]) -> [TileDigest]?

    /// Loads one tile, asking the server again when the cache holds a fresh "no tile here"
    /// (404/204) for it: for a live feed's newest frame, whose absence is about to end.
    func loadRevalidatingAbsence(_ locator: TileLocator) async -> TileOutcome
}

extension TileLoader {
    func freshDigests(_ locators: [TileLocator]) -> [TileDigest]? { nil }
    func loadRevalidatingAbsence(_ locator: TileLocator) async -> TileOutcome { await load(locator) }
}

/// Checks that bytes are an image tile before anything trusts them.
enum TileCheck {
    /// nil when the bytes start like a PNG, JPEG or WebP (the stitcher decodes all three);
    /// otherwise what they look like instead.
    static func problem(with bytes: [UInt8], contentType: String? = nil) -> TileProblem? {
        if !bytes.isEmpty, ImageKind.sniff(bytes) != nil { return nil }
        return .notAnImage(TileProblem.NotAnImage(bytes, contentType: contentType))
    }
}
