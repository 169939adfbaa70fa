import Foundation
import MatsiteImaging

/// What an animation shows at each timeline entry: per layer of its stack, bottom to top,
/// the layer frame's file and the layer's opacity, or nothing (a one-source animation's
/// stack is its own frame at its opacity). The poster and the exported loops compose these
/// pictures as the player stacks them.
struct LayerStack: Sendable {
    /// One picture of a stack.
    struct Picture: Sendable, Equatable {
        /// Relative to the animation's folder: `frames/<name>`, or `<layer>/frames/<name>`.
        var file: String
        var sha256: String
        var opacity: Double
    }

    /// Per timeline entry, the pictures drawn, bottom to top (layers showing nothing left out).
    let entries: [[Picture]]
    /// The animation's folder in the staged site.
    let folder: URL
    /// True for the layers of `layers:`.
    let layered: Bool

    /// The stacks of `animation`'s timeline, from its layers as built.
    init(_ animation: AnimationContext) {
        folder = animation.writer.root.appendingPathComponent(animation.animation.id)
        layered = animation.isLayered
        entries = animation.timeline.entries.map { entry in
            zip(animation.layers, entry.frames).compactMap { layer, position in
                guard let position, layer.frames.indices.contains(position) else { return nil }
                let frame = layer.frames[position]
                return Picture(file: layer.layer.folder + frame.file, sha256: frame.sha256, opacity: layer.animation.opacity ?? 1)
            }
        }
    }

    /// Names entry `index`'s pictures (in an export's keys): a one-source frame's hash, or
    /// each layer's with its opacity (`-` for a time no layer shows anything at).
    func key(at index: Int) -> String {
        let pictures = entries[index]
        guard layered else { return pictures.first?.sha256 ?? "-" }
        return pictures.isEmpty ? "-" : pictures.map { "\($0.sha256)@\($0.opacity)" }.joined(separator: "+")
    }

    /// Timeline entry `index` composed at `width` x `height`: RGBA, transparent where no
    /// layer draws, each layer over the ones below at its opacity (nearest neighbour when
    /// a layer's frame is of another size).
    func compose(at index: Int, width: Int, height: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let decoder = TileDecoder(maxWidth: 1 << 15, maxHeight: 1 << 15)
        for picture in entries[index] {
            let image = try decoder.decode([UInt8](Data(contentsOf: folder.appendingPathComponent(picture.file))), keepIndices: false)
            let columns = (0..<width).map { LoopCanvas.source($0, count: width, sourceCount: image.width) }
            let o = max(0, min(1, picture.opacity))
            for y in 0..<height {
                let row = LoopCanvas.source(y, count: height, sourceCount: image.height) * image.width * 4
                for x in 0..<width {
                    let s = row + columns[x] * 4
                    let p = (y * width + x) * 4
                    // Source over, straight alpha.
                    let a = Double(image.pixels[s + 3]) / 255 * o
                    guard a > 0 else { continue }
                    let below = Double(out[p + 3]) / 255 * (1 - a)
                    let alpha = a + below
                    for c in 0..<3 {
                        out[p + c] = UInt8((Double(image.pixels[s + c]) * a + Double(out[p + c]) * below) / alpha + 0.5)
                    }
                    out[p + 3] = UInt8(alpha * 255 + 0.5)
                }
            }
        }
        return out
    }

    /// The poster: timeline entry `index` composed within 480 pixels, as PNG.
    func poster(at index: Int, frameWidth: Int, frameHeight: Int) throws -> [UInt8] {
        let scale = min(1.0, 480 / Double(max(frameWidth, frameHeight)))
        let width = max(1, Int((Double(frameWidth) * scale).rounded()))
        let height = max(1, Int((Double(frameHeight) * scale).rounded()))
        return try PNGWriter.encode(width: width, height: height, format: .rgba, pixels: compose(at: index, width: width, height: height), level: 9)
    }
}

extension LayerStack {
    /// What a layered loop's poster is composed of: per layer, its id, its opacity and the
    /// input hash of the frame its last timeline entry shows. Equal keys, equal posters.
    struct PosterKey: Equatable {
        struct Part: Equatable {
            var id: String
            var opacity: Double
            var frame: String? = nil
        }

        var parts: [Part]

        /// The key of a loop whose last entry shows `frames` (per layer, a position in that
        /// layer's frames, whose input hashes are `files`, or nil).
        init(parts: [Part], frames: [Int?], files: [[String]]) {
            self.parts = parts.enumerated().map { i, part in
                var part = part
                if i < frames.count, let position = frames[i], i < files.count, files[i].indices.contains(position) {
                    part.frame = files[i][position]
                }
                return part
            }
        }

        /// The key of a published layered manifest; nil for a one-source one.
        init?(_ manifest: AnimationManifest) {
            guard let layers = manifest.layers, let last = manifest.frames.last?.layers else { return nil }
            self.init(
                parts: layers.map { Part(id: $0.id, opacity: $0.opacity) }, frames: last, files: layers.map { $0.frames.map(\.inputHash) })
        }
    }
}
