/// How a frame's files are named: by their content only, never by their position. A frame
/// that stays in a moving window keeps its names (and its files, linked from the previous
/// build), so a deploy finds it unchanged; the manifest's order gives the positions; two
/// frames alike in one loop are one file.
enum FrameName {
    /// Hex digits of a SHA-256 that a name keeps: 64 bits, far from any clash between the
    /// frames a site ever holds.
    static let hashLength = 16

    /// A frame's file in its animation's `frames/` folder: `1a2b3c4d5e6f7a8b.png`. Its
    /// pyramid levels go in the folder of the same name without the extension.
    static func file(sha256: String, extension ext: String) -> String {
        "\(sha256.prefix(hashLength)).\(ext)"
    }

    /// A frame's fallback tiles' folder, relative to the animation's: `tiles/<hash>`, the
    /// hash of those tiles (`FallbackTilePublisher`).
    static func fallbackFolder(_ hash: String) -> String {
        "tiles/\(hash.prefix(hashLength))"
    }
}
