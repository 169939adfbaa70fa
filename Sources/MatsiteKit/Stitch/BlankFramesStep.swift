/// Says which frames came out blank (every pixel fully transparent), with their times: a
/// source that answers a time without data with empty tiles (MapServer does) must not
/// publish empty frames without a word. At the newest end of a live window such frames
/// were already left out (`blank: skip_newest`, `UnpublishedFrames`); these are the rest.
struct BlankFramesStep: LayerStep {
    var stage: BuildStage { .stitch }

    func run(_ layer: inout LayerContext) async throws {
        let blank = layer.frames.filter(\.blank)
        guard !blank.isEmpty else { return }
        layer.reporter.report(
            .blankFrames(
                BlankFramesReport(
                    animation: layer.animation.id, frames: layer.frames.count,
                    times: blank.map { $0.time?.manifestText ?? "frame \($0.index)" })))
    }
}
