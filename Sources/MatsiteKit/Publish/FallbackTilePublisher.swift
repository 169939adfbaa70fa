import Foundation

/// Publishes tiles deeper than the frames' zoom, for the player's zoom fallback, copied
/// as the source serves them (deeper than the source's max zoom, the player scales up);
/// or, with `fallback.from_source`, points the player at the source itself.
///
/// Each frame's set gets a hash of its tiles' digests (`fallback_hash`). A kept frame
/// whose tiles are all fresh in the cache with that same hash has its previous tiles
/// hard-linked under its new index: nothing loaded, nothing written.
struct FallbackTilePublisher: Sendable {
    /// The animation's id (its folder in the site).
    let animation: String
    /// The frames' zoom: fallback tiles start one deeper.
    let zoom: Int
    /// The animation's box and the source's tile edge.
    let bbox: BoundingBox
    let tileSize: Int
    /// `fallback:` settings.
    let settings: FallbackConfig
    /// Deepest zoom the source has, if known; and its `{s}` values.
    let sourceMaxZoom: Int?
    let subdomains: [String]
    /// Where tile (z, x, y) of frame `index` comes from.
    let locate: @Sendable (_ frame: Int, _ z: Int, _ x: Int, _ y: Int) -> TileLocator
    let loader: any TileLoader
    /// Writes into (and links from the previous site into) the staged site.
    let writer: SiteWriter

    /// One frame, as fallback publishing sees it.
    struct Frame: Sendable {
        var index: Int
        /// The source template with the frame's `{time}`/`{frame}` filled (URL sources).
        var sourceTemplate: String?
        /// For a kept frame: its index and fallback tiles' hash in the previous build.
        var previousIndex: Int?
        var previousHash: String?
    }

    /// What was published: the manifest's `fallback`, each frame's `fallback_hash`, and
    /// a line for `--verbose`.
    struct Published: Sendable {
        var fallback: AnimationManifest.Fallback?
        var hashes: [String?]
        var summary: String?
    }

    func publish(_ frames: [Frame]) async throws -> Published {
        var result = Published(fallback: nil, hashes: Array(repeating: nil, count: frames.count), summary: nil)
        let templates = frames.compactMap(\.sourceTemplate)
        if settings.fromSource, templates.count == frames.count, templates.allSatisfy({ !$0.isEmpty }) {
            result.fallback = AnimationManifest.Fallback(
                url: nil, templates: templates, minZoom: zoom + 1,
                maxNativeZoom: sourceMaxZoom ?? 22, subdomains: subdomains)
            return result
        }
        let deepest = min(zoom + settings.levels, sourceMaxZoom ?? 22)
        guard settings.levels > 0, deepest > zoom else { return result }
        // The same tiles (zoom, x, y) for every frame, only their locators differ.
        let tiles = ((zoom + 1)...deepest).flatMap { level in
            TileGrid(layout: WebMercator.layout(of: bbox, zoom: level, sourceZoom: level, tileSize: tileSize), zoom: level).tiles
        }
        var published = 0, linked = 0
        for (i, frame) in frames.enumerated() {
            let locators = tiles.map { locate(frame.index, $0.z, $0.x, $0.y) }
            let folder = Self.folder(frame.index)
            if let digests = loader.freshDigests(locators), let old = frame.previousIndex,
                let hash = Optional(fallbackHash(digests.map { .png($0) })), hash == frame.previousHash,
                try link(tiles, from: Self.folder(old), to: folder)
            {
                result.hashes[i] = hash
                linked += tiles.count
                continue
            }
            let identities = try await load(tiles, locators, into: writer.root.appendingPathComponent("\(animation)/\(folder)"))
            published += identities.filter { if case .png = $0 { true } else { false } }.count
            result.hashes[i] = fallbackHash(identities)
        }
        result.summary = "\(animation): published \(published + linked) fallback tiles (zoom \(zoom + 1)-\(deepest)), \(linked) of them kept"
        result.fallback = AnimationManifest.Fallback(
            url: "tiles/{frame}/{z}/{x}/{y}.png", templates: nil, minZoom: zoom + 1,
            maxNativeZoom: deepest, subdomains: [])
        return result
    }
}

private extension FallbackTilePublisher {
    /// A frame's fallback folder, relative to the animation's.
    static func folder(_ index: Int) -> String { String(format: "tiles/%04d", index) }

    /// A frame's fallback tiles, hashed: their digests (or absence) in order.
    func fallbackHash(_ tiles: [TileIdentity]) -> String {
        InputHash.hash("fallback \(zoom) \(settings.levels)", tiles)
    }

    /// Loads the tiles and writes those there are under `target`; their identities, in order.
    func load(_ tiles: [TileCoordinate], _ locators: [TileLocator], into target: URL) async throws -> [TileIdentity] {
        let loader = self.loader
        return try await withThrowingTaskGroup(of: (Int, TileIdentity).self) { group in
            for (t, locator) in locators.enumerated() {
                let tile = tiles[t]
                group.addTask {
                    guard case .tile(let bytes, let digest) = await loader.load(locator) else { return (t, .absent) }
                    let file = target.appendingPathComponent("\(tile.z)/\(tile.x)/\(tile.y).png")
                    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try FileWrite.write(bytes, to: file)
                    return (t, .png(digest ?? TileDigest(of: bytes)))
                }
            }
            var identities = [TileIdentity](repeating: .absent, count: locators.count)
            for try await (t, identity) in group { identities[t] = identity }
            return identities
        }
    }

    /// Hard-links a kept frame's previous fallback tiles into its new folder; false (with
    /// what was linked removed) when one is not there.
    func link(_ tiles: [TileCoordinate], from old: String, to new: String) throws -> Bool {
        for tile in tiles where try !writer.link(from: "\(animation)/\(old)/\(tile).png", "\(animation)/\(new)/\(tile).png") {
            try? FileManager.default.removeItem(at: writer.root.appendingPathComponent("\(animation)/\(new)"))
            return false
        }
        return true
    }
}
