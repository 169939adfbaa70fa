import MatsiteCapabilities

extension LoopExporter {
    /// One frame of the loop: what it shows, bottom to top, for how long.
    struct Frame: Sendable {
        var index: Int
        var time: TimeInstant?
        var durationMs: Int
        /// The pictures drawn over the background, bottom to top.
        var pictures: [LayerStack.Picture]
        /// Names the pictures in the export's keys: a frame's hash, or each layer's with its
        /// opacity (`-` for a time no layer shows anything at).
        var key: String

        /// A one-source animation's frame, drawn at the animation's opacity.
        init(_ frame: PublishedFrame, opacity: Double) {
            index = frame.index
            time = frame.time
            durationMs = frame.durationMs
            pictures = [.init(file: frame.file, sha256: frame.sha256, opacity: opacity)]
            key = frame.sha256
        }

        /// A layered animation's timeline entry, its layers composed.
        init(_ entry: PublishedFrame, stack pictures: [LayerStack.Picture]) {
            index = entry.index
            time = entry.time
            durationMs = entry.durationMs
            self.pictures = pictures
            key = pictures.isEmpty ? "-" : pictures.map { "\($0.sha256)@\($0.opacity)" }.joined(separator: "+")
        }
    }
}
