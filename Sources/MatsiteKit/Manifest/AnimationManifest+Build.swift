import MatsiteImaging

extension AnimationManifest {
    /// The manifest of one animation: its settings, its frames' geometry, its frames and
    /// fallback tiles, and the site's base map and embed settings.
    init(
        animation config: AnimationConfig, layout: FrameLayout, frames: [Frame], fallback: Fallback?,
        baseMap: BaseMap?, allowedOrigins: [String], skipped: [SkippedFrame] = []
    ) {
        self.init(
            id: config.id, title: config.title, bounds: config.bbox, zoom: config.zoom,
            width: layout.width, height: layout.height, tileSize: layout.tileSize,
            attribution: config.attribution, attributionHtml: Attribution.html(config.attribution),
            crossfadeMs: config.crossfadeMs, loop: config.loop, poster: "poster.png",
            baseMap: baseMap, fallback: fallback, embed: .init(allowedOrigins: allowedOrigins), frames: frames,
            skipped: skipped.isEmpty ? nil : skipped,
            opacity: config.opacity, legend: config.legend, timeZone: config.timeZone, timeLabel: config.timeLabel)
    }
}

extension AnimationManifest.BaseMap {
    /// The player's background layer for the config's `base_map`; nil when it has neither
    /// a URL nor the demo map.
    init?(_ map: BaseMapConfig) {
        if map.demo {
            self.init(
                url: "../assets/demo-basemap/{z}/{x}/{y}.png", attributionHtml: Attribution.html(map.attribution),
                maxZoom: 22, maxNativeZoom: DemoBaseMap.maxZoom, subdomains: [])
        } else if let url = map.url {
            self.init(
                url: url, attributionHtml: Attribution.html(map.attribution), maxZoom: max(map.maxZoom, 22),
                maxNativeZoom: map.maxZoom, subdomains: map.subdomains)
        } else {
            return nil
        }
    }
}

extension AnimationManifest.MissingTile {
    /// A tile the frame lacks, with why.
    init(_ tile: TileCoordinate, reason: String) {
        self.init(z: tile.z, x: tile.x, y: tile.y, bounds: WebMercator.tileBounds(z: tile.z, x: tile.x, y: tile.y), reason: reason)
    }
}
