/// The legend's image (`legend.image`, read before any request), beside the manifest under
/// its content-hashed name.
struct LegendImageStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        guard let image = animation.inputs.legendImage else { return }
        try animation.writer.put(image.bytes, at: "\(animation.animation.id)/\(image.name)")
        animation.legendImage = image.name
    }
}
