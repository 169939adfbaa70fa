import Foundation

/// Writes the HTML pages and the site manifest.
struct SitePages: Sendable {
    let config: SiteConfig
    let pages: PageRenderer
    let assets: SiteAssets

    func write(_ manifests: [AnimationManifest], with writer: SiteWriter) throws {
        let generator = "matsite \(Matsite.version)"
        var entries: [[String: Any]] = []
        for manifest in manifests {
            var context: [String: Any] = [
                "site_title": config.title, "title": manifest.title, "id": manifest.id, "generator": generator,
                "manifest_url": "manifest.json", "poster_url": "poster.png", "index_url": "../index.html",
                "embed_url": "embed.html", "width": manifest.width, "height": manifest.height,
                "assets": assets.relative(depth: 1), "is_embed": false,
            ]
            let downloads = Self.downloads(manifest.exports)
            if !downloads.isEmpty {
                context["exports"] = downloads
                context["has_exports"] = true
            }
            if let video = manifest.exports?.mp4 { context["og_video"] = video }
            try writer.put(Array(pages.render("player", context).utf8), at: "\(manifest.id)/index.html")
            // The embed page stays clean: no download links there.
            context["exports"] = nil
            context["has_exports"] = nil
            context["og_video"] = nil
            context["is_embed"] = true
            try writer.put(Array(pages.render("embed", context).utf8), at: "\(manifest.id)/embed.html")
            var entry: [String: Any] = [
                "id": manifest.id, "title": manifest.title, "page": "\(manifest.id)/index.html",
                "embed": "\(manifest.id)/embed.html", "poster": "\(manifest.id)/poster.png",
                "frame_count": manifest.frames.count, "width": manifest.width, "height": manifest.height,
                "iframe_snippet": iframeSnippet(manifest),
            ]
            let cardDownloads = Self.downloads(manifest.exports, prefix: "\(manifest.id)/")
            if !cardDownloads.isEmpty { entry["exports"] = cardDownloads }
            // Absent, not "": an empty string is truthy to Mustache sections.
            if let first = manifest.frames.first?.time { entry["first_time"] = first.manifestText }
            if let last = manifest.frames.last?.time { entry["last_time"] = last.manifestText }
            entries.append(entry)
        }
        let index: [String: Any] = [
            "site_title": config.title, "generator": generator, "assets": assets.relative(depth: 0),
            "animations": entries,
        ]
        try writer.put(Array(pages.render("index", index).utf8), at: "index.html")
        let siteManifest = SiteManifest(
            title: config.title, generator: generator,
            animations: manifests.map {
                .init(
                    id: $0.id, title: $0.title, page: "\($0.id)/index.html", embed: "\($0.id)/embed.html",
                    manifest: "\($0.id)/manifest.json", poster: "\($0.id)/poster.png")
            })
        try writer.put(Array(JSONEncoder.manifest.encode(siteManifest)), at: "manifest.json")
    }

    /// The exported loops as download links: label, URL (below `prefix`) and MIME type.
    static func downloads(_ exports: AnimationManifest.Exports?, prefix: String = "") -> [[String: Any]] {
        guard let exports else { return [] }
        let all: [(String, String?, String)] = [
            ("MP4", exports.mp4, "video/mp4"), ("GIF", exports.gif, "image/gif"), ("WebP", exports.webp, "image/webp"),
        ]
        return all.compactMap { label, url, type in url.map { ["label": label, "url": prefix + $0, "type": type] } }
    }

    /// The `<iframe>` a user pastes into their page: sized to the frames' aspect ratio.
    func iframeSnippet(_ manifest: AnimationManifest) -> String {
        let width = 800
        let height = Int((Double(width) * Double(manifest.height) / Double(max(1, manifest.width))).rounded()) + 56
        let base = config.baseURL.hasSuffix("/") ? config.baseURL : config.baseURL + "/"
        let source = Attribution.escape("\(base)\(manifest.id)/embed.html")
        return
            "<iframe src=\"\(source)\" title=\"\(Attribution.escape(manifest.title))\" width=\"\(width)\" height=\"\(height)\" loading=\"lazy\" allowfullscreen></iframe>"
    }
}
