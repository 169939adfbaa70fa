import Foundation

/// Last: the animation's `manifest.json`, mapped from what the steps before made.
struct ManifestStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        let manifest = AnimationManifest(animation)
        try animation.writer.put(Array(JSONEncoder.manifest.encode(manifest)), at: "\(animation.animation.id)/manifest.json")
        animation.products.add(manifest)
    }
}

extension AnimationManifest: Product {}
