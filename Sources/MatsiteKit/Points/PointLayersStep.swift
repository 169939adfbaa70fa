/// Each point layer clustered and written (or the previous site's files linked), on the
/// CPU pool (`PointPublisher` hands its jobs to it).
struct PointLayersStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        let config = animation.animation, writer = animation.writer
        let frameTimes = animation.plan.frames.map(\.time)
        var layers: [PublishedPointLayer] = []
        for (layer, loaded) in zip(config.points, animation.inputs.points) {
            let started = ContinuousClock.now
            let publisher = PointPublisher(animation: config.id, layer: layer, frameTimes: frameTimes)
            let (published, reused) = try await publisher.publish(loaded, with: writer)
            if published.skipped > 0 {
                animation.reporter.report(.warning(.pointsSkipped(animation: config.id, layer: published.id, count: published.skipped)))
            }
            let elapsed = started.duration(to: .now)
            animation.reporter.report(
                .pointLayerPublished(
                    PointLayerReport(
                        animation: config.id, layer: published.id, points: published.count, reused: reused,
                        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                        levels: published.levels.count, bytes: published.levels.reduce(0) { $0 + $1.bytes })))
            layers.append(published)
        }
        animation.products.add(PublishedPointLayers(layers: layers))
    }
}

/// The point layers as published, in config order.
struct PublishedPointLayers: Product {
    var layers: [PublishedPointLayer]
}
