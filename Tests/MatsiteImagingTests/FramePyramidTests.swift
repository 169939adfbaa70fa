import MatsiteImaging
import Testing

@Suite("FramePyramid")
struct FramePyramidTests {
    @Test("a coarser level halves the box, an odd edge making a pixel of its own")
    func coarserBox() {
        // Fine pixels 3...8 across fall in coarse pixels 1...4; rows 5...7 in 2...3.
        let coarse = PyramidLevel(zoom: 5, x0: 3, y0: 5, width: 6, height: 3).coarser
        #expect(coarse == PyramidLevel(zoom: 4, x0: 1, y0: 2, width: 4, height: 2))
        // Even edges halve exactly.
        #expect(PyramidLevel(zoom: 9, x0: 512, y0: 256, width: 1000, height: 2).coarser == PyramidLevel(zoom: 8, x0: 256, y0: 128, width: 500, height: 1))
        // A single pixel stays one.
        #expect(PyramidLevel(zoom: 2, x0: 7, y0: 7, width: 1, height: 1).coarser == PyramidLevel(zoom: 1, x0: 3, y0: 3, width: 1, height: 1))
    }

    @Test("a level's tiles are those its box touches on the 256-pixel grid")
    func tileRanges() {
        let level = PyramidLevel(zoom: 3, x0: 255, y0: 512, width: 2, height: 256)
        #expect(level.tileColumns == 0...1)
        #expect(level.tileRows == 2...2)
        #expect(level.tileCount == 2)
        let aligned = PyramidLevel(zoom: 4, x0: 256, y0: 0, width: 512, height: 257)
        #expect(aligned.tileColumns == 1...2 && aligned.tileRows == 0...1)
    }

    @Test("levels run coarsest first down to the first zoom where the box fits 1024 pixels")
    func coarsestRule() {
        // The box of docs/player.md's example: z7 3840 x 3200 -> z6 1920 x 1601 -> z5 960 x 801.
        let pyramid = FramePyramid(zoom: 7, x0: 4320, y0: 6085, width: 3840, height: 3200)
        #expect(
            pyramid.levels == [
                PyramidLevel(zoom: 5, x0: 1080, y0: 1521, width: 960, height: 801),
                PyramidLevel(zoom: 6, x0: 2160, y0: 3042, width: 1920, height: 1601),
                PyramidLevel(zoom: 7, x0: 4320, y0: 6085, width: 3840, height: 3200),
            ])
        #expect(pyramid.minZoom == 5 && pyramid.maxZoom == 7)
        #expect(pyramid.finest == PyramidLevel(zoom: 7, x0: 4320, y0: 6085, width: 3840, height: 3200))
        #expect(pyramid.tileCount == pyramid.levels.reduce(0) { $0 + $1.tileCount })
        // Exactly 1024 fits: one level. One pixel more: one level more (1025 -> 513).
        #expect(FramePyramid(zoom: 10, x0: 0, y0: 0, width: 1024, height: 9).levels.map(\.zoom) == [10])
        #expect(FramePyramid(zoom: 10, x0: 0, y0: 0, width: 100, height: 1025).levels.map(\.height) == [513, 1025])
        // The longest side decides, whichever it is.
        #expect(FramePyramid(zoom: 12, x0: 0, y0: 0, width: 10, height: 4096).levels.map(\.zoom) == [10, 11, 12])
        // Never below zoom 0, however large the box.
        #expect(FramePyramid(zoom: 1, x0: 0, y0: 0, width: 8000, height: 10).levels.map(\.zoom) == [0, 1])
    }

    @Test("odd origins: every level's box holds every pixel its finer level's box falls in")
    func oddOrigins() {
        let pyramid = FramePyramid(zoom: 8, x0: 13_953, y0: 24_601, width: 10_650, height: 5_898)
        #expect(pyramid.levels.map(\.zoom) == [4, 5, 6, 7, 8])
        for (coarse, fine) in zip(pyramid.levels, pyramid.levels.dropFirst()) {
            #expect(coarse.x0 == fine.x0 / 2 && coarse.y0 == fine.y0 / 2)
            #expect(coarse.x0 + coarse.width - 1 == (fine.x0 + fine.width - 1) / 2)
            #expect(coarse.y0 + coarse.height - 1 == (fine.y0 + fine.height - 1) / 2)
        }
        #expect(max(pyramid.levels[0].width, pyramid.levels[0].height) <= 1024)
        #expect(max(pyramid.levels[1].width, pyramid.levels[1].height) > 1024)
    }
}
