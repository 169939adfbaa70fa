import MatsiteImaging

/// A web map tile's address: zoom, column (wrapped into the world) and row, XYZ order.
public struct TileCoordinate: Sendable, Hashable, CustomStringConvertible {
    /// Zoom level.
    public var z: Int
    /// Column, 0 ..< 2^z.
    public var x: Int
    /// Row from the north, 0 ..< 2^z.
    public var y: Int

    /// A tile address.
    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    public var description: String { "\(z)/\(x)/\(y)" }
}

/// The source tiles a frame is made of, and the one place that converts between their
/// three names: a position in a frame's tile list (row-major), a cell of the grid
/// (column, row; columns unwrapped, so a box across the antimeridian has increasing
/// columns) and a tile of the world (z, x, y; x wrapped).
public struct TileGrid: Sendable, Equatable {
    /// The zoom the tiles are at.
    public let zoom: Int
    /// Unwrapped tile columns, west to east.
    public let columns: ClosedRange<Int>
    /// Tile rows, north to south.
    public let rows: ClosedRange<Int>

    /// The grid of `layout`'s source tiles at `zoom` (the layout's source zoom).
    public init(layout: FrameLayout, zoom: Int) {
        self.zoom = zoom
        columns = layout.columns
        rows = layout.rows
    }

    /// Number of tiles.
    public var count: Int { columns.count * rows.count }

    /// The position of cell (column, row) in a frame's tile list.
    public func index(column: Int, row: Int) -> Int {
        (row - rows.lowerBound) * columns.count + (column - columns.lowerBound)
    }

    /// The cell at position `index` of a frame's tile list.
    public func cell(_ index: Int) -> (column: Int, row: Int) {
        (columns.lowerBound + index % columns.count, rows.lowerBound + index / columns.count)
    }

    /// The world tile at position `index`, its column wrapped into the world.
    public func tile(_ index: Int) -> TileCoordinate {
        let (column, row) = cell(index)
        return tile(column: column, row: row)
    }

    /// The world tile of cell (column, row).
    public func tile(column: Int, row: Int) -> TileCoordinate {
        let n = 1 << zoom
        return TileCoordinate(z: zoom, x: ((column % n) + n) % n, y: row)
    }

    /// Every tile, in the order of a frame's tile list.
    public var tiles: [TileCoordinate] { (0..<count).map { tile($0) } }
}
