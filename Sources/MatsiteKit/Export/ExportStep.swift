/// The loop as MP4, GIF and/or animated WebP (`export:`), from the frames just staged, its
/// frames composed and encoded on the CPU pool. A layered animation's loop shows its
/// layers composed, on the timeline's times, with the top legend and every layer's credit.
struct ExportStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        guard let settings = animation.animation.export else { return }
        var shown = animation.animation
        let frames: [LoopExporter.Frame]
        if animation.layers.isEmpty {
            frames = animation.frames.map { LoopExporter.Frame($0, opacity: shown.opacity ?? 1) }
        } else {
            let stack = LayerStack(
                plan: animation.plan, frames: animation.layerFrames, folder: animation.writer.root.appendingPathComponent(shown.id))
            frames = zip(animation.frames, stack.entries).map { LoopExporter.Frame($0, stack: $1) }
            shown.attribution = shown.fullAttribution
            shown.legend = shown.layers.last { $0.feed.legend != nil }?.feed.legend
        }
        var exporter = LoopExporter(
            animation: shown, settings: settings, layout: animation.plan.layout,
            demoBaseMap: animation.site.baseMap?.demo == true, writer: animation.writer)
        exporter.backgroundTiles = animation.inputs.exportBackground
        exporter.cacheFolder = animation.inputs.exportCache
        // Not one CPU-pool job: the exporter puts each frame's composing and encoding on the
        // pool itself, side by side.
        let exported = try await exporter.export(frames)
        animation.reporter.report(.exported(exported.report))
        animation.exports = exported.exports
    }
}
