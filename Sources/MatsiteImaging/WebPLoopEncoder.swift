import CWebPShim

/// Writes an exported loop as an animated WebP through libwebpmux's animation encoder
/// (frame timestamps, loops forever; it writes only the part of each frame that changed).
public final class WebPLoopEncoder {
    private var anim: OpaquePointer?
    private var elapsedMs = 0
    private let width: Int
    private let height: Int

    /// Starts a `width` x `height` animation: lossless (exact pixels) at `effort` 0-9, or
    /// lossy at `quality` 1-100.
    public init(width: Int, height: Int, lossless: Bool, quality: Int, effort: Int) throws(ImageError) {
        var message = [CChar](repeating: 0, count: 256)
        var handle: OpaquePointer?
        let code = mwebp_anim_begin(
            UInt32(width), UInt32(height), lossless ? 1 : 0, Int32(quality), Int32(effort), &handle, &message, message.count)
        guard code == MWEBP_OK, let handle else { throw ImageError(.encode, LoopCanvas.message(message), format: "WebP") }
        anim = handle
        self.width = width
        self.height = height
    }

    deinit { mwebp_anim_discard(anim) }

    /// Adds a frame shown for `durationMs`.
    public func add(_ canvas: LoopCanvas, durationMs: Int) throws(ImageError) {
        guard let anim, canvas.width == width, canvas.height == height else {
            throw ImageError(.encode, "frame size differs from the animation's, or it is finished", format: "WebP")
        }
        var message = [CChar](repeating: 0, count: 256)
        let code = mwebp_anim_add(anim, canvas.rgb, width * 3, Int32(elapsedMs), &message, message.count)
        guard code == MWEBP_OK else { throw ImageError(.encode, LoopCanvas.message(message), format: "WebP") }
        elapsedMs += durationMs
    }

    /// Ends the animation and returns its bytes.
    public func finish() throws(ImageError) -> [UInt8] {
        guard let anim else { throw ImageError(.encode, "the animation is finished", format: "WebP") }
        self.anim = nil
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        guard mwebp_anim_finish(anim, Int32(elapsedMs), &out, &size, &message, message.count) == MWEBP_OK, let out else {
            throw ImageError(.encode, LoopCanvas.message(message), format: "WebP")
        }
        defer { mwebp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
