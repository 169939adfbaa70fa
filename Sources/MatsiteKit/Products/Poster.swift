import Foundation

/// Where an animation's poster comes from: the last frame, or the previous build's
/// poster when the last frame is the previous build's last frame, kept.
enum Poster: Sendable {
    case made([UInt8])
    case previous

    /// The poster's file name for a loop whose last frame is `frame`: `poster.png`,
    /// `poster.jpg` or `poster.webp`, the frame's own format (the manifest's `poster`).
    static func file(forFrame frame: String) -> String {
        let ext = (frame as NSString).pathExtension
        return ["jpg", "webp"].contains(ext) ? "poster.\(ext)" : "poster.png"
    }

    /// Writes (or links) `poster` as `<folder>/<file>`.
    static func write(_ poster: Poster?, file: String, animation: String, folder: URL, previous: PreviousSite) throws {
        let target = folder.appendingPathComponent(file)
        switch poster {
        case .made(let bytes):
            try FileWrite.write(bytes, to: target)
        case .previous where previous.link(animation: animation, relative: file, to: target):
            break
        default:
            throw NoPosterError(animation: animation)
        }
    }
}

/// Neither a new poster nor the previous one could be had.
struct NoPosterError: Swift.Error, CustomStringConvertible, Equatable {
    let animation: String

    var description: String { "animation \(animation): no poster could be made from the last frame" }
}
