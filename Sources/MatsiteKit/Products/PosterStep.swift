/// `poster.png`, from the last frame (or the previous build's, when that frame was kept).
struct PosterStep: AnimationStep {
    var stage: BuildStage { .stitch }

    func run(_ animation: inout AnimationContext) async throws {
        let id = animation.animation.id
        try Poster.write(animation.poster, animation: id, folder: animation.writer.root.appendingPathComponent(id), previous: animation.writer.previous)
    }
}
