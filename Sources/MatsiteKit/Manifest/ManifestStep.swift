import Foundation

/// Last: the animation's `manifest.json`, mapped from what the steps before made.
struct ManifestStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        var manifest = AnimationManifest(animation)
        // An unchanged rebuild keeps the published now: the manifest, and so the site,
        // stay byte for byte what they were, and nothing new is written or deployed.
        if let published = animation.writer.previous.manifest(animation: animation.animation.id), published.now != manifest.now {
            var same = manifest
            same.now = published.now
            if same == published { manifest = same }
        }
        try animation.writer.put(Array(JSONEncoder.manifest.encode(manifest)), at: "\(animation.animation.id)/manifest.json")
        animation.products.add(manifest)
    }
}

extension AnimationManifest: Product {}
