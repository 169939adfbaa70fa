import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// `--at` reads full ISO 8601 times strictly: a time of day is never dropped, a time with
/// no zone is UTC and said so, anything else is a usage error listing the accepted forms.
@Suite("--at")
struct AtTimeTests {
    static let noon13 = TimeInstant(millisecondsSinceEpoch: 1_795_608_780_000) // 2026-11-25T12:13:00Z

    @Test(
        "full ISO 8601 times with or without seconds, T or space, Z or an offset or no zone",
        arguments: [
            ("2026-11-25T12:13:00Z", 0.0, true), ("2026-11-25T12:13Z", 0, true), ("2026-11-25T12:13", 0, false),
            ("2026-11-25 12:13", 0, false), ("2026-11-25T12:13:00+01:00", -3600, true), ("2026-11-25T12:13:00-0230", 9000, true),
            ("2026-11-25T12:13:30.5Z", 30.5, true), ("2026-11-25t12:13z", 0, true),
        ])
    func accepted(text: String, offset: Double, zone: Bool) throws {
        let time = try #require(AtTime(text))
        #expect(time.instant.millisecondsSinceEpoch == Self.noon13.millisecondsSinceEpoch + Int64(offset * 1000), "\(text)")
        #expect(time.zoneGiven == zone)
        #expect((time.utcNote != nil) == !zone)
    }

    @Test(
        "anything else is refused: a bare date, trailing text, a missing minute, impossible fields",
        arguments: ["2026-11-25", "2026-11-25xyz", "2026-11-25T12", "2026-11-25T12:13:00Zjunk", "2026-02-30T10:00Z", "2026-11-25T25:00Z", "yesterday", ""])
    func refused(text: String) {
        #expect(AtTime(text) == nil, "\(text)")
    }

    @Test("the CLI: a refused --at is a usage error (exit 2) showing the accepted forms; no zone is said to be UTC")
    func cli() throws {
        let project = try CLI.scratch("at")
        defer { try? FileManager.default.removeItem(at: project) }
        try Data(
            """
            title: At
            output: site
            animations:
              - id: demo
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 3
                source: { demo: radar }
                frames: { count: 2 }
            """.utf8
        ).write(to: project.appendingPathComponent("matsite.yml"))
        for command in ["build", "check"] {
            let bad = try CLI.run([command, "--at", "2026-11-25xyz"], in: project)
            #expect(bad.status == 2, "\(command): \(bad.err)")
            #expect(bad.err.contains("--at: \"2026-11-25xyz\" is not a full ISO 8601 date and time; give one of: 2026-11-25T12:13:00Z"), "\(bad.err)")
        }
        let check = try CLI.run(["check", "--at", "2026-11-25 12:13"], in: project)
        #expect(check.status == 0, "\(check.out)\n\(check.err)")
        #expect(check.out.contains("--at 2026-11-25 12:13 names no zone: taken as UTC (2026-11-25T12:13:00Z)"), "\(check.out)")
        let build = try CLI.run(["build", "--at", "2026-11-25T12:13"], in: project)
        #expect(build.status == 0, "\(build.err)")
        #expect(build.err.contains("--at 2026-11-25T12:13 names no zone: taken as UTC (2026-11-25T12:13:00Z)"), "\(build.err)")
        let zoned = try CLI.run(["build", "--at", "2026-11-25T12:13Z"], in: project)
        #expect(zoned.status == 0 && !zoned.err.contains("names no zone"), "\(zoned.err)")
    }
}
