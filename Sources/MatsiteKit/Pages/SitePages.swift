import Foundation

/// Writes the HTML pages and the site manifest: each template filled from its own typed
/// context (`PageContexts.swift`), then the templates' assets that the pages load.
struct SitePages: Sendable {
    let config: SiteConfig
    let pages: PageRenderer
    let assets: SiteAssets

    func write(_ manifests: [AnimationManifest], with writer: SiteWriter) throws {
        let generator = "matsite \(Matsite.version)", address = SiteAddress(config.baseURL)
        var written: [String] = []
        func put(_ html: String, at path: String) throws {
            try writer.put(Array(html.utf8), at: path)
            written.append(html)
        }
        for manifest in manifests {
            let page = AnimationPageValues(
                siteTitle: config.title, title: manifest.title, id: manifest.id, generator: generator, width: manifest.width,
                height: manifest.height, assets: assets.relative(depth: 1), poster: manifest.poster, address: address)
            let player = PlayerPageContext(
                page: page, downloads: Self.downloads(manifest.exports), preloads: FramePreload.of(manifest, embed: false))
            try put(pages.render(player), at: "\(manifest.id)/index.html")
            let embed = EmbedPageContext(page: page, preloads: FramePreload.of(manifest, embed: true))
            try put(pages.render(embed), at: "\(manifest.id)/embed.html")
        }
        let index = IndexPageContext(
            siteTitle: config.title, generator: generator, assets: assets.relative(depth: 0),
            animations: manifests.map { manifest in
                IndexEntry(
                    id: manifest.id, title: manifest.title, frameCount: manifest.frames.count, width: manifest.width,
                    height: manifest.height, poster: manifest.poster, baseMap: PosterBaseMap(manifest),
                    iframeSnippet: Self.embedCode(manifest, address: address, baseURL: config.baseURL),
                    downloads: Self.downloads(manifest.exports, prefix: "\(manifest.id)/"),
                    firstTime: manifest.frames.first?.time?.manifestText, lastTime: manifest.frames.last?.time?.manifestText,
                    timeZone: manifest.timeZone,
                    forecast: ForecastSpan(manifest.frames.map { ($0.time?.manifestText, $0.kind, $0.run) }))
            })
        try put(pages.render(index), at: "index.html")
        try assets.writeReferenced(by: written, with: writer)
        let siteManifest = SiteManifest(
            title: config.title, generator: generator,
            animations: manifests.map {
                .init(
                    id: $0.id, title: $0.title, page: "\($0.id)/index.html", embed: "\($0.id)/embed.html",
                    manifest: "\($0.id)/manifest.json", poster: "\($0.id)/\($0.poster)")
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

    /// What the embed page shows below the map, in CSS pixels (measured in Chromium): the
    /// controls take two rows above 48rem (768 px, the breakpoint of `player.css`) and
    /// three below it; a legend adds a row of its own.
    static let belowMap = (controls: 104, narrowControls: 125, breakpoint: 768, legend: 26)

    /// The code a user pastes into their page: an `<iframe>` as wide as its column, its map
    /// at the frames' aspect ratio and the player's bars below it. The wrapper's padding
    /// does the sums (a percentage of padding is one of the column's width), so it needs no
    /// script and no stylesheet on the host page; `clamp` adds the narrow layout's third
    /// row below the breakpoint. Styles inline: they are the host page's.
    static func embedCode(_ manifest: AnimationManifest, address: SiteAddress, baseURL: String) -> String {
        let ratio = Double(manifest.height) / Double(max(1, manifest.width)) * 100
        let percent = PosterBaseMap.Tile.number((ratio * 100).rounded() / 100)
        let below = belowMap
        let wide = below.controls + (manifest.legend == nil ? 0 : below.legend)
        // (breakpoint + 0.5 - width) * 1000: negative above the breakpoint, past the extra row below it.
        let narrow = "clamp(0px, (\(below.breakpoint).5px - 100%) * 1000, \(below.narrowControls - below.controls)px)"
        let padding = "calc(\(percent)% + \(wide)px + \(narrow))"
        let relative = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        let source = Attribution.escape(address.absolute("\(manifest.id)/embed.html") ?? "\(relative)\(manifest.id)/embed.html")
        return """
            <div style="position:relative;width:100%;height:0;padding-bottom:\(padding)">\
            <iframe src="\(source)" title="\(Attribution.escape(manifest.title))" \
            style="position:absolute;top:0;left:0;width:100%;height:100%;border:0" loading="lazy" allowfullscreen></iframe></div>
            """
    }
}
