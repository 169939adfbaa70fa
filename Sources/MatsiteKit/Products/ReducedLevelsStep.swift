/// Each frame's reduced copies (`levels:`), halved from the frame files just staged, listed
/// beside each frame in the manifest.
struct ReducedLevelsStep: LayerStep {
    var stage: BuildStage { .publish }

    func run(_ layer: inout LayerContext) async throws {
        guard let levels = ReducedLevelsPublisher(animation: layer.animation, layout: layer.plan.layout, writer: layer.writer)
        else { return }
        let published = try await levels.publish(layer.frames)
        for i in layer.frames.indices { layer.frames[i].levels = published.levels[i] }
        layer.reporter.report(.reducedLevelsPublished(levels.report(published.cost, frames: layer.frames.count)))
    }
}
