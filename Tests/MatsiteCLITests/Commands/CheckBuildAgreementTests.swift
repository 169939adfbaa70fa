import Foundation
import GRDB
import Testing

@testable import MatsiteKit

/// `matsite check` ends as `matsite build` of the same config would, by construction (both
/// plan through `AnimationPlanning`): 2 for what the config asks that its sources cannot
/// give, 1 for what a server or the network did, 0 when a build would publish (notes for
/// tiles `missing: transparent` draws empty). So `check && build` gates a cron job rightly.
@Suite("check and build agree on exit codes")
struct CheckBuildAgreementTests {
    /// One way a config meets its source, and the exit code both commands must give.
    struct Refusal: Sendable, CustomStringConvertible {
        let name: String
        let status: Int32
        /// Words `check`'s output must hold.
        let checkSays: String
        /// Writes the project (config and any files) for a server at `base`.
        let write: @Sendable (_ folder: URL, _ base: String) throws -> Void
        var description: String { name }
    }

    static func animation(_ source: String, frames: String, extra: String = "") -> String {
        """
        title: Agree
        output: site
        cache: cache
        http: { retry_delay_ms: 10, retries: 1 }
        \(extra)
        animations:
          - id: loop
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            fallback: { levels: 0 }
            source: { \(source) }
            frames: \(frames)
        """
    }

    static func write(_ yaml: String, to folder: URL) throws {
        try Data(yaml.utf8).write(to: folder.appendingPathComponent("matsite.yml"))
    }

    static let refusals: [Refusal] = [
        Refusal(
            name: "a frame index over limits.max_frames", status: 2, checkSays: "8 frames, over the limit of 5 (limits.max_frames",
            write: { folder, base in
                let times = (0..<8).map { "{\"time\": \"2026-11-21T10:\(10 + $0):00Z\"}" }.joined(separator: ", ")
                try Data("{\"frames\": [\(times)]}".utf8).write(to: folder.appendingPathComponent("index.json"))
                try write(
                    animation(
                        "url: \"\(base)/t/{time}/{z}/{x}/{y}.png\"", frames: "{ index: { file: index.json, items: frames, time: time } }",
                        extra: "limits: { max_frames: 5 }"), to: folder)
            }),
        Refusal(
            name: "a WMTS layer whose tiles make frames over limits.max_frame_width", status: 2, checkSays: "limits.max_frame_width",
            write: { folder, base in
                try write(
                    animation(
                        "wmts: { capabilities: \"\(base)/wmts512/caps.xml\", layer: radar }", frames: "{ latest: 2 }",
                        extra: "limits: { max_frame_width: 300 }"), to: folder)
            }),
        Refusal(
            name: "a WMTS layer with no Web Mercator tile matrix set (projection)", status: 2, checkSays: "animations[0].source.wmts",
            write: { folder, base in
                try write(animation("wmts: { capabilities: \"\(base)/wmts4326/caps.xml\", layer: radar }", frames: "{ latest: 2 }"), to: folder)
            }),
        Refusal(
            name: "times the WMTS layer does not advertise", status: 2, checkSays: "animations[0].frames: layer radar",
            write: { folder, base in
                try write(
                    animation("wmts: { capabilities: \"\(base)/wmts/caps.xml\", layer: radar }", frames: "{ times: [2026-11-21T09:00:00Z] }"),
                    to: folder)
            }),
        Refusal(
            name: "an MBTiles archive of vector tiles (its metadata)", status: 2, checkSays: "holds vector tiles (format pbf)",
            write: { folder, _ in
                let queue = try DatabaseQueue(path: folder.appendingPathComponent("vector.mbtiles").path)
                try queue.write { db in
                    try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT)")
                    try db.execute(sql: "INSERT INTO metadata VALUES ('format', 'pbf')")
                    try db.execute(sql: "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
                }
                try write(animation("mbtiles: vector.mbtiles", frames: "{ count: 2 }"), to: folder)
            }),
        Refusal(
            name: "a source that answers 404 (missing: fail)", status: 1, checkSays: "HTTP 404 (no tile here)",
            write: { folder, base in
                try write(animation("url: \"\(base)/none/{frame}/{z}/{x}/{y}.png\"", frames: "{ count: 2 }"), to: folder)
            }),
        Refusal(
            name: "a server that fails with HTTP 500", status: 1, checkSays: "HTTP 500: \"status 500\"",
            write: { folder, base in
                try write(animation("url: \"\(base)/broken/{frame}/{z}/{x}/{y}.png\"", frames: "{ count: 2 }"), to: folder)
            }),
        Refusal(
            name: "a sparse source under missing: transparent (a build publishes)", status: 0, checkSays: "note: ",
            write: { folder, base in
                let yaml = animation("url: \"\(base)/sparse/{frame}/{z}/{x}/{y}.png\"", frames: "{ count: 2 }")
                    .replacingOccurrences(of: "    fallback:", with: "    missing: transparent\n    fallback:")
                try write(yaml, to: folder)
            }),
        Refusal(
            name: "no tile at all under missing: transparent (no empty loop is published)", status: 1,
            checkSays: "a build would not publish a loop without a single tile",
            write: { folder, base in
                let yaml = animation("url: \"\(base)/none/{frame}/{z}/{x}/{y}.png\"", frames: "{ count: 2 }")
                    .replacingOccurrences(of: "    fallback:", with: "    missing: transparent\n    fallback:")
                try write(yaml, to: folder)
            }),
    ]

    static func serve(on server: TestServer) {
        let base = String(server.url("/x").dropLast(2))
        server.route("/wmts/caps.xml", .ok(Array(TestTiles.wmtsCapabilities(base: base).utf8), contentType: "application/xml"))
        server.route("/wmts512/caps.xml", .ok(Array(TestTiles.wmtsCapabilities(base: base, tileSize: 512).utf8), contentType: "application/xml"))
        let geographic = TestTiles.wmtsCapabilities(base: base).replacingOccurrences(of: "urn:ogc:def:crs:EPSG::3857", with: "urn:ogc:def:crs:EPSG::4326")
        server.route("/wmts4326/caps.xml", .ok(Array(geographic.utf8), contentType: "application/xml"))
        server.route(prefix: "/wmts/tiles/", .ok(TestTiles.minutes(0), contentType: "image/png"))
        server.route(prefix: "/none/", .status(404))
        server.route(prefix: "/broken/", .status(500))
        // Only the tiles of the frame's left column exist: some tiles, some gaps, in every frame.
        server.route(
            prefix: "/sparse/",
            .dynamic { request in
                let parts = request.path.split(separator: "/").compactMap { Int($0.replacingOccurrences(of: ".png", with: "")) }
                guard parts.count == 4, parts[2] == 7 else { return .status(404) }
                return .ok(TestTiles.minutes(0), contentType: "image/png")
            })
    }

    @Test("check exits as build does, and says why", arguments: refusals)
    func agree(_ refusal: Refusal) async throws {
        try await withTestServer { server in
            Self.serve(on: server)
            let project = try CLI.scratch("agree")
            defer { try? FileManager.default.removeItem(at: project) }
            try refusal.write(project, String(server.url("/x").dropLast(2)))
            let check = try CLI.run(["check"], in: project, timeout: 600)
            let build = try CLI.run(["build"], in: project, timeout: 600)
            #expect(check.status == refusal.status, "check: \(check.out)\n\(check.err)")
            #expect(build.status == refusal.status, "build: \(build.err)")
            #expect(check.out.contains(refusal.checkSays), "check: \(check.out)")
            if refusal.status == 2 {
                #expect(check.err.contains("the config asks for what its sources cannot give"), "\(check.err)")
            }
        }
    }
}
