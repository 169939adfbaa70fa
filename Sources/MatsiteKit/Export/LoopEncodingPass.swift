import Foundation
import MatsiteImaging

/// One pass of an export over its frames, a batch at a time: composes the pictures the pass
/// needs, runs the encoders' work on each frame side by side on the CPU pool, hands what
/// they made to the caller in order of arrival, and feeds MP4 every picture in order
/// meanwhile (ffmpeg encodes in its own process).
///
/// What a frame needs is said by `needs(i)`: work of its own on the pair (i - 1, i) (a GIF
/// or WebP frame follows its picture and the one before) or on i alone (its colours). Frame
/// i's picture is composed when it has work, when the next frame has work on its pair, or
/// when MP4 takes every picture; a batch's last picture is kept for the next batch's first pair.
struct LoopEncodingPass: Sendable {
    let frames: [LoopExporter.Frame]
    let composer: LoopComposer
    let timing: LoopExportClock
    /// ffmpeg, when the pass feeds MP4.
    var mp4: SinkBox? = nil

    /// A frame's own work in the pass.
    struct Needs: Sendable, Equatable {
        /// Work on the pair (previous picture, this one).
        var pair = false
        /// Work on this picture alone.
        var single = false
    }

    /// GIF and WebP frames composed and encoded side by side, then the next as many: a few
    /// per core keeps both busy while holding only that many pictures.
    static let batch = 2 * ProcessInfo.processInfo.activeProcessorCount

    /// Which frames' pictures are composed, given each frame's own work.
    static func composed(_ own: [Needs], feedsMP4: Bool) -> [Bool] {
        own.indices.map { i in feedsMP4 || own[i].pair || own[i].single || (i + 1 < own.count && own[i + 1].pair) }
    }

    /// Runs the pass: `work(i, previous, current, needs)` for each frame with work, its
    /// pieces handed to `take` in the caller's task.
    func run(
        needs: (Int) -> Needs,
        work: @escaping @Sendable (Int, LoopCanvas?, LoopCanvas, Needs) async throws -> [LoopPiece],
        take: (Int, LoopPiece) -> Void
    ) async throws {
        let own = frames.indices.map(needs)
        let needed = Self.composed(own, feedsMP4: mp4 != nil)
        var last: (index: Int, canvas: LoopCanvas)?
        for batch in Swift.stride(from: 0, to: frames.count, by: Self.batch) {
            try Task.checkCancellation()
            let indices = Array(batch..<min(frames.count, batch + Self.batch))
            let canvases = try await composer.compose(frames, indices: indices.filter { needed[$0] }, timing: timing)
            func canvas(_ i: Int) -> LoopCanvas? { canvases[i] ?? (last?.index == i ? last?.canvas : nil) }
            // MP4 takes the batch in order on its own thread.
            let shown = mp4 == nil ? [] : indices.compactMap { i in canvas(i).map { ($0, frames[i].durationMs) } }
            async let fed: Void = feed(shown)
            try await withThrowingTaskGroup(of: (Int, [LoopPiece]).self) { group in
                for i in indices where own[i].pair || own[i].single {
                    guard let current = canvas(i) else { continue }
                    let previous = i > 0 ? canvas(i - 1) : nil
                    let mine = own[i]
                    group.addTask { (i, try await work(i, previous, current, mine)) }
                }
                for try await (i, pieces) in group {
                    for piece in pieces { take(i, piece) }
                }
            }
            try await fed
            if let end = indices.last, let picture = canvas(end) { last = (end, picture) }
        }
    }

    /// Hands `pictures` to ffmpeg in order.
    private func feed(_ pictures: [(LoopCanvas, Int)]) async throws {
        guard let mp4 else { return }
        for (picture, duration) in pictures { try await Self.feed(mp4, picture, durationMs: duration, timing: timing) }
    }

    /// Sends a picture to ffmpeg on the feeder thread: the write waits while ffmpeg
    /// encodes, and must not hold a slot of the CPU pool meanwhile.
    static func feed(_ box: SinkBox, _ canvas: LoopCanvas, durationMs: Int, timing: LoopExportClock) async throws {
        try await onFeeder {
            let start = ContinuousClock.now
            try box.sink.add(canvas, durationMs: durationMs)
            timing.add(.mp4, since: start)
        }
    }

    /// Ends the loop on the feeder thread: waiting for ffmpeg's file blocks, and must not
    /// hold a thread of the cooperative pool.
    static func finish(_ box: SinkBox) async throws {
        try await onFeeder { _ = try box.sink.finishLoop() }
    }

    /// Runs `body` on the feeder thread and waits for it.
    private static func onFeeder(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            feeder.async {
                do {
                    try body()
                    continuation.resume()
                } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// The thread pictures go to ffmpeg on, and its end is waited for on.
    static let feeder = DispatchQueue(label: "matsite.export.ffmpeg")
}

/// What an export's pass made of one frame.
enum LoopPiece: Sendable {
    /// A GIF frame.
    case gif([UInt8])
    /// A WebP frame.
    case webp(WebPLoopEncoder.Frame)
    /// The picture's colours, for the GIF's table.
    case histogram(ColorHistogram)
}

/// The MP4 encoder handed to the thread that feeds ffmpeg: used by one thread at a time
/// (each picture is handed over after the previous one was taken), so it crosses threads
/// safely.
final class SinkBox: @unchecked Sendable {
    let sink: any LoopSink

    init(_ sink: any LoopSink) {
        self.sink = sink
    }
}

/// An exported loop's encoder, as the exporter drives it.
protocol LoopSink: AnyObject {
    /// Adds a frame shown for `durationMs`.
    func add(_ canvas: LoopCanvas, durationMs: Int) throws
    /// Ends the loop: the file's bytes, or nil when the encoder wrote the file itself.
    func finishLoop() throws -> [UInt8]?
}

extension FFmpegLoopEncoder: LoopSink {
    func finishLoop() throws -> [UInt8]? {
        try finish()
        return nil
    }
}
