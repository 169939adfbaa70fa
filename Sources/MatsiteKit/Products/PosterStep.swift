/// `poster.<png|jpg|webp>`, from the last frame (or the previous build's, when that frame was kept).
struct PosterStep: AnimationStep {
    var stage: BuildStage { .stitch }

    func run(_ animation: inout AnimationContext) async throws {
        let id = animation.animation.id
        try Poster.write(
            animation.poster, file: animation.posterFile, animation: id, folder: animation.writer.root.appendingPathComponent(id),
            previous: animation.writer.previous)
    }
}

extension AnimationContext {
    /// The poster's file name: the last frame's format.
    var posterFile: String { Poster.file(forFrame: frames.last?.file ?? "") }
}
