import MatsiteImaging

/// A web map tile's address: zoom, column (wrapped into the world) and row, XYZ order.
struct TileCoordinate: Sendable, Hashable, CustomStringConvertible {
    /// Zoom level.
    var z: Int
    /// Column, 0 ..< 2^z.
    var x: Int
    /// Row from the north, 0 ..< 2^z.
    var y: Int

    /// A tile address.
    init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    var description: String { "\(z)/\(x)/\(y)" }
}

/// The source tiles a frame is made of, and the one place that converts between their
/// three names: a position in a frame's tile list (row-major), a cell of the grid
/// (column, row; columns unwrapped, so a box across the antimeridian has increasing
/// columns) and a tile of the world (z, x, y; x wrapped).
struct TileGrid: Sendable, Equatable {
    /// The zoom the tiles are at.
    let zoom: Int
    /// Unwrapped tile columns, west to east.
    let columns: ClosedRange<Int>
    /// Tile rows, north to south.
    let rows: ClosedRange<Int>

    /// The grid of `layout`'s source tiles at `zoom` (the layout's source zoom).
    init(layout: FrameLayout, zoom: Int) {
        self.zoom = zoom
        columns = layout.columns
        rows = layout.rows
    }

    /// Number of tiles.
    var count: Int { columns.count * rows.count }

    /// The position of cell (column, row) in a frame's tile list.
    func index(column: Int, row: Int) -> Int {
        (row - rows.lowerBound) * columns.count + (column - columns.lowerBound)
    }

    /// The cell at position `index` of a frame's tile list.
    func cell(_ index: Int) -> (column: Int, row: Int) {
        (columns.lowerBound + index % columns.count, rows.lowerBound + index / columns.count)
    }

    /// The world tile at position `index`, its column wrapped into the world.
    func tile(_ index: Int) -> TileCoordinate {
        let (column, row) = cell(index)
        return tile(column: column, row: row)
    }

    /// The world tile of cell (column, row).
    func tile(column: Int, row: Int) -> TileCoordinate {
        let n = 1 << zoom
        return TileCoordinate(z: zoom, x: ((column % n) + n) % n, y: row)
    }

    /// Every tile, in the order of a frame's tile list.
    var tiles: [TileCoordinate] { (0..<count).map { tile($0) } }
}
