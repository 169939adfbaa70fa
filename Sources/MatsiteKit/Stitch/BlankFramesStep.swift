/// Says which frames came out blank (every pixel fully transparent), with their times: a
/// source that answers a time without data with empty tiles (MapServer does) must not
/// publish empty frames without a word. At the newest end of a live window such frames
/// were already left out (`blank: skip_newest`, `UnpublishedFrames`); these are the rest.
struct BlankFramesStep: AnimationStep {
    var stage: BuildStage { .stitch }

    func run(_ animation: inout AnimationContext) async throws {
        let blank = animation.frames.filter(\.blank)
        guard !blank.isEmpty else { return }
        animation.reporter.report(
            .blankFrames(
                BlankFramesReport(
                    animation: animation.animation.id, frames: animation.frames.count,
                    times: blank.map { $0.time?.manifestText ?? "frame \($0.index)" })))
    }
}
