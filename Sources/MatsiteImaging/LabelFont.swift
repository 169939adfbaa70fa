import CFreeTypeShim

/// A font file opened through FreeType, for the labels burned into exported loops.
public final class LabelFont: @unchecked Sendable {
    // FreeType faces are not thread-safe: one caller at a time (each export opens its own).
    private let font: OpaquePointer
    /// The file it was opened from.
    public let path: String

    /// Opens the font at `path` (TrueType, OpenType, ...).
    public init(path: String) throws(ImageError) {
        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        guard mft_open(path, &handle, &message, message.count) == MFT_OK, let handle else {
            throw ImageError(.decode, LoopCanvas.message(message), format: "font")
        }
        font = handle
        self.path = path
    }

    deinit { mft_close(font) }

    /// The advance width of `text` and the font's ascent and descent at `px` pixels.
    public func measure(_ text: String, px: Int) throws(ImageError) -> (width: Int, ascent: Int, descent: Int) {
        var width: Int32 = 0, ascent: Int32 = 0, descent: Int32 = 0
        guard mft_measure(font, text, Int32(px), &width, &ascent, &descent) == MFT_OK else {
            throw ImageError(.encode, "cannot lay out the label \"\(text)\"", format: "FreeType")
        }
        return (Int(width), Int(ascent), Int(descent))
    }

    /// Draws into an RGB canvas; false on a FreeType error.
    func draw(
        _ text: String, px: Int, into rgb: UnsafeMutablePointer<UInt8>, width: Int, height: Int, x: Int, baseline: Int, color: RGB
    ) -> Bool {
        mft_draw(font, text, Int32(px), rgb, Int32(width), Int32(height), width * 3, Int32(x), Int32(baseline), color.r, color.g, color.b)
            == MFT_OK
    }
}
