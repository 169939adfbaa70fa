import Foundation
import MatsiteImaging

extension Builder {
    /// A layered animation: each layer's frames through the same fetch, reuse and stitch
    /// path as a one-source animation's (into `<id>/<layer>/frames/`, in its own format),
    /// and its own products (fallback tiles, levels, legend image); then the timeline's
    /// entries, each naming the layer frame it shows, and the whole animation's products:
    /// the poster composed of its layers, the exports, points and the manifest.
    func renderLayers(
        _ plan: AnimationPlan, inputs: AnimationInputs, loader: any TileLoader, writer: SiteWriter, now: Date
    ) async throws -> Rendered {
        var failures: [FailedTile] = []
        var reused = 0
        var layers: [AnimationManifest.Layer] = []
        var files: [[PublishedFrame]] = []
        for layerPlan in plan.layers {
            let outcomes = try await renderFrames(layerPlan.plan, loader: loader, writer: writer, poster: false, now: now)
            failures += outcomes.flatMap(\.failures)
            guard failures.isEmpty else { continue }
            reused += outcomes.filter(\.reused).count
            var context = AnimationContext(
                plan: layerPlan.plan, site: config, inputs: AnimationInputs(legendImage: inputs.layerLegendImages[layerPlan.layer.id]),
                loader: loader, writer: writer, reporter: reporter, frames: outcomes.compactMap(\.frame), poster: nil)
            for product in AnimationSteps.layerProducts {
                try await step(product.stage) { try await product.run(&context) }
            }
            layers.append(AnimationManifest.Layer(context, layer: layerPlan.layer))
            files.append(context.frames)
        }
        guard failures.isEmpty else { return Rendered(manifest: nil, failures: failures, reused: 0) }
        let timeline = plan.frames.map { frame in
            PublishedFrame(
                index: frame.index, time: frame.time, durationMs: frame.durationMs, file: "", bytes: 0, sha256: "", inputHash: "",
                layers: plan.layers.map { $0.mapping[frame.index] })
        }
        var context = AnimationContext(
            plan: plan, site: config, inputs: inputs, loader: loader, writer: writer, reporter: reporter, frames: timeline, poster: nil)
        context.layers = layers
        context.layerFrames = files
        // The last entry shows the same layer frames, at the same opacities, as the published
        // one: its poster is kept, not composed and encoded again.
        let shown = layers.map { layer in LayerStack.PosterKey.Part(id: layer.id, opacity: layer.opacity) }
        let key = LayerStack.PosterKey(parts: shown, frames: timeline.last?.layers ?? [], files: layers.map(\.frames))
        if let published = writer.previous.manifest(animation: plan.config.id), let old = LayerStack.PosterKey(published), old == key,
            writer.previous.hasPoster(animation: plan.config.id)
        {
            context.poster = .previous
        }
        if context.poster == nil {
            context.poster = try await step(.stitch) {
                let stack = LayerStack(plan: plan, frames: files, folder: writer.root.appendingPathComponent(plan.config.id))
                let (width, height) = (plan.layout.width, plan.layout.height)
                return try await CPUPool.shared.run { Poster.made(try stack.poster(at: timeline.count - 1, frameWidth: width, frameHeight: height)) }
            }
        }
        for product in AnimationSteps.layeredProducts {
            try await step(product.stage) { try await product.run(&context) }
        }
        return Rendered(manifest: context.manifest, failures: [], reused: reused)
    }
}
