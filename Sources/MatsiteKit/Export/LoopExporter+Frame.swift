import MatsiteCapabilities

extension LoopExporter {
    /// One frame of the loop: what it shows, bottom to top, for how long (a timeline
    /// entry's stack, `LayerStack`).
    struct Frame: Sendable {
        var index: Int
        var time: TimeInstant?
        var durationMs: Int
        /// The pictures drawn over the background, bottom to top.
        var pictures: [LayerStack.Picture]
        /// Names the pictures in the export's keys (`LayerStack.key(at:)`).
        var key: String
        /// For a forecast step, what its lead counts from: its model run, else the newest
        /// observed step (a nowcast's "+30 min"); nil for an observed step.
        var forecastFrom: TimeInstant? = nil
        /// The model run of a forecast step, where it has one.
        var run: TimeInstant? = nil
    }
}
