/// The loop as MP4, GIF and/or animated WebP (`export:`), from the frames just staged, its
/// frames composed and encoded on the CPU pool.
struct ExportStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        guard let settings = animation.animation.export else { return }
        var exporter = LoopExporter(
            animation: animation.animation, settings: settings, layout: animation.plan.layout,
            demoBaseMap: animation.site.baseMap?.demo == true, writer: animation.writer)
        exporter.backgroundTiles = animation.inputs.exportBackground
        exporter.cacheFolder = animation.inputs.exportCache
        // Not one CPU-pool job: the exporter puts each frame's composing and encoding on the
        // pool itself, side by side.
        let exported = try await exporter.export(animation.frames)
        animation.reporter.report(.exported(exported.report))
        animation.exports = exported.exports
    }
}
