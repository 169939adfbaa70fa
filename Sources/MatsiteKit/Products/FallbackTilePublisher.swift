import Foundation
import MatsiteImaging

/// Publishes tiles deeper than the frames' zoom, for the player's zoom fallback, copied
/// as the source serves them (deeper than the source's max zoom, the player scales up);
/// or, with `fallback.from_source`, points the player at the source itself.
///
/// Each frame's set gets a hash of its tiles (`fallback_hash`: which tiles, and each one's
/// digest or absence) and lives in a folder named by it, `tiles/<hash>/{z}/{x}/{y}.<ext>`:
/// a frame that stays in a moving window keeps its folder, whatever its position, and two
/// frames whose tiles are alike share one. A folder the previous build published is
/// hard-linked file by file, not written again: when every tile is fresh in the cache,
/// nothing is even loaded.
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
    }

    /// What was published: the tiles the player falls back on, each frame's
    /// `fallback_hash`, and what it cost, for `--verbose`.
    struct Published: Sendable {
        var fallback: FallbackTiles?
        var hashes: [String?]
        var report: FallbackReport?
    }

    func publish(_ frames: [Frame]) async throws -> Published {
        var result = Published(fallback: nil, hashes: Array(repeating: nil, count: frames.count), report: nil)
        let templates = frames.compactMap(\.sourceTemplate)
        if settings.fromSource, templates.count == frames.count, templates.allSatisfy({ !$0.isEmpty }) {
            result.fallback = FallbackTiles(
                templates: templates, minZoom: zoom + 1, maxNativeZoom: sourceMaxZoom ?? 22, subdomains: subdomains, published: false)
            return result
        }
        let deepest = min(zoom + settings.levels, sourceMaxZoom ?? 22)
        guard settings.levels > 0, deepest > zoom else { return result }
        // The same tiles (zoom, x, y) for every frame, only their locators differ.
        let tiles = ((zoom + 1)...deepest).flatMap { level in
            TileGrid(layout: WebMercator.layout(of: bbox, zoom: level, sourceZoom: level, tileSize: tileSize), zoom: level).tiles
        }
        // Which tiles a folder holds is part of what names it, as their bytes are.
        let header = "fallback-2 " + tiles.map { "\($0.z)/\($0.x)/\($0.y)" }.joined(separator: " ")
        var made = Made()
        var urls: [String] = []
        for (i, frame) in frames.enumerated() {
            let locators = tiles.map { locate(frame.index, $0.z, $0.x, $0.y) }
            let hash = try await folder(tiles, locators, header: header, loading: "tiles/.loading-\(i)", into: &made)
            result.hashes[i] = hash
            urls.append(FrameName.fallbackFolder(hash) + "/{z}/{x}/{y}." + (made.folders[hash] ?? "png"))
        }
        result.report = FallbackReport(
            animation: animation, tiles: made.published + made.linked, kept: made.linked, zooms: (zoom + 1)...deepest)
        result.fallback = FallbackTiles(templates: urls, minZoom: zoom + 1, maxNativeZoom: deepest, subdomains: [], published: true)
        return result
    }
}

private extension FallbackTilePublisher {
    /// The folders this build has published so far.
    struct Made {
        /// By hash: the extension its template names.
        var folders: [String: String] = [:]
        /// Tiles written, and linked from the previous build.
        var published = 0
        var linked = 0
    }

    /// The hash that names a frame's fallback folder, with the folder in place: this build's
    /// or the previous build's for the same tiles when there is one, else made from the
    /// tiles, loaded into `loading` (relative to the animation's folder) and renamed.
    func folder(
        _ tiles: [TileCoordinate], _ locators: [TileLocator], header: String, loading: String, into made: inout Made
    ) async throws -> String {
        // Every tile fresh in the cache: the folder's name is known without loading one.
        if let digests = loader.freshDigests(locators) {
            let hash = InputHash.hash(header, digests.map { .image($0) })
            if try reuse(hash, tiles, present: tiles.map { _ in true }, into: &made) { return hash }
        }
        let loaded = try await load(tiles, locators, into: staged(loading))
        let hash = InputHash.hash(header, loaded.identities)
        let extensions = loaded.extensions.compactMap { $0 }
        if try reuse(hash, tiles, present: loaded.extensions.map { $0 != nil }, into: &made) {
            // This build's folder of that name, or the previous build's files (not today's
            // copies of their bytes).
            try? FileManager.default.removeItem(atPath: staged(loading))
            return hash
        }
        let ext = Self.mostCommon(extensions)
        if !extensions.isEmpty {
            try FileManager.default.moveItem(atPath: staged(loading), toPath: staged(FrameName.fallbackFolder(hash)))
            try alias(FrameName.fallbackFolder(hash), tiles, as: ext)
        }
        made.folders[hash] = ext
        made.published += extensions.count
        return hash
    }

    /// True when the folder for tiles with this hash is there: made already by this build
    /// (two frames alike share it), or linked from the previous build's.
    func reuse(_ hash: String, _ tiles: [TileCoordinate], present: [Bool], into made: inout Made) throws -> Bool {
        if made.folders[hash] != nil { return true }
        guard let ext = try keep(hash, tiles, present: present) else { return false }
        made.folders[hash] = ext
        made.linked += present.filter { $0 }.count
        return true
    }

    /// `folder` (relative to the animation's) in the staged site.
    func staged(_ folder: String) -> String {
        writer.root.path + "/" + animation + "/" + folder
    }

    /// Loads the tiles and writes those there are under `target`, named with their format's
    /// extension; their identities and extensions (nil: absent), in order.
    func load(
        _ tiles: [TileCoordinate], _ locators: [TileLocator], into target: String
    ) async throws -> (identities: [TileIdentity], extensions: [String?]) {
        let loader = self.loader
        return try await withThrowingTaskGroup(of: (Int, TileIdentity, String?).self) { group in
            for (t, locator) in locators.enumerated() {
                let tile = tiles[t]
                group.addTask {
                    guard case .tile(let bytes, let digest) = await loader.load(locator) else { return (t, .absent, nil) }
                    let ext = Self.fileExtension(bytes)
                    let file = "\(target)/\(tile.z)/\(tile.x)/\(tile.y).\(ext)"
                    try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try FileWrite.write(bytes, to: file)
                    return (t, .image(digest ?? TileDigest(of: bytes)), ext)
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

    /// The extension most of a folder's tiles have: its template names it, and a tile of
    /// another format (a source mixing PNG and JPEG) is linked under it too. Ties go to the
    /// first in alphabetical order, so the same tiles always give the same folder.
    static func mostCommon(_ extensions: [String]) -> String {
        let counts = Dictionary(extensions.map { ($0, 1) }, uniquingKeysWith: +)
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "png"
    }

    /// Links every tile of `folder` not named `.ext` under that name as well.
    func alias(_ folder: String, _ tiles: [TileCoordinate], as ext: String) throws {
        let fm = FileManager.default
        let root = staged(folder)
        for tile in tiles {
            let target = "\(root)/\(tile).\(ext)"
            guard !fm.fileExists(atPath: target) else { continue }
            for other in Self.extensions where other != ext {
                let source = "\(root)/\(tile).\(other)"
                guard fm.fileExists(atPath: source) else { continue }
                try fm.linkItem(atPath: source, toPath: target)
                break
            }
        }
    }

    static let extensions = ["png", "jpg", "webp"]

    /// Hard-links the previous build's folder for tiles with this hash, file by file (every
    /// format a tile was published in, the aliases too); the extension its template names,
    /// or nil (with what was linked removed) when a tile it should hold is not there.
    func keep(_ hash: String, _ tiles: [TileCoordinate], present: [Bool]) throws -> String? {
        let folder = FrameName.fallbackFolder(hash)
        var found: [String: Int] = [:]
        for (tile, there) in zip(tiles, present) where there {
            var kept = false
            for ext in Self.extensions where try writer.link("\(animation)/\(folder)/\(tile).\(ext)") {
                found[ext, default: 0] += 1
                kept = true
            }
            guard kept else {
                try? FileManager.default.removeItem(atPath: staged(folder))
                return nil
            }
        }
        // An alias is one more name of a tile: the template's extension is the one every tile has.
        let count = present.filter { $0 }.count
        return Self.extensions.first { found[$0] == count } ?? "png"
    }
}
