import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// A multi-level animation's first backgrounds in sheets (`BackgroundSheetsStep`,
/// docs/player.md "Background sheets"): which frames share one, the cells' pixels, which
/// sheets a later build keeps, and what the pages preload.
@Suite("BackgroundSheets")
struct BackgroundSheetsTests {
    static let tenOClock = TimeInstant(year: 2026, month: 11, day: 21, hour: 10)!

    static func times(from start: Int, count: Int, stepMinutes: Int = 5) -> [TimeInstant?] {
        (start..<(start + count)).map { TimeInstant(millisecondsSinceEpoch: tenOClock.millisecondsSinceEpoch + Int64($0 * stepMinutes * 60_000)) }
    }

    @Test("frames share a sheet by span of six steps from the epoch, so a moved window keeps the full spans' groups")
    func groupsByTime() {
        // 10:00 ... 11:55: four half hours of six.
        let groups = BackgroundSheetsStep.groups(times: Self.times(from: 0, count: 24), size: 6)
        #expect(groups == [Array(0..<6), Array(6..<12), Array(12..<18), Array(18..<24)])
        // Moved by one (10:05 ... 12:00): the first half hour has five left, the three after it
        // are the same frames, and 12:00 starts a new one.
        let moved = BackgroundSheetsStep.groups(times: Self.times(from: 1, count: 24), size: 6)
        #expect(moved == [Array(0..<5), Array(5..<11), Array(11..<17), Array(17..<23), [23]])
        // Every ten minutes: spans of an hour.
        #expect(BackgroundSheetsStep.groups(times: Self.times(from: 3, count: 12, stepMinutes: 10), size: 6) == [[0, 1, 2], Array(3..<9), [9, 10, 11]])
    }

    @Test("without times (or with one) frames go six by six in order; a span holding more than six is cut")
    func groupsWithoutTimes() {
        #expect(BackgroundSheetsStep.groups(times: [TimeInstant?](repeating: nil, count: 8), size: 6) == [Array(0..<6), [6, 7]])
        #expect(BackgroundSheetsStep.groups(times: [Self.tenOClock, nil, nil], size: 6) == [[0, 1, 2]])
        // A burst: a gap of a minute (the median) among hourly frames puts nine in one span of six minutes.
        let burst = (0..<9).map { TimeInstant(millisecondsSinceEpoch: Self.tenOClock.millisecondsSinceEpoch + Int64($0) * 30_000) }
        let groups = BackgroundSheetsStep.groups(times: burst, size: 6)
        #expect(groups.flatMap { $0 } == Array(0..<9) && groups.allSatisfy { $0.count <= 6 })
    }

    /// A national-sized loop with levels: the coarsest level (z4) is over 640 px, so each
    /// frame's first background is its z3 halving. Every five minutes, for the last 55 minutes.
    static func yaml(_ site: TestSite) -> String {
        site.yaml(
            """
              - id: radar
                bbox: [-125.0, 24.0, -66.0, 50.0]
                zoom: 5
                source: { demo: radar }
                frames: { last: PT55M, step: PT5M }
                levels: never
                pyramid: { publish: always }
            """)
    }

    /// Each frame's first background: its url and sheet cell (url, y) from the manifest.
    static func firsts(_ site: TestSite) throws -> [(url: String, sheet: String?, y: Int?)] {
        try site.frames("radar").map { frame in
            let image = try #require(((frame["coarsest"] as? [String: Any])?["levels"] as? [[String: Any]])?.first)
            let sheet = image["sheet"] as? [String: Any]
            return (try #require(image["url"] as? String), sheet?["url"] as? String, sheet?["y"] as? Int)
        }
    }

    @Test("every first background is a cell of a sheet, pixel for pixel; a later build keeps the sheets whose frames it still has, even as they leave")
    func sheetsOfABuild() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let yaml = Self.yaml(site)
        // 11:20: frames 10:25 ... 11:20, in the spans 10:00, 10:30, 11:00.
        try await site.build(yaml, at: TimeInstant(year: 2026, month: 11, day: 21, hour: 11, minute: 20)!)
        let first = try Self.firsts(site)
        let times = try site.frames("radar").map { $0["time"] as? String ?? "" }
        #expect(times.first == "2026-11-21T10:25:00Z" && times.last == "2026-11-21T11:20:00Z" && first.count == 12, "\(times)")
        // 10:25 | 10:30 ... 10:55 | 11:00 ... 11:20: the frame alone in its span keeps its own image.
        #expect(first[0].sheet == nil)
        let sheets = first.dropFirst().map { $0.sheet ?? "" }
        #expect(sheets.allSatisfy { $0.hasPrefix("frames/sheet-") && $0.hasSuffix(".png") }, "\(sheets)")
        #expect(Set(sheets[0..<6]).count == 1 && Set(sheets[6...]).count == 1 && sheets[0] != sheets[6])
        #expect(Set(first[1..<7].map { $0.y ?? -1 }).count == 6 && Set(first[7...].map { $0.y ?? -1 }).count == 5)
        let decoder = PNGDecoder(maxWidth: 4096, maxHeight: 4096)
        for frame in first {
            guard let sheet = frame.sheet, let y = frame.y else { continue }
            let own = try decoder.decode([UInt8](Data(contentsOf: site.output.appendingPathComponent("radar/" + frame.url))), keepIndices: false)
            let all = try decoder.decode([UInt8](Data(contentsOf: site.output.appendingPathComponent("radar/" + sheet))), keepIndices: false)
            #expect(all.width == own.width && all.height % own.height == 0 && y % own.height == 0 && y + own.height <= all.height)
            let row = own.width * 4
            #expect(Array(all.pixels[(y * row)..<((y + own.height) * row)]) == own.pixels, "\(frame.url) in \(sheet) at \(y)")
        }
        // The pages preload each sheet once, in the order the player wants them, not the frames.
        let html = try String(contentsOf: site.output.appendingPathComponent("radar/index.html"), encoding: .utf8)
        let preloads = html.components(separatedBy: "\n").filter { $0.hasPrefix("<link rel=\"preload\"") && $0.contains("frames/") }
            .map { $0.components(separatedBy: "\"")[3] }
        #expect(Set(preloads) == Set(first.map { $0.sheet ?? $0.url }) && preloads.count == Set(preloads).count, "\(preloads)")
        #expect(preloads.first == first[0].sheet ?? first[0].url)

        // 11:25 and 11:30: the frames of 10:25 and 10:30 leave; 11:25 joins the 11:00 span, 11:30 starts one.
        let inode = { (url: String) in try CacheBench.inode(site.output.appendingPathComponent("radar/" + url)) }
        let middle = try #require(first[1].sheet), middleInode = try inode(middle)
        try await site.build(yaml, at: TimeInstant(year: 2026, month: 11, day: 21, hour: 11, minute: 25)!)
        try await site.build(yaml, at: TimeInstant(year: 2026, month: 11, day: 21, hour: 11, minute: 30)!)
        let later = try Self.firsts(site)
        // 10:35 ... 10:55 are still in the 10:30 sheet of the first build, as it was: the same
        // file (linked, never written again), their cells where they were.
        for k in 0..<5 {
            #expect(later[k].url == first[k + 2].url && later[k].sheet == middle && later[k].y == first[k + 2].y, "\(later[k])")
        }
        #expect(try inode(middle) == middleInode)
        // 11:00 ... 11:25 are a new sheet (11:25 joined); 11:30 is alone in its span.
        #expect(later[5].sheet != first[7].sheet && Set(later[5..<11].map { $0.sheet }).count == 1)
        #expect(later[11].sheet == nil)
    }

    @Test("a previous sheet that is gone from the site is made again, by content the same file")
    func goneSheetIsMadeAgain() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let yaml = Self.yaml(site)
        try await site.build(yaml, at: TimeInstant(year: 2026, month: 11, day: 21, hour: 11, minute: 20)!)
        let sheet = try #require(try Self.firsts(site)[1].sheet)
        let path = site.output.appendingPathComponent("radar/" + sheet)
        let bytes = try Data(contentsOf: path)
        try FileManager.default.removeItem(at: path)
        try await site.build(yaml, at: TimeInstant(year: 2026, month: 11, day: 21, hour: 11, minute: 20)!)
        #expect(try Self.firsts(site)[1].sheet == sheet)
        #expect(try Data(contentsOf: path) == bytes)
    }
}
