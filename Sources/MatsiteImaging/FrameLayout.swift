/// Where a frame sits in the tile grid: its pixel window at the output zoom and how
/// source tiles map onto it.
///
/// Output pixel (x, y), counted globally at the output zoom, comes from source pixel
/// (x >> shift, y >> shift) at the source zoom: `shift` > 0 is overzoom, and that
/// mapping is nearest-neighbour, so a palette tile keeps its exact colours.
public struct FrameLayout: Equatable, Sendable {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Global output-zoom pixel column of the frame's left edge (may pass the world's
    /// width when the frame crosses the antimeridian; columns then wrap).
    public let originX: Int
    /// Global output-zoom pixel row of the frame's top edge.
    public let originY: Int
    /// Output zoom minus source zoom.
    public let shift: Int
    /// Source tile edge in pixels.
    public let tileSize: Int

    /// Creates a layout.
    public init(width: Int, height: Int, originX: Int, originY: Int, shift: Int, tileSize: Int) {
        self.width = width
        self.height = height
        self.originX = originX
        self.originY = originY
        self.shift = shift
        self.tileSize = tileSize
    }

    /// Source tile columns covering the frame (unwrapped: may exceed the world's count).
    public var columns: ClosedRange<Int> {
        ((originX >> shift) / tileSize)...(((originX + width - 1) >> shift) / tileSize)
    }

    /// Source tile rows covering the frame.
    public var rows: ClosedRange<Int> {
        ((originY >> shift) / tileSize)...(((originY + height - 1) >> shift) / tileSize)
    }

    /// Number of source tiles the frame needs.
    public var tileCount: Int { columns.count * rows.count }
}
