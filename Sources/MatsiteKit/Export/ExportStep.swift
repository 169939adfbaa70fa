/// The loop as MP4, GIF and/or animated WebP (`export:`), from the frames just staged, on
/// the CPU pool.
struct ExportStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        guard let settings = animation.animation.export else { return }
        var exporter = LoopExporter(
            animation: animation.animation, settings: settings, layout: animation.plan.layout,
            demoBaseMap: animation.site.baseMap?.demo == true, writer: animation.writer)
        exporter.backgroundTiles = animation.inputs.exportBackground
        let (frames, export) = (animation.frames, exporter)
        let exported = try await CPUPool.shared.run { try export.export(frames) }
        animation.reporter.report(.exported(exported.report))
        animation.exports = exported.exports
    }
}
