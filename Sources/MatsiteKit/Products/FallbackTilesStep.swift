/// Tiles deeper than the frames' zoom for the player's zoom fallback (`fallback:`), or the
/// source's own URLs; each frame gets its fallback tiles' hash.
struct FallbackTilesStep: LayerStep {
    var stage: BuildStage { .publish }

    func run(_ layer: inout LayerContext) async throws {
        let plan = layer.plan, config = plan.config
        let publisher = FallbackTilePublisher(
            animation: config.id, zoom: config.zoom, bbox: config.bbox, tileSize: plan.layout.tileSize,
            settings: config.fallback, sourceMaxZoom: plan.sourceMaxZoom, subdomains: config.source.subdomains,
            locate: plan.locate, loader: layer.loader, writer: layer.writer)
        let published = try await publisher.publish(
            zip(plan.frames, layer.frames).map { planned, frame in
                FallbackTilePublisher.Frame(index: frame.index, sourceTemplate: planned.sourceTemplate)
            })
        for i in layer.frames.indices { layer.frames[i].fallbackHash = published.hashes[i] }
        if let fallback = published.fallback { layer.products.add(fallback) }
        if let report = published.report { layer.reporter.report(.fallbackPublished(report)) }
    }
}

/// The tiles the player falls back on when zoomed in past the frames: one `{z}/{x}/{y}`
/// template per frame, in frame order: the site's own tiles (`tiles/<hash>/...`, relative
/// to the layer's folder, `published`) or the source's URLs.
struct FallbackTiles: Product, Equatable {
    var templates: [String]
    var minZoom: Int
    var maxNativeZoom: Int
    var subdomains: [String]
    /// True for tiles published with the site (only over the bounds); false for the source's.
    var published: Bool
}
