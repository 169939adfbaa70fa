import MatsiteCapabilities

/// The loop as MP4, GIF and/or animated WebP (`export:`), from the frames just staged, its
/// frames composed and encoded on the CPU pool: each timeline entry's stack (a one-source
/// animation's frame, or its layers composed bottom to top), with the credit of every
/// source shown and the top legend.
struct ExportStep: AnimationStep {
    var stage: BuildStage { .publish }

    func run(_ animation: inout AnimationContext) async throws {
        guard let settings = animation.animation.export else { return }
        var shown = animation.animation
        shown.attribution = shown.fullAttribution
        shown.legend = animation.layers.last { $0.animation.legend != nil }?.animation.legend
        let stack = LayerStack(animation)
        let leads = Self.forecastFrom(animation.timeline.entries)
        let frames = animation.timeline.entries.enumerated().map { index, entry in
            var frame = LoopExporter.Frame(
                index: index, time: entry.time, durationMs: entry.durationMs, pictures: stack.entries[index], key: stack.key(at: index))
            frame.forecastFrom = leads[index]
            frame.run = entry.kind == .forecast ? entry.run : nil
            return frame
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
        animation.products.add(ExportedLoops(files: exported.files))
    }
}

extension ExportStep {
    /// What each entry's forecast label counts its lead from: its run, else the newest
    /// observed entry (a nowcast's "+30 min"); nil for an observed entry. Both follow from
    /// the timeline alone, so a label changes only with the frames, not with the clock.
    static func forecastFrom(_ entries: [Timeline.Entry]) -> [TimeInstant?] {
        let observed = entries.filter { $0.kind == .observed }.compactMap(\.time).max()
        return entries.map { $0.kind == .forecast ? $0.run ?? observed : nil }
    }
}

/// The exported loops' file names (relative to the animation's folder), per format.
struct ExportedLoops: Product {
    var files: [ExportConfig.Format: String]
}
