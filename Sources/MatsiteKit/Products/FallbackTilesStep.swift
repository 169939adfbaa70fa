/// Tiles deeper than the frames' zoom for the player's zoom fallback (`fallback:`), or the
/// source's own URLs; each frame gets its fallback tiles' hash.
struct FallbackTilesStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        let plan = animation.plan, config = plan.config
        let publisher = FallbackTilePublisher(
            animation: config.id, zoom: config.zoom, bbox: config.bbox, tileSize: plan.layout.tileSize,
            settings: config.fallback, sourceMaxZoom: plan.sourceMaxZoom, subdomains: config.source.subdomains,
            locate: plan.locate, loader: animation.loader, writer: animation.writer)
        let published = try await publisher.publish(
            zip(plan.frames, animation.frames).map { planned, frame in
                FallbackTilePublisher.Frame(index: frame.index, sourceTemplate: planned.sourceTemplate)
            })
        for i in animation.frames.indices { animation.frames[i].fallbackHash = published.hashes[i] }
        animation.fallback = published.fallback
        if let report = published.report { animation.reporter.report(.fallbackPublished(report)) }
    }
}
