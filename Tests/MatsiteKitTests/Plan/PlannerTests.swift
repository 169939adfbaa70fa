import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

@Suite("Planner")
struct PlannerTests {
    func plan(_ animation: String) async throws -> AnimationPlan {
        let config = try ConfigLoader.parse(
            Data(
                """
                leaflet: /usr/share/javascript/leaflet
                animations:
                \(animation)
                """.utf8), file: "plan.yml")
        let resolved = try await SourceResolver(config: config, fetcher: nil).resolve(config.animations[0])
        return Planner.plan(config.animations[0], source: resolved)
    }

    @Test("the anchor job plans 64 tiles per frame, x 30...37 by y 46...53, row by row")
    func anchor() async throws {
        let plan = try await plan(
            """
              - id: radar
                bbox: [-95.5, 29.0, -74.5, 43.5]
                zoom: 7
                frame_duration_ms: 400
                last_frame_duration_ms: 1500
                source: { url: "https://tiles.example.org/{frame}/{z}/{x}/{y}.png" }
                frames: { count: 3 }
            """)
        #expect(plan.frames.count == 3)
        #expect(plan.frames.map(\.durationMs) == [400, 400, 1500])
        let urls = plan.frames[1].tiles.map(\.description)
        #expect(urls.count == 64)
        #expect(urls.first == "https://tiles.example.org/1/7/30/46.png")
        #expect(urls[1] == "https://tiles.example.org/1/7/31/46.png")
        #expect(urls[8] == "https://tiles.example.org/1/7/30/47.png")
        #expect(urls.last == "https://tiles.example.org/1/7/37/53.png")
    }

    @Test("across the antimeridian the columns past the last one wrap to x = 0")
    func wrap() async throws {
        let plan = try await plan(
            """
              - id: pacific
                bbox: [170, -20, -170, 5]
                zoom: 4
                source: { url: "https://tiles.example.org/{z}/{x}/{y}.png" }
                frames: { count: 1 }
            """)
        let columns = plan.frames[0].tiles.map { $0.description.split(separator: "/")[3] }
        #expect(Set(columns) == ["15", "0"])
        #expect(plan.grid.tile(1).x == 0 && plan.grid.tile(0).x == 15)
    }

    @Test("TMS rows count from the bottom, and subdomains rotate over the tiles")
    func tmsAndSubdomains() async throws {
        let plan = try await plan(
            """
              - id: tms
                bbox: [-95.5, 29.0, -74.5, 43.5]
                zoom: 7
                source: { url: "https://{s}.example.org/{z}/{x}/{y}.png", scheme: tms, subdomains: [a, b, c] }
                frames: { count: 1 }
            """)
        let urls = plan.frames[0].tiles.map(\.description)
        #expect(urls[0] == "https://\(["a", "b", "c"][(30 + 46) % 3]).example.org/7/30/\(127 - 46).png")
        #expect(Set(urls.map { $0.prefix(9) }).count == 3)
    }

    @Test("a max_zoom below the zoom plans source tiles at max_zoom with the shift in the layout")
    func overzoom() async throws {
        let plan = try await plan(
            """
              - id: deep
                bbox: [-95.5, 29.0, -74.5, 43.5]
                zoom: 9
                source: { url: "https://tiles.example.org/{z}/{x}/{y}.png", max_zoom: 7 }
                frames: { count: 1 }
            """)
        #expect(plan.sourceZoom == 7)
        #expect(plan.layout.shift == 2)
        #expect(plan.frames[0].tiles.count == 64)
        #expect(plan.frames[0].tiles.allSatisfy { $0.description.hasPrefix("https://tiles.example.org/7/") })
    }

    @Test("{time} is filled from frames.times with time_format")
    func times() async throws {
        let plan = try await plan(
            """
              - id: timed
                bbox: [1, 1, 2, 2]
                zoom: 2
                time_format: "%Y%m%d%H%M"
                source: { url: "https://tiles.example.org/{time}/{z}/{x}/{y}.png" }
                frames: { times: [2026-11-21T10:00:00Z, 2026-11-21T10:10:00Z] }
            """)
        #expect(
            plan.frames.map { $0.tiles[0].description } == [
                "https://tiles.example.org/202611211000/2/2/1.png", "https://tiles.example.org/202611211010/2/2/1.png",
            ])
        #expect(plan.frames[1].time == TimeInstant(millisecondsSinceEpoch: 1_795_255_800_000))
    }

    @Test("frames.range expands start to end inclusive by an ISO 8601 step")
    func range() async throws {
        let plan = try await plan(
            """
              - id: ranged
                bbox: [1, 1, 2, 2]
                zoom: 2
                time_format: "%H%M"
                source: { url: "https://tiles.example.org/{time}/{z}/{x}/{y}.png" }
                frames: { range: { start: 2026-11-21T10:00:00Z, end: 2026-11-21T12:00:00Z, step: PT10M } }
            """)
        #expect(plan.frames.count == 13)
        #expect(plan.frames.first?.tiles[0].description == "https://tiles.example.org/1000/2/2/1.png")
        #expect(plan.frames.last?.tiles[0].description == "https://tiles.example.org/1200/2/2/1.png")
    }

    @Test("monthly steps follow the calendar from the start: Jan 31, Feb 28, Mar 31")
    func monthly() async throws {
        let plan = try await plan(
            """
              - id: monthly
                bbox: [1, 1, 2, 2]
                zoom: 2
                time_format: "%Y%m%d"
                source: { url: "https://tiles.example.org/{time}/{z}/{x}/{y}.png" }
                frames: { range: { start: 2026-01-31T00:00:00Z, end: 2026-04-30T00:00:00Z, step: P1M } }
            """)
        #expect(plan.frames.map { $0.tiles[0].description.split(separator: "/")[2] } == ["20260131", "20260228", "20260331", "20260430"])
    }
}
