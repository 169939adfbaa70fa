import Foundation

/// Where an animation's poster comes from: the last frame, or the previous build's
/// poster when the last frame is the previous build's last frame, kept.
enum Poster: Sendable {
    case made([UInt8])
    case previous

    /// Writes (or links) `poster` as `<folder>/poster.png`.
    static func write(_ poster: Poster?, animation: String, folder: URL, previous: PreviousSite) throws {
        let target = folder.appendingPathComponent("poster.png")
        switch poster {
        case .made(let bytes):
            try FileWrite.write(bytes, to: target)
        case .previous where previous.link(animation: animation, relative: "poster.png", to: target):
            break
        default:
            throw NoPoster(animation: animation)
        }
    }
}

/// Neither a new poster nor the previous one could be had.
struct NoPoster: Swift.Error, CustomStringConvertible, Equatable {
    let animation: String

    var description: String { "animation \(animation): no poster could be made from the last frame" }
}
