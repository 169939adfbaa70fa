/// `poster.<png|jpg|webp>`: a one-source animation's from its last frame (or the previous
/// build's, when that frame was kept); a layered animation's composed of the layer frames
/// its last timeline entry shows, or the previous build's when they are the same.
struct PosterStep: AnimationStep {
    var stage: BuildStage { .stitch }

    func run(_ animation: inout AnimationContext) async throws {
        let id = animation.animation.id
        var poster = animation.poster
        if poster == nil { poster = try await composed(animation) }
        try Poster.write(
            poster, file: animation.posterFile, animation: id, folder: animation.writer.root.appendingPathComponent(id),
            previous: animation.writer.previous)
    }

    /// The last timeline entry's stack composed, on the CPU pool; the published poster when
    /// that entry shows the same layer frames at the same opacities as the published one.
    func composed(_ animation: AnimationContext) async throws -> Poster {
        let id = animation.animation.id, previous = animation.writer.previous
        let key = LayerStack.PosterKey(
            parts: animation.layers.map { .init(id: $0.layer.layer?.id ?? "", opacity: $0.animation.opacity ?? 1) },
            frames: animation.timeline.entries.last?.frames ?? [], files: animation.layers.map { $0.frames.map(\.inputHash) })
        if let published = previous.manifest(animation: id), LayerStack.PosterKey(published) == key, previous.hasPoster(animation: id) {
            return .previous
        }
        let stack = LayerStack(animation)
        let (width, height, last) = (animation.plan.layout.width, animation.plan.layout.height, animation.timeline.entries.count - 1)
        return try await CPUPool.shared.run { Poster.made(try stack.poster(at: last, frameWidth: width, frameHeight: height)) }
    }
}

extension AnimationContext {
    /// The poster's file name: a one-source animation's last frame's format; PNG for a
    /// layered animation's, composed.
    var posterFile: String { isLayered ? "poster.png" : Poster.file(forFrame: layers.first?.frames.last?.file ?? "") }
}
