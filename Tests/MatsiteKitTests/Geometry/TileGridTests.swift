import MatsiteImaging
import Testing

@testable import MatsiteKit

@Suite("Tile grid")
struct TileGridTests {
    /// Columns 14...17 at zoom 4 (a box across the antimeridian), rows 7...8.
    let grid = TileGrid(
        layout: FrameLayout(width: 4 * 256, height: 2 * 256, originX: 14 * 256, originY: 7 * 256, shift: 0, tileSize: 256),
        zoom: 4)

    @Test("positions run row by row; a cell and its position convert both ways")
    func positions() {
        #expect(grid.count == 8)
        #expect([0, 3, 4].map { grid.cell($0).column } == [14, 17, 14])
        #expect([0, 3, 4].map { grid.cell($0).row } == [7, 7, 8])
        for i in 0..<grid.count {
            let (column, row) = grid.cell(i)
            #expect(grid.index(column: column, row: row) == i)
        }
    }

    @Test("columns past the world's edge wrap into it; rows do not change")
    func wrapping() {
        #expect(grid.tiles.map(\.x) == [14, 15, 0, 1, 14, 15, 0, 1])
        #expect(grid.tiles.map(\.y) == [7, 7, 7, 7, 8, 8, 8, 8])
        #expect(grid.tile(2) == TileCoordinate(z: 4, x: 0, y: 7))
        #expect(grid.tile(column: -1, row: 3) == TileCoordinate(z: 4, x: 15, y: 3))
        #expect(grid.tile(6).description == "4/0/8")
    }

    @Test("an overzoomed layout's grid counts source tiles at the source zoom")
    func overzoom() {
        // Output zoom 6, source zoom 4: 4x4 output pixels per source pixel.
        let layout = FrameLayout(width: 1024, height: 1024, originX: 4096, originY: 4096, shift: 2, tileSize: 256)
        let grid = TileGrid(layout: layout, zoom: 4)
        #expect(grid.count == 1 && grid.tile(0) == TileCoordinate(z: 4, x: 4, y: 4))
    }
}
