import Foundation
import MatsiteImaging

/// A legend's image file (`legend.image`): read and checked while planning, before any
/// tile is asked for, and published beside the manifest under a content-hashed name.
struct LegendImage: Sendable {
    /// The file's bytes.
    let bytes: [UInt8]
    /// Its name in the animation's folder: `legend-<hash>.<ext>`.
    let name: String

    /// A legend is a small picture: anything larger is a wrong path, not a legend.
    static let maxBytes = 2 << 20

    /// The animation's legend image, or nil when its legend has none.
    /// - Throws: ``ConfigError`` naming the key and the file when it cannot be read, is too
    ///   large or is not a PNG, JPEG or WebP image.
    static func read(_ animation: AnimationConfig, config: SiteConfig) throws -> LegendImage? {
        guard let path = animation.legend?.image else { return nil }
        let file = config.resolve(path)
        func failure(_ message: String) -> ConfigError {
            ConfigError(file: config.file, line: animation.legend?.imageLine, keyPath: "\(animation.keyPath).legend.image", message: message)
        }
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw failure("cannot read \(file.path) (\(ConfigLoader.reason(error)))")
        }
        guard data.count <= maxBytes else {
            throw failure("\(file.path) is \(data.count) bytes; a legend image may have at most \(maxBytes) (2 MiB)")
        }
        let bytes = [UInt8](data)
        guard let kind = ImageKind.sniff(bytes) else {
            throw failure("\(file.path) is not a PNG, JPEG or WebP image (the formats every browser shows)")
        }
        let ext =
            switch kind {
            case .png: "png"
            case .jpeg: "jpg"
            case .webp: "webp"
            }
        return LegendImage(bytes: bytes, name: "legend-\(SHA256.hex(of: bytes).prefix(8)).\(ext)")
    }
}
