import Foundation

/// The site's shared files under `assets/`: the player's scripts and styles with
/// content-hashed names, a copy of Debian's Leaflet, and the demo base map when used.
///
/// The templates' own assets are named (hashed) before the pages are rendered but written
/// only once the pages are: a file is published when some page names it. The default pages
/// load the bundle, so the scripts it joins are not published one by one; a project's own
/// `scripts.mustache` that names `{{assets.player_js}}` still gets that file.
struct SiteAssets: Sendable {
    /// Asset URLs relative to the site root, keyed for templates (`player_js`, `leaflet_css`...).
    var urls: [String: String]
    /// The templates' assets not written yet: their bytes by path (`assets/player.<hash>.js`).
    var held: [String: [UInt8]] = [:]

    /// Writes Leaflet and the demo base map into the staged site, names the templates'
    /// assets, and returns their URLs; `writeReferenced` writes those the pages load.
    static func publish(
        with writer: SiteWriter, pages: PageRenderer, leaflet: URL, demoBaseMap: Bool, demoDetails: [DemoBaseMap.Detail] = []
    ) throws -> SiteAssets {
        var assets = SiteAssets(urls: [:])
        // Each file on its own (a project's own scripts.mustache may name them), and the bundle.
        for (name, text) in pages.assets {
            assets.hold(Array(text.utf8), name: name)
        }
        if !pages.bundle.isEmpty {
            assets.hold(bundle(pages), name: bundleName)
        }
        let leafletFolder = try copyLeaflet(from: leaflet, with: writer)
        assets.urls["leaflet_js"] = "assets/\(leafletFolder)/leaflet.js"
        assets.urls["leaflet_css"] = "assets/\(leafletFolder)/leaflet.css"
        if demoBaseMap { try writeDemoBaseMap(with: writer, details: demoDetails) }
        return assets
    }

    /// Writes the held assets whose path one of `pages` (their HTML) names; returns those paths.
    /// A content-hashed path cannot turn up in a page by chance.
    @discardableResult
    func writeReferenced(by pages: [String], with writer: SiteWriter) throws -> [String] {
        let named = held.keys.filter { path in pages.contains { $0.contains(path) } }.sorted()
        for path in named { try writer.put(held[path] ?? [], at: path) }
        return named
    }

    /// The scripts of `player-bundle.txt` in one file, in its order.
    static let bundleName = "player-bundle.js"

    /// The bundle's bytes: each script after a comment naming it, each ended as a statement
    /// (a script that ends without `;` must not run into the next one's opening parenthesis).
    static func bundle(_ pages: PageRenderer) -> [UInt8] {
        Array(pages.bundle.map { "/* \($0) */\n\(pages.assets[$0] ?? "")\n;\n" }.joined().utf8)
    }

    /// The path `bytes` are published at: `assets/<stem>.<hash>.<ext>`.
    static func hashedPath(_ bytes: [UInt8], name: String) -> String {
        let hash = SHA256.hex(of: bytes).prefix(8)
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        return ext.isEmpty ? "assets/\(stem).\(hash)" : "assets/\(stem).\(hash).\(ext)"
    }

    /// Names `bytes` for the templates (key and hashed path) and holds them until the pages say.
    private mutating func hold(_ bytes: [UInt8], name: String) {
        let path = Self.hashedPath(bytes, name: name)
        urls[Self.key(name)] = path
        held[path] = bytes
    }

    /// `player.js` -> `player_js`, `frame-clock.js` -> `frame_clock_js`.
    static func key(_ name: String) -> String {
        name.replacingOccurrences(of: ".", with: "_").replacingOccurrences(of: "-", with: "_")
    }

    /// The asset URLs as a page at `depth` folders below the site root sees them.
    func relative(depth: Int) -> [String: String] {
        let prefix = String(repeating: "../", count: depth)
        return urls.mapValues { prefix + $0 }
    }
}

private extension SiteAssets {
    /// Copies Leaflet into `assets/leaflet-<hash>/`. The minified build is published as
    /// `leaflet.js` when the folder has one (Debian's does: 141 KB instead of 431 KB for
    /// every viewer). The folder keeps the previous build's name when that holds the same
    /// bytes, which spares hashing half a megabyte on every rebuild.
    static func copyLeaflet(from source: URL, with writer: SiteWriter) throws -> String {
        let minified = source.appendingPathComponent("leaflet.min.js"), plain = source.appendingPathComponent("leaflet.js")
        let css = source.appendingPathComponent("leaflet.css")
        guard let script = FileManager.default.contents(atPath: minified.path) ?? FileManager.default.contents(atPath: plain.path),
            let style = FileManager.default.contents(atPath: css.path)
        else {
            throw LeafletMissing(folder: source.path)
        }
        let scriptBytes = [UInt8](script), styleBytes = [UInt8](style)
        // The previous folder was found by comparing these very bytes: link, do not compare again.
        let kept = previousLeaflet(writer.previous, script: scriptBytes, style: styleBytes)
        let name = kept ?? "leaflet-" + SHA256.hex(of: scriptBytes + styleBytes).prefix(8)
        for (file, bytes) in [("leaflet.js", scriptBytes), ("leaflet.css", styleBytes)] {
            if kept != nil, try writer.link("assets/\(name)/\(file)") { continue }
            try writer.put(bytes, at: "assets/\(name)/\(file)")
        }
        let images = source.appendingPathComponent("images")
        for file in (try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? [] where file.hasSuffix(".png") || file.hasSuffix(".svg") {
            if let data = FileManager.default.contents(atPath: images.appendingPathComponent(file).path) {
                try writer.put([UInt8](data), at: "assets/\(name)/images/\(file)")
            }
        }
        return name
    }

    /// The previous site's Leaflet folder holding exactly this script and style.
    static func previousLeaflet(_ previous: PreviousSite, script: [UInt8], style: [UInt8]) -> String? {
        previous.paths(under: "assets/").lazy
            .filter { $0.hasSuffix("/leaflet.js") && $0.split(separator: "/").count == 3 && $0.hasPrefix("assets/leaflet-") }
            .map { String($0.split(separator: "/")[1]) }
            .first { folder in
                previous.holds(script, at: "assets/\(folder)/leaflet.js") && previous.holds(style, at: "assets/\(folder)/leaflet.css")
            }
    }
}

extension SiteAssets {
    /// The demo base map's tiles (the world, and each detail region at its zooms). Their
    /// folder names their drawing: a tile the previous site has at the same path is linked
    /// instead of drawn again (a detail region new to this build is drawn).
    static func writeDemoBaseMap(with writer: SiteWriter, details: [DemoBaseMap.Detail] = []) throws {
        for (z, x, y) in DemoBaseMap.tilePaths(details: details) {
            let path = "\(DemoBaseMap.folder)/\(z)/\(x)/\(y).png"
            if try writer.link(path) { continue }
            try writer.put(DemoBaseMap.tile(z: z, x: x, y: y), at: path)
        }
    }
}

/// Leaflet is not where the config (or the default) says: what the config asks cannot be had.
struct LeafletMissing: ClassifiedError, CustomStringConvertible, Equatable {
    /// The folder looked in.
    let folder: String

    var exitClass: ExitClass { .config }

    var description: String {
        "Leaflet not found in \(folder): install Debian's libjs-leaflet (apt-get install libjs-leaflet) or set the config key leaflet: to a folder holding leaflet.js and leaflet.css"
    }
}
