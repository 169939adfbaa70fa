import MatsiteCapabilities
import MatsiteImaging

/// A frame as this build published it: what `FramePipeline` hands to the product steps
/// (each may add to it: fallback tiles, level tiles) and what the manifest step maps to
/// the manifest's `frames`, the one place it becomes wire format.
struct PublishedFrame: Sendable, Equatable {
    /// A tile the frame lacks (drawn transparent), with why.
    struct MissingTile: Sendable, Equatable {
        var tile: TileCoordinate
        var reason: String
    }

    /// Position in the animation.
    var index: Int
    /// The instant it shows, when the source is timed.
    var time: TimeInstant?
    /// How long the player shows it.
    var durationMs: Int
    /// Its file, relative to the animation's folder, named by its content:
    /// `frames/1a2b3c4d5e6f7a8b.png` (`FrameName`).
    var file: String
    var bytes: Int
    var sha256: String
    /// Hash of everything it was made from: equal means it can be reused.
    var inputHash: String
    /// Hash of where its tiles come from and how it is made, for a frame a later build may
    /// carry forward unasked (`CarryForward`): nil for frames that are always looked at.
    var sourceHash: String? = nil
    /// Tiles drawn transparent (`missing: transparent`), in tile order.
    var missingTiles: [MissingTile] = []
    /// Hash of its fallback tiles, once they are published.
    var fallbackHash: String? = nil
    /// Its level tiles (`frames/1a2b3c4d5e6f7a8b/{z}/{x}/{y}.png`), once published.
    var levelTiles: String? = nil
    /// Its reduced copies (`frames/1a2b3c4d5e6f7a8b/r2.png`, then `r1.png`), coarsest first,
    /// once published; none for a frame that fits a small screen or with `levels: never`.
    var levels: [ReducedLevel] = []
    /// Its coarsest level as one image (`frames/1a2b3c4d5e6f7a8b/5.png`), once published
    /// with its level tiles.
    var coarsest: ReducedLevel? = nil
    /// With `coarsest`, when it is more than 640 pixels on its longer side: its halvings as
    /// images (`frames/1a2b3c4d5e6f7a8b/4.png`...), coarsest first.
    var coarser: [CoarseImage] = []
    /// Its first background (`coarser.first`, else `coarsest`) in a sheet with other frames',
    /// once published (`BackgroundSheetsStep`).
    var sheet: SheetCell? = nil
    /// Every pixel fully transparent: the source sent empty tiles for this time.
    var blank = false
}

/// One of the coarsest pyramid level's halvings as one image, beside the frame's tiles
/// (`frames/<hash>/<zoom>.<ext>`): the pyramid's level `level.zoom`, its box alone.
struct CoarseImage: Sendable, Equatable {
    /// Its file, relative to the animation's (or layer's) folder.
    var file: String
    var level: PyramidLevel
    var bytes: Int
}

/// One reduced copy of a frame: the frame halved `k` times, in the frame's format, beside it
/// in its content-named folder (`frames/<hash>/r<k>.<ext>`).
struct ReducedLevel: Sendable, Equatable {
    /// Its file, relative to the animation's (or layer's) folder.
    var file: String
    var width: Int
    var height: Int
    var bytes: Int
}

/// A frame's first background in a sheet (`frames/sheet-<hash>.png`, relative to the
/// animation's folder): rows `y ..< y + height` of it.
struct SheetCell: Sendable, Equatable {
    var file: String
    var y: Int
}
