import MatsiteImaging

/// Large frames also as tile pyramids (`pyramid:`), cut from the frame files just staged.
struct PyramidLevelsStep: LayerStep {
    var stage: BuildStage { .publish }

    func run(_ layer: inout LayerContext) async throws {
        guard let levels = FramePyramidPublisher(animation: layer.animation, layout: layer.plan.layout, writer: layer.writer)
        else { return }
        let published = try await levels.publish(layer.frames)
        for i in layer.frames.indices {
            layer.frames[i].levelTiles = published.tiles[i]
            layer.frames[i].coarsest = published.images[i].coarsest
            layer.frames[i].coarser = published.images[i].halvings
        }
        layer.products.add(levels.pyramid)
        layer.reporter.report(.levelsPublished(levels.report(published.cost, frames: layer.frames.count)))
    }
}

extension FramePyramid: Product {}
