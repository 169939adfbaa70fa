import Foundation

/// The site's shared files under `assets/`: the player's scripts and styles with
/// content-hashed names, a copy of Debian's Leaflet, and the demo base map when used.
struct SiteAssets: Sendable {
    /// Asset URLs relative to the site root, keyed for templates (`player_js`, `leaflet_css`...).
    var urls: [String: String]

    /// Writes the assets into `site` and returns their URLs.
    static func publish(into site: URL, pages: PageRenderer, leaflet: URL, demoBaseMap: Bool) throws -> SiteAssets {
        let folder = site.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var urls: [String: String] = [:]
        for (name, text) in pages.assets {
            let bytes = Array(text.utf8)
            let hash = SHA256.hex(of: bytes).prefix(8)
            let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
            let published = ext.isEmpty ? "\(stem).\(hash)" : "\(stem).\(hash).\(ext)"
            try Data(bytes).write(to: folder.appendingPathComponent(published))
            urls[Self.key(name)] = "assets/\(published)"
        }
        let leafletFolder = try copyLeaflet(from: leaflet, into: folder)
        urls["leaflet_js"] = "assets/\(leafletFolder)/leaflet.js"
        urls["leaflet_css"] = "assets/\(leafletFolder)/leaflet.css"
        if demoBaseMap { try writeDemoBaseMap(into: folder.appendingPathComponent("demo-basemap")) }
        return SiteAssets(urls: urls)
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
    static func copyLeaflet(from source: URL, into assets: URL) throws -> String {
        let js = source.appendingPathComponent("leaflet.js"), css = source.appendingPathComponent("leaflet.css")
        guard let script = FileManager.default.contents(atPath: js.path), let style = FileManager.default.contents(atPath: css.path) else {
            throw BuildError.stage("publish", "Leaflet not found in \(source.path): install Debian's libjs-leaflet (apt-get install libjs-leaflet) or set the config key leaflet: to a folder holding leaflet.js and leaflet.css")
        }
        let name = "leaflet-" + SHA256.hex(of: [UInt8](script) + [UInt8](style)).prefix(8)
        let target = assets.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: target.appendingPathComponent("images"), withIntermediateDirectories: true)
        try script.write(to: target.appendingPathComponent("leaflet.js"))
        try style.write(to: target.appendingPathComponent("leaflet.css"))
        let images = source.appendingPathComponent("images")
        for file in (try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? [] where file.hasSuffix(".png") || file.hasSuffix(".svg") {
            if let data = FileManager.default.contents(atPath: images.appendingPathComponent(file).path) {
                try data.write(to: target.appendingPathComponent("images").appendingPathComponent(file))
            }
        }
        return name
    }

    static func writeDemoBaseMap(into folder: URL) throws {
        for z in 0...DemoBaseMap.maxZoom {
            for x in 0..<(1 << z) {
                let column = folder.appendingPathComponent("\(z)/\(x)")
                try FileManager.default.createDirectory(at: column, withIntermediateDirectories: true)
                for y in 0..<(1 << z) {
                    try Data(DemoBaseMap.tile(z: z, x: x, y: y)).write(to: column.appendingPathComponent("\(y).png"))
                }
            }
        }
    }
}
