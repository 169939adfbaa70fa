/// A frame's box of pixels at one zoom of the global Web Mercator grid of 256-pixel tiles.
///
/// `x0`, `y0` are the box's top-left pixel in global pixel coordinates at `zoom` (y down
/// from the north, as XYZ tiles count); a box crossing the antimeridian keeps counting past
/// the world's width, as `FrameLayout.originX` does.
public struct PyramidLevel: Equatable, Sendable {
    /// Zoom of the 256-pixel tile grid.
    public let zoom: Int
    /// Global pixel column of the box's left edge.
    public let x0: Int
    /// Global pixel row of the box's top edge.
    public let y0: Int
    /// Box width in pixels.
    public let width: Int
    /// Box height in pixels.
    public let height: Int

    /// Edge of a level tile in pixels.
    public static let tileSize = 256

    /// Creates a level box.
    public init(zoom: Int, x0: Int, y0: Int, width: Int, height: Int) {
        precondition(x0 >= 0 && y0 >= 0 && width > 0 && height > 0, "a level box has a place and a size")
        self.zoom = zoom
        self.x0 = x0
        self.y0 = y0
        self.width = width
        self.height = height
    }

    /// Tile columns the box touches: floor(x0 / 256) ... floor((x0 + width - 1) / 256).
    public var tileColumns: ClosedRange<Int> { (x0 / Self.tileSize)...((x0 + width - 1) / Self.tileSize) }

    /// Tile rows the box touches.
    public var tileRows: ClosedRange<Int> { (y0 / Self.tileSize)...((y0 + height - 1) / Self.tileSize) }

    /// Number of tiles the level is published as.
    public var tileCount: Int { tileColumns.count * tileRows.count }

    /// The box one zoom coarser: pixel (px, py) there is made from pixels (2px...2px+1,
    /// 2py...2py+1) here, so it covers every coarse pixel that any of this box's pixels
    /// falls in (an odd edge gives a coarse pixel made from fewer than four).
    public var coarser: PyramidLevel {
        let left = x0 >> 1, top = y0 >> 1
        return PyramidLevel(
            zoom: zoom - 1, x0: left, y0: top, width: ((x0 + width + 1) >> 1) - left, height: ((y0 + height + 1) >> 1) - top)
    }
}

/// The levels a frame is published as: its own pixels at the finest, halved at each coarser
/// zoom down to the first that fits `coarsestMaxEdge` on its longest side (or zoom 0).
public struct FramePyramid: Equatable, Sendable {
    /// Coarsest first, finest (the frame's own box) last.
    public let levels: [PyramidLevel]

    /// The longest side the coarsest level may have: a screen's worth, so a player can
    /// always show the whole frame from that level alone.
    public static let coarsestMaxEdge = 1024

    /// The pyramid of a frame whose box at `zoom` (256-pixel tiles) starts at global pixel
    /// (`x0`, `y0`) and is `width` x `height` pixels, halved down to the first level at most
    /// `coarsestMaxEdge` pixels on its longer side.
    public init(zoom: Int, x0: Int, y0: Int, width: Int, height: Int, coarsestMaxEdge: Int = Self.coarsestMaxEdge) {
        precondition(zoom >= 0, "levels are zooms of the tile grid")
        var level = PyramidLevel(zoom: zoom, x0: x0, y0: y0, width: width, height: height)
        var levels = [level]
        while level.zoom > 0 && max(level.width, level.height) > coarsestMaxEdge {
            level = level.coarser
            levels.append(level)
        }
        self.levels = levels.reversed()
    }

    /// A frame's own halvings, for its reduced copies (`r1`, `r2`...): the box starts at
    /// pixel (0, 0), so each halving pairs the frame's own columns and rows from its top-left
    /// (a level of an odd size has ceil(size / 2) pixels, the last made from the one column
    /// or row there is), down to the first level at most `coarsestMaxEdge` pixels on its
    /// longer side. Zooms count halvings up from the coarsest (0); a frame that already fits
    /// is a pyramid of one level.
    public init(halving width: Int, height: Int, coarsestMaxEdge: Int) {
        var halvings = 0, edge = max(width, height)
        while edge > coarsestMaxEdge {
            edge = (edge + 1) / 2
            halvings += 1
        }
        self.init(zoom: halvings, x0: 0, y0: 0, width: width, height: height, coarsestMaxEdge: coarsestMaxEdge)
    }

    /// The coarsest level's zoom.
    public var minZoom: Int { levels[0].zoom }

    /// The finest level's zoom (the frame's own).
    public var maxZoom: Int { levels[levels.count - 1].zoom }

    /// The frame's own box.
    public var finest: PyramidLevel { levels[levels.count - 1] }

    /// Tiles over all levels.
    public var tileCount: Int { levels.reduce(0) { $0 + $1.tileCount } }
}
