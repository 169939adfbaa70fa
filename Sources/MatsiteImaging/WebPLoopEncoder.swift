import CWebPShim

/// Writes an exported loop as an animated WebP that loops forever, through libwebp and
/// libwebpmux.
///
/// Each frame after the first stores only the rectangle that changed since the previous
/// frame; lossless, the pixels inside it that did not change are transparent and blended
/// over what is shown (they cost almost nothing). A frame depends only on its canvas and
/// the previous one (`encodeFrame`), so a loop's frames can be encoded side by side and put
/// together in order (`add(encoded:durationMs:)`).
public final class WebPLoopEncoder {
    private let width: Int
    private let height: Int
    private let settings: Settings
    /// The last canvas added with `add(_:durationMs:)`.
    private var previous: LoopCanvas?
    private var frames: [Frame] = []
    private var durations: [Int32] = []
    private var finished = false

    /// How frames are encoded.
    public struct Settings: Sendable, Hashable {
        /// Exact pixels (VP8L) at `effort`, else lossy at `quality`.
        public var lossless: Bool
        /// Lossy quality, 1-100.
        public var quality: Int
        /// libwebp's effort 0-9 (lossless: its preset level; lossy: its method, at most 6).
        public var effort: Int

        /// Settings.
        public init(lossless: Bool, quality: Int, effort: Int) {
            self.lossless = lossless
            self.quality = quality
            self.effort = effort
        }
    }

    /// One frame encoded on its own: a still WebP of the rectangle at (`x`, `y`).
    public struct Frame: Sendable, Equatable {
        /// The still WebP file.
        public var bytes: [UInt8]
        /// The rectangle's place and size on the canvas.
        public var x: Int, y: Int, width: Int, height: Int
        /// Its transparent pixels keep what is shown.
        public var blend: Bool

        /// A frame.
        public init(bytes: [UInt8], x: Int, y: Int, width: Int, height: Int, blend: Bool) {
            self.bytes = bytes
            (self.x, self.y, self.width, self.height, self.blend) = (x, y, width, height, blend)
        }
    }

    /// Starts a `width` x `height` animation: lossless (exact pixels) at `effort` 0-9, or
    /// lossy at `quality` 1-100.
    public init(width: Int, height: Int, lossless: Bool, quality: Int, effort: Int) throws(ImageError) {
        guard width > 0, height > 0, width <= 16383, height <= 16383 else {
            throw ImageError(.encode, "an animated WebP is 1 to 16383 pixels a side, not \(width)x\(height)", format: "WebP")
        }
        self.width = width
        self.height = height
        settings = Settings(lossless: lossless, quality: quality, effort: effort)
    }

    /// Adds a frame shown for `durationMs`.
    public func add(_ canvas: LoopCanvas, durationMs: Int) throws(ImageError) {
        guard canvas.width == width, canvas.height == height else {
            throw ImageError(.encode, "frame size differs from the animation's", format: "WebP")
        }
        try add(encoded: try Self.encodeFrame(previous: previous, canvas, settings: settings), durationMs: durationMs)
        previous = canvas
    }

    /// Adds a frame from `encodeFrame` (the frames in order, the first with no previous),
    /// shown for `durationMs`.
    public func add(encoded frame: Frame, durationMs: Int) throws(ImageError) {
        guard !finished else { throw ImageError(.encode, "the animation is finished", format: "WebP") }
        frames.append(frame)
        durations.append(Int32(clamping: durationMs))
    }

    /// Ends the animation and returns its bytes.
    public func finish() throws(ImageError) -> [UInt8] {
        guard !finished, !frames.isEmpty else { throw ImageError(.encode, "the animation is finished or has no frame", format: "WebP") }
        finished = true
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        // The C frames point into the Swift arrays for the time of the call.
        let code = Self.withCFrames(frames) { cFrames in
            mwebp_anim_assemble(UInt32(width), UInt32(height), cFrames, durations, Int32(cFrames.count), &out, &size, &message, message.count)
        }
        guard code == MWEBP_OK, let out else { throw ImageError(.encode, LoopCanvas.message(message), format: "WebP") }
        defer { mwebp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// One frame: `canvas` after `previous` (nil: the first frame, stored whole).
    public static func encodeFrame(previous: LoopCanvas?, _ canvas: LoopCanvas, settings: Settings) throws(ImageError) -> Frame {
        if let previous, previous.width != canvas.width || previous.height != canvas.height {
            throw ImageError(.encode, "frame size differs from the previous frame's", format: "WebP")
        }
        var frame = mwebp_frame()
        var message = [CChar](repeating: 0, count: 256)
        let code = canvas.rgb.withUnsafeBufferPointer { now in
            (previous?.rgb ?? []).withUnsafeBufferPointer { before in
                mwebp_anim_frame(
                    previous == nil ? nil : before.baseAddress, now.baseAddress, UInt32(canvas.width), UInt32(canvas.height),
                    settings.lossless ? 1 : 0, Int32(settings.quality), Int32(settings.effort), &frame, &message, message.count)
            }
        }
        guard code == MWEBP_OK, let bytes = frame.bytes else { throw ImageError(.encode, LoopCanvas.message(message), format: "WebP") }
        defer { mwebp_free(bytes) }
        return Frame(
            bytes: Array(UnsafeBufferPointer(start: bytes, count: frame.size)), x: Int(frame.x), y: Int(frame.y), width: Int(frame.width),
            height: Int(frame.height), blend: frame.blend != 0)
    }
}

private extension WebPLoopEncoder {
    /// Calls `body` with the frames as C structs pointing into one buffer of all their bytes.
    static func withCFrames<R>(_ frames: [Frame], _ body: ([mwebp_frame]) -> R) -> R {
        let all = frames.flatMap(\.bytes)
        return all.withUnsafeBufferPointer { buffer in
            var offset = 0
            var built: [mwebp_frame] = []
            for f in frames {
                built.append(
                    mwebp_frame(
                        bytes: UnsafeMutablePointer(mutating: buffer.baseAddress! + offset), size: f.bytes.count, x: UInt32(f.x),
                        y: UInt32(f.y), width: UInt32(f.width), height: UInt32(f.height), blend: f.blend ? 1 : 0))
                offset += f.bytes.count
            }
            return body(built)
        }
    }
}
