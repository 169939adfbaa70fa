import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Grouping tile problems by animation and cause: one line (count, examples, hint) where
/// a build used to print one line per tile.
@Suite("TileProblemGroups")
struct TileProblemGroupsTests {
    static func missing(_ count: Int, animation: String = "radar") -> [FailedTile] {
        (0..<count).map { i in
            FailedTile(
                animation: animation, frame: i / 4, locator: "http://127.0.0.1:1/t/\(i / 4)/1/\(i % 2)/\(i % 4 / 2).png",
                reason: "HTTP 404 (no tile here)")
        }
    }

    @Test("40 missing tiles of one animation are one group: count, frames, three examples, one hint")
    func fortyMissing() {
        let groups = TileProblemGroups(Self.missing(40))
        #expect(groups.groups.count == 1)
        let lines = groups.failureLines()
        #expect(lines.count == 3, "\(lines)")
        #expect(lines[0] == "radar: 40 tiles in 10 frames: HTTP 404 (no tile here)")
        #expect(
            lines[1]
                == "  e.g. frame 0: http://127.0.0.1:1/t/0/1/0/0.png, frame 0: http://127.0.0.1:1/t/0/1/1/0.png, ... frame 9: http://127.0.0.1:1/t/9/1/1/1.png"
        )
        #expect(lines[2].hasPrefix("  hint: the source has no tile there"))
        // Drawn transparent, a missing tile needs no hint: one warning, no advice.
        let warnings = groups.transparentWarnings()
        #expect(warnings.count == 1)
        #expect(warnings[0].hasPrefix("radar: 40 tiles in 10 frames drawn transparent (missing: transparent): HTTP 404"))
        #expect(!warnings[0].contains("hint"))
    }

    @Test("causes and animations make separate groups, in the order they came")
    func separateGroups() {
        var tiles = Self.missing(3, animation: "b")
        tiles.append(FailedTile(animation: "a", frame: 2, locator: "/x/1.png", reason: "no file /x/1.png"))
        tiles.append(FailedTile(animation: "a", frame: 0, locator: "/x/2.png", reason: "no file /x/2.png"))
        tiles.append(FailedTile(animation: "b", frame: 0, locator: "u", reason: "HTTP 500: \"oops\" (after 3 attempts)"))
        let groups = TileProblemGroups(tiles).groups
        #expect(groups.map(\.animation) == ["b", "b", "a"])
        #expect(groups.map(\.tiles.count) == [3, 1, 2])
        // The file's own path is taken out: two files missing are one problem, frame order kept.
        #expect(groups[2].reason == "no file" && groups[2].cause == .missing)
        #expect(groups[2].tiles.map(\.frame) == [0, 2])
        #expect(groups[1].cause == .other)
        #expect(TileProblemGroups.hint(.other, tolerated: false)?.contains("missing: transparent") == true)
    }

    @Test("the stitcher's wrong-size failure is read as such, and its hint names the tile_size to set")
    func wrongSizeFromStitcher() throws {
        // A real 512-pixel tile where the plan expects 256.
        let big = try PNGWriter.encode(
            width: 512, height: 512, format: .rgba, pixels: [UInt8](repeating: 200, count: 512 * 512 * 4))
        let layout = WebMercator.layout(
            of: BoundingBox(west: -170, south: -60, east: 170, north: 60), zoom: 1, sourceZoom: 1, tileSize: 256)
        let tiles = [TileContent](repeating: .encoded(big), count: layout.tileCount)
        let failures = Stitcher().plan(layout: layout, tiles: tiles).failures
        #expect(failures.count == layout.tileCount)
        let reason = try #require(failures.first?.reason)
        #expect(TileProblemGroups.Cause(reason: reason) == .wrongSize(found: 512, expected: 256))
        let failed = failures.map { FailedTile(animation: "sat", frame: 0, locator: "\($0.column)/\($0.row)", reason: $0.reason) }
        let lines = TileProblemGroups(failed).failureLines()
        #expect(lines.count == 3)
        #expect(lines[2].contains("set tile_size: 512"), "\(lines)")
        #expect(!lines.joined().contains("set missing: transparent"), "a size mismatch is not fixed by hiding tiles")
    }

    @Test("an access refusal carries its own advice: no second hint")
    func refused() {
        let reason = "access refused (HTTP 403): the server does not allow this client; check http.headers"
        #expect(TileProblemGroups.Cause(reason: reason) == .refused)
        #expect(TileProblemGroups.hint(.refused, tolerated: false) == nil)
    }

    @Test("check lines: one probe as it failed, several with one cause as one line")
    func checkLines() {
        let one = TileProblemGroups(Array(Self.missing(1))).checkLines(tolerated: false)
        #expect(one.count == 1 && one[0].hasPrefix("frame 0: http://127.0.0.1:1/t/0/1/0/0.png: HTTP 404 (no tile here)\n    hint: "))
        let many = TileProblemGroups(Self.missing(12).enumerated().filter { $0.offset % 4 == 0 }.map(\.element))
            .checkLines(tolerated: true)
        #expect(
            many == [
                "3 probes (3 frames): HTTP 404 (no tile here); e.g. frame 0: http://127.0.0.1:1/t/0/1/0/0.png, frame 1: http://127.0.0.1:1/t/1/1/0/0.png, frame 2: http://127.0.0.1:1/t/2/1/0/0.png"
            ])
    }
}
