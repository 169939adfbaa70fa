import Foundation
import MatsiteCapabilities
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
                problem: .notFound(.http(status: 404)))
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
        tiles.append(FailedTile(animation: "a", frame: 2, locator: "/x/1.png", problem: .notFound(.file)))
        tiles.append(FailedTile(animation: "a", frame: 0, locator: "/x/2.png", problem: .notFound(.file)))
        tiles.append(FailedTile(animation: "b", frame: 0, locator: "u", problem: .refused(status: 500, excerpt: "oops")))
        let groups = TileProblemGroups(tiles).groups
        #expect(groups.map(\.animation) == ["b", "b", "a"])
        #expect(groups.map(\.tiles.count) == [3, 1, 2])
        // Two files missing are one problem, frame order kept.
        #expect(groups[2].problem == .notFound(.file) && groups[2].problem.description == "no such file")
        #expect(groups[2].tiles.map(\.frame) == [0, 2])
        // A server error's hint points at the server, never at hiding its tiles.
        let hint = groups[1].problem.hint(tolerated: false) ?? ""
        #expect(hint.contains("the server itself failed") && !hint.contains("missing: transparent"), "\(hint)")
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
        #expect(failures.first.map { TileProblem($0.problem) } == .wrongSize(width: 512, height: 512, expected: 256))
        let failed = failures.map { FailedTile(animation: "sat", frame: 0, locator: "\($0.column)/\($0.row)", problem: TileProblem($0.problem)) }
        let lines = TileProblemGroups(failed).failureLines()
        #expect(lines.count == 3)
        #expect(lines[2].contains("set tile_size: 512"), "\(lines)")
        #expect(!lines.joined().contains("set missing: transparent"), "a size mismatch is not fixed by hiding tiles")
    }

    @Test("13 frames refused with 13 different bodies are one group, shown with the first body")
    func refusedBodies() {
        let tiles = (0..<13).map { i in
            FailedTile(
                animation: "radar", frame: i, locator: "http://h/t/\(i).png",
                problem: .refused(status: 400, excerpt: "{\"error\":\"invalid time 2026112518\(i)\"}"))
        }
        let lines = TileProblemGroups(tiles).failureLines()
        #expect(lines.count == 3, "\(lines)")
        #expect(lines[0] == "radar: 13 tiles in 13 frames: HTTP 400: \"{\"error\":\"invalid time 20261125180\"}\"", "\(lines)")
        #expect(lines[2].contains("the server rejects the request itself") && !lines[2].contains("missing: transparent"))
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

    @Test("service exceptions group by code and locator, their words naming each tile aside; words without a code stay apart")
    func serviceExceptions() {
        func tile(_ frame: Int, _ exception: ServiceException) -> FailedTile {
            FailedTile(animation: "radar", frame: frame, locator: "http://127.0.0.1:1/wmts/\(frame)", problem: .serviceException([exception]))
        }
        let tiles = [
            tile(0, ServiceException(code: "TileOutOfRange", locator: "TILEROW", text: "No tile at row 5")),
            tile(1, ServiceException(code: "TileOutOfRange", locator: "TILEROW", text: "No tile at row 6")),
            tile(2, ServiceException(code: nil, locator: nil, text: "msWMSLoadGetMapParams(): bad layer")),
            tile(3, ServiceException(code: nil, locator: nil, text: "msDrawMap(): no data")),
        ]
        let groups = TileProblemGroups(tiles).groups
        #expect(groups.map(\.tiles.count) == [2, 1, 1])
        // The group shows its first tile's words.
        #expect(groups[0].problem.description == "service exception: TileOutOfRange (TILEROW): No tile at row 5")
    }
}
