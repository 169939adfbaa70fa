import Foundation
import Testing

@testable import MatsiteKit

/// A site publishes under `assets/` what its pages load, and nothing else: the player's
/// scripts come as one bundle, so the files it joins are not published on their own.
@Suite("Published assets")
struct PublishedAssetsTests {
    @Test("the demo's assets/ holds exactly what its pages load: their scripts, styles and icon, Leaflet's images, the base map's tiles")
    func demoPublishesWhatPagesLoad() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-assets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let project = try Project.load(config: nil, directory: folder)
        #expect(project.isEmbeddedDemo)
        var options = BuildOptions()
        options.useCache = false
        _ = try await project.build(options: options, reporter: SilentReporter())
        let site = folder.appendingPathComponent("site")

        let published = Set(try Self.files(under: "assets", in: site))
        let loaded = try Self.loadedAssets(site)
        let unloaded = published.subtracting(loaded).sorted(), absent = loaded.subtracting(published).sorted()
        #expect(unloaded.isEmpty, "published, loaded by no page: \(unloaded)")
        #expect(absent.isEmpty, "loaded by a page, not published: \(absent)")
        // What the pages load, named: the bundle, not the scripts it joins.
        let names = Set(published.map { ($0 as NSString).lastPathComponent })
        #expect(names.contains { $0.hasPrefix("player-bundle.") && $0.hasSuffix(".js") })
        #expect(!names.contains { $0.hasPrefix("player.") && $0.hasSuffix(".js") })
        #expect(!names.contains { $0.hasPrefix("frame-clock.") })
        for name in ["player.", "point-layer.", "index.", "favicon."] {
            #expect(names.contains { $0.hasPrefix(name) }, "\(name)")
        }
        #expect(names.isSuperset(of: ["leaflet.js", "leaflet.css", "layers.png", "marker-icon.png", "marker-shadow.png"]))
        #expect(published.contains { $0.hasSuffix("/0/0/0.png") }, "the base map's tiles")
    }

    @Test("a project's own scripts.mustache that names a script of the bundle gets that file published")
    func ownTemplatesGetTheirScripts() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let templates = site.root.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try Data(
            """
            <script src="{{assets.leaflet_js}}" defer></script>
            <script src="{{assets.player_bundle_js}}" defer></script>
            <script src="{{assets.frame_clock_js}}" defer></script>

            """.utf8
        ).write(to: templates.appendingPathComponent("scripts.mustache"))
        let yaml = site.yaml(SiteAssetsTests.demo) + "\ntemplates: templates\n"
        try await site.build(yaml)
        let names = try Self.files(under: "assets", in: site.output).map { ($0 as NSString).lastPathComponent }
        #expect(names.contains { $0.hasPrefix("frame-clock.") && $0.hasSuffix(".js") }, "\(names)")
        #expect(!names.contains { $0.hasPrefix("crossfade.") }, "\(names)")
        let page = try String(contentsOf: site.output.appendingPathComponent("demo/index.html"), encoding: .utf8)
        let clock = try #require(names.first { $0.hasPrefix("frame-clock.") })
        #expect(page.contains("../assets/\(clock)"))
    }
}

extension PublishedAssetsTests {
    /// Every file below `folder` of `site`, as paths from the site root.
    static func files(under folder: String, in site: URL) throws -> [String] {
        let root = site.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return try walker.compactMap { item in
            guard let url = item as? URL, try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { return nil }
            return folder + "/" + url.path.dropFirst(root.path.count + 1)
        }
    }

    /// The files under `assets/` that the site's pages load, as a browser would come to them:
    /// what each page names (`src`, `href`), what those styles name (`url(...)`), the images
    /// Leaflet's script names in the folder its style shows it, and the tiles each animation
    /// manifest's base map URL (`{z}/{x}/{y}`) leads to.
    static func loadedAssets(_ site: URL) throws -> Set<String> {
        let pages = try FileManager.default.contentsOfDirectory(atPath: site.path).flatMap { name -> [String] in
            name == "index.html" ? [name] : ["index.html", "embed.html"].map { "\(name)/\($0)" }
        }.filter { FileManager.default.fileExists(atPath: site.appendingPathComponent($0).path) }
        #expect(pages.count >= 3, "\(pages)")
        var loaded = Set<String>()
        for page in pages {
            let html = try String(contentsOf: site.appendingPathComponent(page), encoding: .utf8)
            for link in matches(#"(?:src|href)="([^"]+)""#, in: html) {
                if let path = resolve(link, from: page), path.hasPrefix("assets/") { loaded.insert(path) }
            }
        }
        // What the styles and scripts load in turn.
        var imageFolders = Set<String>()
        for style in loaded where style.hasSuffix(".css") {
            let css = try String(contentsOf: site.appendingPathComponent(style), encoding: .utf8)
            for link in matches(##"url\(['"]?([^)'"#]+)['"]?\)"##, in: css) {
                guard let path = resolve(link, from: style) else { continue }
                loaded.insert(path)
                imageFolders.insert((path as NSString).deletingLastPathComponent)
            }
        }
        for script in loaded where script.hasSuffix(".js") {
            let js = try String(contentsOf: site.appendingPathComponent(script), encoding: .utf8)
            for name in matches(#"["']([A-Za-z0-9_-]+\.(?:png|svg))["']"#, in: js) {
                for folder in imageFolders where FileManager.default.fileExists(atPath: site.appendingPathComponent("\(folder)/\(name)").path) {
                    loaded.insert("\(folder)/\(name)")
                }
            }
        }
        // The base map's tiles, which the player asks for by the manifest's URL template.
        let published = try files(under: "assets", in: site)
        for page in pages where page.hasSuffix("/index.html") {
            let manifest = (page as NSString).deletingLastPathComponent + "/manifest.json"
            let text = try String(contentsOf: site.appendingPathComponent(manifest), encoding: .utf8)
            for template in matches(#""url"\s*:\s*"([^"]*\{z\}[^"]*)""#, in: text) {
                guard let path = resolve(template.replacingOccurrences(of: "\\/", with: "/"), from: manifest), path.hasPrefix("assets/") else { continue }
                let pattern =
                    "^"
                    + NSRegularExpression.escapedPattern(for: path)
                    .replacingOccurrences(of: "\\{z\\}", with: "[0-9]+").replacingOccurrences(of: "\\{x\\}", with: "[0-9]+")
                    .replacingOccurrences(of: "\\{y\\}", with: "[0-9]+") + "$"
                loaded.formUnion(published.filter { $0.range(of: pattern, options: .regularExpression) != nil })
            }
        }
        return loaded
    }

    /// The first capture of each match of `pattern` in `text`.
    static func matches(_ pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// `link` as written in the file at `from` (a path from the site root), as a path from
    /// the site root; nil for another site's address or a data: URL.
    static func resolve(_ link: String, from: String) -> String? {
        guard !link.contains(":"), !link.hasPrefix("/"), !link.hasPrefix("#") else { return nil }
        let bare = String(link.prefix { $0 != "?" && $0 != "#" })
        var parts = from.split(separator: "/").dropLast().map(String.init)
        for part in bare.split(separator: "/") {
            if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(String(part)) }
        }
        return parts.joined(separator: "/")
    }
}
