import Foundation
import MatsiteImaging

/// Composes the pictures of an export side by side on the CPU pool: the background, the
/// frame at its opacity (a layered animation's layers bottom to top, each at its own), the
/// labels. Each job opens its own font (FreeType faces are not thread-safe).
struct LoopComposer: Sendable {
    /// The label font's file.
    let fontPath: String
    /// The background's RGB pixels at `size` (`LoopBackground.pixels`).
    let background: [UInt8]
    let size: (width: Int, height: Int)
    /// The folder the frames' files are below (the animation's).
    let folder: URL
    let labels: LoopLabels
    /// Each frame's time label, in order.
    let times: [String]

    /// The pictures of frames `indices`, by index; each adds its time and count to `timing`.
    func compose(_ frames: [LoopExporter.Frame], indices: [Int], timing: LoopExportClock) async throws -> [Int: LoopCanvas] {
        try await withThrowingTaskGroup(of: (Int, LoopCanvas).self) { group in
            for i in indices {
                let frame = frames[i]
                group.addTask {
                    try await CPUPool.shared.run {
                        let start = ContinuousClock.now
                        defer {
                            let seconds = LoopExportTimings.seconds(since: start)
                            timing.withLock {
                                $0.compose += seconds
                                $0.pictures += 1
                            }
                        }
                        return (i, try picture(frame, time: times[i]))
                    }
                }
            }
            var out: [Int: LoopCanvas] = [:]
            for try await (i, canvas) in group { out[i] = canvas }
            return out
        }
    }

    /// One frame's picture, labelled `time`.
    func picture(_ frame: LoopExporter.Frame, time: String) throws -> LoopCanvas {
        var canvas = LoopCanvas(width: size.width, height: size.height, background: background)
        for picture in frame.pictures {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(picture.file)))
            canvas.draw(try TileDecoder(maxWidth: 1 << 15, maxHeight: 1 << 15).decode(bytes, keepIndices: false), opacity: picture.opacity)
        }
        try labels.draw(on: &canvas, time: time, font: try LabelFont(path: fontPath))
        return canvas
    }
}
