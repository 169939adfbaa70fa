/// Large frames also as tile pyramids (`pyramid:`), cut from the frame files just staged.
struct PyramidLevelsStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        guard let levels = FramePyramidPublisher(animation: animation.animation, layout: animation.plan.layout, writer: animation.writer)
        else { return }
        let published = try await levels.publish(animation.frames)
        for i in animation.frames.indices { animation.frames[i].levelTiles = published.tiles[i] }
        animation.pyramid = levels.pyramid
        animation.reporter.report(.levelsPublished(levels.report(published.cost, frames: animation.frames.count)))
    }
}
