import Foundation
import MatsiteImaging

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
    /// what it cost, for `--verbose`.
    struct Published: Sendable {
        var fallback: AnimationManifest.Fallback?
        var hashes: [String?]
        var report: FallbackReport?
    }

    func publish(_ frames: [Frame]) async throws -> Published {
        var result = Published(fallback: nil, hashes: Array(repeating: nil, count: frames.count), report: nil)
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
        // File extensions the tiles came in (named for their bytes, not ".png" whatever they are).
        var extensions: [String: Int] = [:]
        for (i, frame) in frames.enumerated() {
            let locators = tiles.map { locate(frame.index, $0.z, $0.x, $0.y) }
            let folder = Self.folder(frame.index)
            if let digests = loader.freshDigests(locators), let old = frame.previousIndex,
                let hash = Optional(fallbackHash(digests.map { .png($0) })), hash == frame.previousHash,
                let kept = try link(tiles, from: Self.folder(old), to: folder)
            {
                for ext in kept { extensions[ext, default: 0] += 1 }
                result.hashes[i] = hash
                linked += tiles.count
                continue
            }
            let loaded = try await load(tiles, locators, into: writer.root.appendingPathComponent("\(animation)/\(folder)"))
            for ext in loaded.extensions.compactMap({ $0 }) { extensions[ext, default: 0] += 1 }
            published += loaded.extensions.compactMap { $0 }.count
            result.hashes[i] = fallbackHash(loaded.identities)
        }
        // One template serves every tile: the most common format names it, and a tile of
        // another format (a source mixing PNG and JPEG) is linked under that name too.
        let ext = extensions.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "png"
        if extensions.count > 1 { try alias(frames, tiles, as: ext) }
        result.report = FallbackReport(animation: animation, tiles: published + linked, kept: linked, zooms: (zoom + 1)...deepest)
        result.fallback = AnimationManifest.Fallback(
            url: "tiles/{frame}/{z}/{x}/{y}.\(ext)", templates: nil, minZoom: zoom + 1,
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

    /// Loads the tiles and writes those there are under `target`, named with their format's
    /// extension; their identities and extensions (nil: absent), in order.
    func load(
        _ tiles: [TileCoordinate], _ locators: [TileLocator], into target: URL
    ) async throws -> (identities: [TileIdentity], extensions: [String?]) {
        let loader = self.loader
        return try await withThrowingTaskGroup(of: (Int, TileIdentity, String?).self) { group in
            for (t, locator) in locators.enumerated() {
                let tile = tiles[t]
                group.addTask {
                    guard case .tile(let bytes, let digest) = await loader.load(locator) else { return (t, .absent, nil) }
                    let ext = Self.fileExtension(bytes)
                    let file = target.appendingPathComponent("\(tile.z)/\(tile.x)/\(tile.y).\(ext)")
                    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try FileWrite.write(bytes, to: file)
                    return (t, .png(digest ?? TileDigest(of: bytes)), ext)
                }
            }
            var identities = [TileIdentity](repeating: .absent, count: locators.count)
            var extensions = [String?](repeating: nil, count: locators.count)
            for try await (t, identity, ext) in group {
                identities[t] = identity
                extensions[t] = ext
            }
            return (identities, extensions)
        }
    }

    /// A tile's file extension, from its bytes (loaders pass PNG, JPEG and WebP only).
    static func fileExtension(_ bytes: [UInt8]) -> String {
        switch ImageKind.sniff(bytes) {
        case .jpeg: "jpg"
        case .webp: "webp"
        case .png, nil: "png"
        }
    }

    /// Links every published tile not named `.ext` under that name as well.
    func alias(_ frames: [Frame], _ tiles: [TileCoordinate], as ext: String) throws {
        let fm = FileManager.default
        for frame in frames {
            let folder = writer.root.appendingPathComponent("\(animation)/\(Self.folder(frame.index))")
            for tile in tiles {
                let target = folder.appendingPathComponent("\(tile).\(ext)")
                guard !fm.fileExists(atPath: target.path) else { continue }
                for other in Self.extensions where other != ext {
                    let source = folder.appendingPathComponent("\(tile).\(other)")
                    guard fm.fileExists(atPath: source.path) else { continue }
                    try fm.linkItem(at: source, to: target)
                    break
                }
            }
        }
    }

    static let extensions = ["png", "jpg", "webp"]

    /// Hard-links a kept frame's previous fallback tiles (whatever their format) into its new
    /// folder; their extensions, or nil (with what was linked removed) when one is not there.
    func link(_ tiles: [TileCoordinate], from old: String, to new: String) throws -> [String]? {
        var kept: [String] = []
        for tile in tiles {
            var found: String?
            for ext in Self.extensions where try writer.link(from: "\(animation)/\(old)/\(tile).\(ext)", "\(animation)/\(new)/\(tile).\(ext)") {
                found = ext
                break
            }
            guard let found else {
                try? FileManager.default.removeItem(at: writer.root.appendingPathComponent("\(animation)/\(new)"))
                return nil
            }
            kept.append(found)
        }
        return kept
    }
}
