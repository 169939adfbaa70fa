import Foundation
import MatsiteCapabilities
import MatsiteImaging

extension Builder {
    /// A layered animation: each layer's frames through the same fetch, reuse and stitch
    /// path as a one-source animation's (into `<id>/<layer>/frames/`, in its own format),
    /// and its own products (fallback tiles, levels, legend image); then the timeline's
    /// entries, each naming the layer frame it shows, and the whole animation's products:
    /// the poster composed of its layers, the exports, points and the manifest.
    ///
    /// A layer that cannot be made (its feed down, its tiles missing) keeps its published
    /// version, mapped onto the new timeline within its `max_age`, while the other layers
    /// move on, said as an alert; one never published fails the animation.
    func renderLayers(
        _ plan: AnimationPlan, inputs: AnimationInputs, loader: any TileLoader, writer: SiteWriter, now: TimeInstant
    ) async throws -> Rendered {
        var plan = plan
        var reused = 0
        var alerts: [LoopAlert] = []
        var layers: [AnimationManifest.Layer] = []
        var files: [[PublishedFrame]] = []
        for (position, layerPlan) in plan.layers.enumerated() {
            do {
                let outcomes = try await renderFrames(layerPlan.plan, loader: loader, writer: writer, poster: false, now: now)
                let failures = outcomes.flatMap(\.failures)
                guard failures.isEmpty else {
                    for tile in failures { reporter.report(.tileFailed(tile)) }
                    throw BuildError.tilesFailed(failures)
                }
                reused += outcomes.filter(\.reused).count
                var context = AnimationContext(
                    plan: layerPlan.plan, site: config, inputs: AnimationInputs(legendImage: inputs.layerLegendImages[layerPlan.layer.id]),
                    loader: loader, writer: writer, reporter: reporter, frames: outcomes.compactMap(\.frame), poster: nil)
                for product in AnimationSteps.layerProducts {
                    try await step(product.stage) { try await product.run(&context) }
                }
                layers.append(AnimationManifest.Layer(context, layer: layerPlan.layer))
                files.append(context.frames)
            } catch {
                if error is CancellationError || Task.isCancelled { throw error }
                guard let kept = try keepPublished(layerPlan, of: plan, writer: writer) else { throw error }
                let alert = LoopAlert.partKept(animation: plan.config.id, part: "layer \(layerPlan.layer.id)", cause: String(describing: error))
                reporter.report(.alert(alert))
                alerts.append(alert)
                plan.layers[position] = kept.plan
                layers.append(kept.entry)
                files.append(kept.frames)
            }
        }
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
        return Rendered(manifest: context.manifest, failures: [], reused: reused, alerts: alerts)
    }

    /// A layer as the previous build published it, its files linked into the new site, its
    /// frames mapped onto this build's timeline (within its `max_age`); nil when it was never
    /// published, or no published frame falls within reach of the timeline.
    func keepPublished(
        _ layerPlan: LayerPlan, of plan: AnimationPlan, writer: SiteWriter
    ) throws -> (plan: LayerPlan, entry: AnimationManifest.Layer, frames: [PublishedFrame])? {
        let id = plan.config.id, layerId = layerPlan.layer.id
        guard let published = writer.previous.manifest(animation: id)?.layers?.first(where: { $0.id == layerId }) else { return nil }
        let times = published.frames.compactMap(\.time), timeline = plan.frames.compactMap(\.time)
        guard times.count == published.frames.count, timeline.count == plan.frames.count else { return nil }
        let (used, mapping) = Timeline.used(Timeline.map(timeline, frames: times, maxAge: layerPlan.maxAge))
        guard !used.isEmpty else { return nil }
        // Its files as published (the layer's folder, whole), in place of what this build
        // staged of it before it failed.
        try? FileManager.default.removeItem(at: writer.root.appendingPathComponent(id).appendingPathComponent(layerId))
        for path in writer.previous.paths(under: "\(id)/\(layerId)/").sorted() where try !writer.link(path) { return nil }
        let folder = "\(layerId)/"
        var entry = published
        entry.frames = used.enumerated().map { position, index in
            var frame = published.frames[index]
            frame.index = position
            return frame
        }
        entry.skipped = nil
        let frames = entry.frames.map { frame in
            PublishedFrame(
                index: frame.index, time: frame.time, durationMs: frame.durationMs, file: String(frame.url.dropFirst(folder.count)),
                bytes: frame.bytes, sha256: frame.sha256, inputHash: frame.inputHash, sourceHash: frame.sourceHash,
                fallbackHash: frame.fallbackHash, levelTiles: frame.tiles.map { String($0.dropFirst(folder.count)) })
        }
        var kept = LayerPlan(layer: layerPlan.layer, plan: layerPlan.plan, mapping: mapping, maxAge: layerPlan.maxAge)
        kept.notes = layerPlan.notes
        return (kept, entry, frames)
    }
}
