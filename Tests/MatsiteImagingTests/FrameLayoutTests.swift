import MatsiteImaging
import Testing

@Suite("FrameLayout")
struct FrameLayoutTests {
    @Test("the anchor window at z7 needs tiles 30...37 x 46...53")
    func anchor() {
        let layout = FrameLayout(width: 1912, height: 1646, originX: 7691, originY: 11978, shift: 0, tileSize: 256)
        #expect(layout.columns == 30...37)
        #expect(layout.rows == 46...53)
        #expect(layout.tileCount == 64)
    }

    @Test("a window ending exactly on a tile edge does not take the next tile")
    func exactEdge() {
        let layout = FrameLayout(width: 512, height: 256, originX: 256, originY: 0, shift: 0, tileSize: 256)
        #expect(layout.columns == 1...2)
        #expect(layout.rows == 0...0)
    }

    @Test("overzoom counts source tiles: a 2^shift smaller grid")
    func overzoom() {
        // z9 window read from z7 tiles: 4x4 output pixels per source pixel.
        let layout = FrameLayout(width: 1000, height: 300, originX: 4 * 7691, originY: 4 * 11978, shift: 2, tileSize: 256)
        // Source pixels 7691...7940 (tiles 30 and 31), rows 11978...12052 (tiles 46 and 47).
        #expect(layout.columns == 30...31)
        #expect(layout.rows == 46...47)
    }

    @Test("a window past the world's right edge keeps counting columns (they wrap later)")
    func pastTheEdge() {
        // z2 world is 1024 px; a window from 900 to 1100 crosses 180°.
        let layout = FrameLayout(width: 200, height: 10, originX: 900, originY: 500, shift: 0, tileSize: 256)
        #expect(layout.columns == 3...4)
    }
}
