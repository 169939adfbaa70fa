/// One frame of an exported loop (MP4, GIF, WebP): opaque RGB, 3 bytes a pixel, rows
/// packed. It is what the player shows at the frame's own zoom: the background, the frame
/// over it at the animation's opacity, and the labels on bands of their own.
public struct LoopCanvas: Sendable {
    /// Pixels across.
    public let width: Int
    /// Pixels down.
    public let height: Int
    /// RGB bytes, `width * 3` a row.
    public var rgb: [UInt8]

    /// A canvas holding `background` (`width * height * 3` RGB bytes).
    public init(width: Int, height: Int, background: [UInt8]) {
        precondition(background.count == width * height * 3, "background must be width x height RGB")
        self.width = width
        self.height = height
        rgb = background
    }

    /// A canvas of one colour.
    public init(width: Int, height: Int, color: RGB) {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            pixels[i * 3] = color.r
            pixels[i * 3 + 1] = color.g
            pixels[i * 3 + 2] = color.b
        }
        self.init(width: width, height: height, background: pixels)
    }

    /// Draws an RGBA frame over the canvas at `opacity` (0...1). Along an edge where the
    /// frame is the canvas's size (or one pixel more: an odd edge cut for H.264) it is drawn
    /// pixel for pixel from its top left corner; otherwise it is scaled to the canvas, nearest
    /// neighbour, so a palette frame keeps its exact colours.
    public mutating func draw(_ frame: DecodedImage, opacity: Double) {
        precondition(frame.palette == nil, "draw takes RGBA frames")
        let columns = (0..<width).map { Self.source($0, count: width, sourceCount: frame.width) }
        let o = Int((max(0, min(1, opacity)) * 255).rounded())
        let (w, h, fw, fh) = (width, height, frame.width, frame.height)
        frame.pixels.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { out in
                for y in 0..<h {
                    let sy = Self.source(y, count: h, sourceCount: fh)
                    let row = sy * fw * 4
                    var p = y * w * 3
                    for x in 0..<w {
                        let s = row + columns[x] * 4
                        let a = (Int(source[s + 3]) * o + 127) / 255
                        if a == 255 {
                            out[p] = source[s]
                            out[p + 1] = source[s + 1]
                            out[p + 2] = source[s + 2]
                        } else if a > 0 {
                            for c in 0..<3 { out[p + c] = UInt8((Int(source[s + c]) * a + Int(out[p + c]) * (255 - a) + 127) / 255) }
                        }
                        p += 3
                    }
                }
            }
        }
    }

    /// The frame pixel drawn at canvas position `i` along an edge of `count` pixels, from
    /// a frame edge of `sourceCount`: the same, or the nearest when scaled.
    public static func source(_ i: Int, count: Int, sourceCount: Int) -> Int {
        let delta = sourceCount - count
        return delta == 0 || delta == 1 ? i : min(sourceCount - 1, (2 * i + 1) * sourceCount / (2 * count))
    }

    /// Darkens or tints a rectangle (clipped to the canvas): `color` blended at `alpha` (0...255).
    public mutating func shade(x: Int, y: Int, width w: Int, height h: Int, color: RGB, alpha: Int) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + w), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        let fill = [Int(color.r), Int(color.g), Int(color.b)]
        for row in y0..<y1 {
            for column in x0..<x1 {
                let p = (row * width + column) * 3
                for c in 0..<3 { rgb[p + c] = UInt8((fill[c] * alpha + Int(rgb[p + c]) * (255 - alpha) + 127) / 255) }
            }
        }
    }

    /// Draws `text` in `font` at `px` pixels with its pen at `x` on `baseline`, in `color`.
    public mutating func text(_ text: String, font: LabelFont, px: Int, x: Int, baseline: Int, color: RGB) throws(ImageError) {
        let (w, h) = (width, height)
        let ok = rgb.withUnsafeMutableBufferPointer { out in
            font.draw(text, px: px, into: out.baseAddress!, width: w, height: h, x: x, baseline: baseline, color: color)
        }
        guard ok else { throw ImageError(.encode, "cannot draw the label \"\(text)\"", format: "FreeType") }
    }

    /// The pixel at (x, y).
    public func pixel(x: Int, y: Int) -> RGB {
        let p = (y * width + x) * 3
        return RGB(rgb[p], rgb[p + 1], rgb[p + 2])
    }
}

/// An opaque colour.
public struct RGB: Hashable, Sendable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    /// Creates a colour.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `#rrggbb` (or `#rgb`), or nil when the text is neither.
    public init?(hex text: String) {
        guard text.hasPrefix("#") else { return nil }
        var digits = Array(text.dropFirst())
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        guard digits.count == 6, let value = UInt32(String(digits), radix: 16) else { return nil }
        self.init(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }

    /// `#rrggbb`.
    public var hex: String {
        "#" + [r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

extension LoopCanvas {
    /// A C library's message buffer as text (the loop encoders' and the font's shims).
    static func message(_ buffer: [CChar]) -> String {
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.isEmpty ? "unknown error" : text
    }
}
