import Foundation

/// Writes the HTML pages and the site manifest: each template filled from its own typed
/// context (`PageContexts.swift`).
struct SitePages: Sendable {
    let config: SiteConfig
    let pages: PageRenderer
    let assets: SiteAssets

    func write(_ manifests: [AnimationManifest], with writer: SiteWriter) throws {
        let generator = "matsite \(Matsite.version)"
        for manifest in manifests {
            let page = AnimationPageValues(
                siteTitle: config.title, title: manifest.title, id: manifest.id, generator: generator, width: manifest.width,
                height: manifest.height, assets: assets.relative(depth: 1))
            let player = PlayerPageContext(page: page, downloads: Self.downloads(manifest.exports))
            try writer.put(Array(pages.render(player).utf8), at: "\(manifest.id)/index.html")
            try writer.put(Array(pages.render(EmbedPageContext(page: page)).utf8), at: "\(manifest.id)/embed.html")
        }
        let index = IndexPageContext(
            siteTitle: config.title, generator: generator, assets: assets.relative(depth: 0),
            animations: manifests.map { manifest in
                IndexEntry(
                    id: manifest.id, title: manifest.title, frameCount: manifest.frames.count, width: manifest.width,
                    height: manifest.height, iframeSnippet: iframeSnippet(manifest),
                    downloads: Self.downloads(manifest.exports, prefix: "\(manifest.id)/"),
                    firstTime: manifest.frames.first?.time?.manifestText, lastTime: manifest.frames.last?.time?.manifestText)
            })
        try writer.put(Array(pages.render(index).utf8), at: "index.html")
        let siteManifest = SiteManifest(
            title: config.title, generator: generator,
            animations: manifests.map {
                .init(
                    id: $0.id, title: $0.title, page: "\($0.id)/index.html", embed: "\($0.id)/embed.html",
                    manifest: "\($0.id)/manifest.json", poster: "\($0.id)/poster.png")
            })
        try writer.put(Array(JSONEncoder.manifest.encode(siteManifest)), at: "manifest.json")
    }

    /// The exported loops as download links (URLs below `prefix`), in a fixed order.
    static func downloads(_ exports: AnimationManifest.Exports?, prefix: String = "") -> [DownloadLink] {
        guard let exports else { return [] }
        let all: [(String, String?, String)] = [
            ("MP4", exports.mp4, "video/mp4"), ("GIF", exports.gif, "image/gif"), ("WebP", exports.webp, "image/webp"),
        ]
        return all.compactMap { label, url, type in url.map { DownloadLink(label: label, url: prefix + $0, type: type) } }
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
