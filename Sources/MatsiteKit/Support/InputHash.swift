/// A tile as an input hash sees it: its digest (of any image format), or its absence.
enum TileIdentity: Sendable {
    case image(TileDigest)
    case absent
}

/// Hashes of what a published file was made from. Equal hashes mean equal files, so the
/// previous build's file is kept; the texts hashed here must never change by accident, or
/// every site's frames are stitched again after an upgrade.
enum InputHash {
    /// A header line and each tile's digest (or its absence), in order, hashed.
    static func hash(_ header: String, _ tiles: [TileIdentity]) -> String {
        var hash = SHA256()
        hash.update(Array((header + "\n").utf8))
        for tile in tiles {
            switch tile {
            // "png" names every format here: the hashed text never changes (see above).
            case .image(let digest): hash.update(Array("png \(digest.size) \(digest.sha256)\n".utf8))
            case .absent: hash.update(Array("absent\n".utf8))
            }
        }
        return hash.hexDigest()
    }
}
