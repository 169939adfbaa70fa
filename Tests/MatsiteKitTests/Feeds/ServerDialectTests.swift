import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// What real OGC servers answer for a time they advertise but cannot serve yet, end to end:
/// the real `matsite` binary against servers on 127.0.0.1 that answer as MapServer does (WMS:
/// a 200 `ServiceExceptionReport`, or a 200 fully transparent PNG) and as MapProxy does (WMTS:
/// a 200 OWS `ExceptionReport` with `TileOutOfRange`), each checked by its exit code, the
/// line printed and the manifest's `skipped`.
@Suite("Real servers' dialects: exceptions and blank tiles for times not published yet")
struct ServerDialectTests {
    /// The build's clock: the services advertise 10:00 to 11:00 every 10 minutes
    /// (`OGCSourcesTests.advertised`), so a `last: PT40M` window is 10:20 to 11:00.
    static let at = "2026-11-21T11:05:00Z"

    @Test(
        "MapServer: a 200 InvalidDimensionValue report for the newest time is left out with its words; inside the window the published frame is kept, said with the words"
    )
    func mapServerException() async throws {
        try await withTestServer { server in
            let failing = LockedBox(Set(["2026-11-21T11:00:00Z"]))
            Self.serveWMS(server) { time in
                failing.withLock { $0.contains(time) } ? .exception(time) : .tile(Self.solidPNG(red: OGCSourcesTests.minutesAfterTen(time)))
            }
            let project = try Self.project(server, "mapserver-exception")
            defer { try? FileManager.default.removeItem(at: project) }

            let result = try CLI.run(["build", "--at", Self.at], in: project)
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(
                result.err.contains(
                    "loop: 2026-11-21T11:00:00Z left out of this build: not published yet: all 4 tiles missing: service exception: InvalidDimensionValue (time): Time value 2026-11-21T11:00:00Z has no data yet"
                ), "stderr: \(result.err)")
            let manifest = try Self.manifest(project, "loop")
            #expect(Self.times(manifest) == ["2026-11-21T10:20:00Z", "2026-11-21T10:30:00Z", "2026-11-21T10:40:00Z", "2026-11-21T10:50:00Z"])
            let skipped = try #require(manifest["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == ["2026-11-21T11:00:00Z"])
            #expect(skipped.first?["reason"]?.contains("InvalidDimensionValue (time): Time value 2026-11-21T11:00:00Z has no data yet") == true)

            // Inside the window the same answer is a tile that cannot be had; the frame was
            // published, so it is kept (asked again with --recheck; else carried forward unasked).
            _ = failing.withLock { $0.insert("2026-11-21T10:30:00Z") }
            let published = try Data(contentsOf: project.appendingPathComponent("site/loop/manifest.json"))
            let inside = try CLI.run(["build", "--recheck", "--at", Self.at], in: project)
            #expect(inside.status == 0, "stderr: \(inside.err)")
            #expect(
                inside.err.contains("frame 2026-11-21T10:30:00Z") && inside.err.contains("service exception: InvalidDimensionValue (time)")
                    && inside.err.contains("its published version is kept"), "stderr: \(inside.err)")
            #expect(try Data(contentsOf: project.appendingPathComponent("site/loop/manifest.json")) == published, "the loop as it was")
        }
    }

    @Test("MapServer: an advertised time answered with fully transparent tiles is blank: the newest left out, the others said, blank: keep publishes them")
    func mapServerBlank() async throws {
        try await withTestServer { server in
            let blank: Set = ["2026-11-21T10:30:00Z", "2026-11-21T10:50:00Z", "2026-11-21T11:00:00Z"]
            Self.serveWMS(server) { time in
                .tile(blank.contains(time) ? Self.transparentPNG() : Self.solidPNG(red: OGCSourcesTests.minutesAfterTen(time)))
            }
            let project = try Self.project(server, "mapserver-blank")
            defer { try? FileManager.default.removeItem(at: project) }

            let check = try CLI.run(["check", "--at", Self.at], in: project)
            #expect(check.status == 0, "stdout: \(check.out)\nstderr: \(check.err)")
            #expect(check.out.contains("left out: 2026-11-21T11:00:00Z: not published yet: all 4 tiles blank"), "stdout: \(check.out)")
            #expect(check.out.contains("note: 1 of 3 probed tile(s) blank (every pixel transparent): 2026-11-21T10:30:00Z"), "stdout: \(check.out)")

            let result = try CLI.run(["build", "--at", Self.at], in: project)
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(result.err.contains("loop: 2026-11-21T10:50:00Z left out of this build: not published yet: all 4 tiles blank"), "stderr: \(result.err)")
            #expect(result.err.contains("note: loop: 1 of 3 frame(s) blank (every pixel transparent): 2026-11-21T10:30:00Z"), "stderr: \(result.err)")
            var manifest = try Self.manifest(project, "loop")
            #expect(Self.times(manifest) == ["2026-11-21T10:20:00Z", "2026-11-21T10:30:00Z", "2026-11-21T10:40:00Z"])
            let skipped = try #require(manifest["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == ["2026-11-21T10:50:00Z", "2026-11-21T11:00:00Z"])
            #expect(skipped.allSatisfy { $0["reason"]?.contains("blank (fully transparent") == true })
            #expect(Self.blankFlags(manifest) == [false, true, false])

            // Where a blank frame is real, blank: keep publishes every frame and says which are blank.
            let yaml = project.appendingPathComponent("matsite.yml")
            try Data((String(decoding: try Data(contentsOf: yaml), as: UTF8.self) + "    blank: keep\n").utf8).write(to: yaml)
            let kept = try CLI.run(["build", "--at", Self.at], in: project)
            #expect(kept.status == 0, "stderr: \(kept.err)")
            #expect(!kept.err.contains("left out"), "stderr: \(kept.err)")
            #expect(
                kept.err.contains(
                    "note: loop: 3 of 5 frame(s) blank (every pixel transparent): 2026-11-21T10:30:00Z, 2026-11-21T10:50:00Z, 2026-11-21T11:00:00Z"),
                "stderr: \(kept.err)")
            manifest = try Self.manifest(project, "loop")
            #expect(manifest["skipped"] == nil)
            #expect(Self.blankFlags(manifest) == [false, true, false, true, true])
        }
    }

    @Test("TiTiler: a COG whose newest time is all nodata gives fully transparent tiles: that frame is left out as blank, the rest published")
    func tiTilerNodata() async throws {
        try await withTestServer { server in
            // /cog/tiles/WebMercatorQuad/{z}/{x}/{y}.png?url=s3://radar/<yyyyMMddHHmm>.tif
            server.route(
                prefix: "/cog/tiles/",
                .dynamic { request in
                    let url = OGCSourcesTests.query(request.query ?? "")["URL"] ?? ""
                    guard let stamp = url.split(separator: "/").last?.split(separator: ".").first, let time = FeedServer.instant(compact: String(stamp))
                    else { return .status(400) }
                    let minutes = Int(time.millisecondsSinceEpoch / 60_000 % 60)
                    return .ok(minutes == 0 ? Self.transparentPNG() : Self.solidPNG(red: minutes), contentType: "image/png")
                })
            let project = try Self.project(
                "titiler-nodata",
                animation: """
                      - id: cog
                        bbox: [-10.0, 40.0, 10.0, 52.0]
                        zoom: 4
                        fallback: { levels: 0 }
                        source: { url: "\(server.url("/cog/tiles/WebMercatorQuad/{z}/{x}/{y}.png?url=s3://radar/{time}.tif"))" }
                        time_format: "%Y%m%d%H%M"
                        frames: { last: PT20M, step: PT10M }
                    """)
            defer { try? FileManager.default.removeItem(at: project) }
            let result = try CLI.run(["build", "--at", "2026-11-21T12:01:00Z"], in: project)
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(
                result.err.contains(
                    "cog: 2026-11-21T12:00:00Z left out of this build: not published yet: all 4 tiles blank (fully transparent; blank: keep publishes such frames); the next build picks it up"
                ), "stderr: \(result.err)")
            #expect(!result.err.contains("frame(s) blank"), "the published frames are not blank: \(result.err)")
            let manifest = try Self.manifest(project, "cog")
            #expect(Self.times(manifest) == ["2026-11-21T11:40:00Z", "2026-11-21T11:50:00Z"])
            let skipped = try #require(manifest["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == ["2026-11-21T12:00:00Z"])
            #expect(Self.blankFlags(manifest) == [false, false])
        }
    }

    @Test("a window whose every frame is blank is what the source shows (a clear sky): published whole, and said")
    func allBlank() async throws {
        try await withTestServer { server in
            Self.serveWMS(server) { _ in .tile(Self.transparentPNG()) }
            let project = try Self.project(server, "all-blank")
            defer { try? FileManager.default.removeItem(at: project) }
            let result = try CLI.run(["build", "--at", Self.at], in: project)
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(!result.err.contains("left out"), "stderr: \(result.err)")
            #expect(result.err.contains("note: loop: 5 of 5 frame(s) blank (every pixel transparent): 2026-11-21T10:20:00Z, "), "stderr: \(result.err)")
            let manifest = try Self.manifest(project, "loop")
            #expect(manifest["skipped"] == nil)
            #expect(Self.blankFlags(manifest) == [true, true, true, true, true])
        }
    }

    @Test(
        "MapProxy in a layer: a TileOutOfRange report (with 200, or WMTS's 400) for the layer's newest time is left out in its skipped; each layer says its size; check prints the timeline first",
        arguments: [200, 400])
    func mapProxyLayer(status: Int) async throws {
        try await withTestServer { server in
            let base = String(server.url("/x").dropLast(2))
            server.route("/wmts/caps.xml", .ok(Array(OGCSourcesTests.wmtsCapabilities(base: base, tileSize: 512).utf8), contentType: "application/xml"))
            server.route(
                prefix: "/wmts/tiles/",
                .dynamic { request in
                    // /wmts/tiles/<time>/<matrix>/<col>/<row>.png
                    let parts = request.path.split(separator: "/").map(String.init)
                    let time = parts[2].removingPercentEncoding ?? parts[2]
                    guard time != "2026-11-21T11:00:00Z" else {
                        return .status(status, body: Self.tileOutOfRange(row: parts[5]), headers: [("Content-Type", "application/vnd.ogc.se_xml")])
                    }
                    return .ok(Self.solidPNG(red: OGCSourcesTests.minutesAfterTen(time), size: 512), contentType: "image/png")
                })
            server.route(prefix: "/ground/", .ok(Self.solidPNG(red: 5), contentType: "image/png"))
            let project = try Self.project(
                "mapproxy-layer",
                animation: """
                      - id: storm
                        bbox: [-10.0, 40.0, 10.0, 52.0]
                        zoom: 4
                        frames: { last: PT40M, step: PT10M }
                        layers:
                          - id: ground
                            source: { url: "\(server.url("/ground/{time}/{z}/{x}/{y}.png"))" }
                            time_format: "%Y%m%d%H%M"
                            fallback: { levels: 0 }
                          - id: radar
                            source: { wmts: { capabilities: "\(base)/wmts/caps.xml", layer: radar } }
                            frames: { last: PT40M }
                            fallback: { levels: 0 }
                    """)
            defer { try? FileManager.default.removeItem(at: project) }

            let check = try CLI.run(["check", "--at", Self.at], in: project)
            #expect(check.status == 0, "stdout: \(check.out)\nstderr: \(check.err)")
            let order = [
                "timeline: 5 times", "layer ground: frames: 5", "layer ground: probed", "layer radar: left out: 2026-11-21T11:00:00Z", "layer radar: frames: 4",
                "layer radar: WMTS layer radar", "layer radar: probed",
            ]
            let positions = order.map { check.out.range(of: $0)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil } && positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "stdout: \(check.out)")

            let result = try CLI.run(["build", "--at", Self.at], in: project)
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(
                result.err.contains(
                    "storm/radar: 2026-11-21T11:00:00Z left out of this build: not published yet: all 4 tiles missing: service exception: TileOutOfRange (TILEROW): No tile at row "
                ),
                "stderr: \(result.err)")
            let manifest = try Self.manifest(project, "storm")
            let layers = try #require(manifest["layers"] as? [[String: Any]])
            #expect(layers.count == 2)
            #expect(layers[0]["skipped"] == nil)
            let skipped = try #require(layers[1]["skipped"] as? [[String: String]])
            #expect(skipped.map { $0["time"] } == ["2026-11-21T11:00:00Z"])
            #expect(skipped.first?["reason"]?.contains("TileOutOfRange (TILEROW)") == true)
            #expect((layers[1]["frames"] as? [[String: Any]])?.count == 4)
            // Each layer says its own size: the 512-pixel WMTS layer's frames are twice the ground's.
            let ground = try #require(layers[0]["width"] as? Int), groundHeight = try #require(layers[0]["height"] as? Int)
            #expect(layers[0]["tile_size"] as? Int == 256 && layers[1]["tile_size"] as? Int == 512)
            #expect(manifest["width"] as? Int == ground && manifest["height"] as? Int == groundHeight, "the animation's size stays the bottom layer's")
            let radar = try #require(layers[1]["width"] as? Int), radarHeight = try #require(layers[1]["height"] as? Int)
            #expect(abs(radar - 2 * ground) <= 1 && abs(radarHeight - 2 * groundHeight) <= 1, "\(ground)x\(groundHeight) and \(radar)x\(radarHeight)")
            // The frame file is that size.
            let frame = try #require((layers[1]["frames"] as? [[String: Any]])?.first?["url"] as? String)
            let info = try PNGDecoder().info(of: [UInt8](Data(contentsOf: project.appendingPathComponent("site/storm").appendingPathComponent(frame))))
            #expect(info.width == radar && info.height == radarHeight)
        }
    }
}

extension ServerDialectTests {
    /// What the WMS answers for a GetMap at a time.
    enum Answer {
        case tile([UInt8])
        /// MapServer's 200 `ServiceExceptionReport` for a time without data.
        case exception(String)
    }

    /// A WMS 1.3.0 at `/wms` advertising `OGCSourcesTests.advertised`, each GetMap answered by `answer`.
    static func serveWMS(_ server: TestServer, answer: @escaping @Sendable (String) -> Answer) {
        let base = String(server.url("/x").dropLast(2))
        server.route(
            "/wms",
            .dynamic { request in
                let query = OGCSourcesTests.query(request.query ?? "")
                if query["REQUEST"] == "GetCapabilities" {
                    return .ok(Array(OGCSourcesTests.wmsCapabilities(base: base).utf8), contentType: "text/xml")
                }
                guard query["REQUEST"] == "GetMap", let time = query["TIME"] else { return .status(400) }
                switch answer(time) {
                case .tile(let bytes): return .ok(bytes, contentType: "image/png")
                case .exception(let time):
                    // As MapServer words it: status 200, the report in the body.
                    let report = """
                        <?xml version="1.0" encoding="UTF-8"?>
                        <ServiceExceptionReport version="1.3.0" xmlns="http://www.opengis.net/ogc">
                        <ServiceException code="InvalidDimensionValue" locator="time">
                          Time value \(time) has no data yet
                        </ServiceException>
                        </ServiceExceptionReport>
                        """
                    return .ok(Array(report.utf8), contentType: "text/xml")
                }
            })
    }

    /// MapProxy's answer for a WMTS tile it cannot give.
    static func tileOutOfRange(row: String) -> String {
        """
        <?xml version="1.0"?>
        <ExceptionReport xmlns="http://www.opengis.net/ows/1.1" version="1.1.0" xml:lang="en">
            <Exception exceptionCode="TileOutOfRange" locator="TILEROW">
                <ExceptionText>No tile at row \(row.replacingOccurrences(of: ".png", with: "")) for this time</ExceptionText>
            </Exception>
        </ExceptionReport>
        """
    }

    /// A project whose one animation `loop` is a `last: PT40M` window over the WMS.
    static func project(_ server: TestServer, _ name: String) throws -> URL {
        let base = String(server.url("/x").dropLast(2))
        return try project(
            name,
            animation: """
                  - id: loop
                    bbox: [-10.0, 40.0, 10.0, 52.0]
                    zoom: 4
                    fallback: { levels: 0 }
                    source: { wms: { url: "\(base)/wms", layers: precip, version: 1.3.0 } }
                    frames: { last: PT40M }
                """)
    }

    /// A scratch project whose `matsite.yml` has this one animation (a YAML list item).
    static func project(_ name: String, animation: String) throws -> URL {
        let project = try CLI.scratch(name)
        let yaml = """
            title: \(name)
            output: site
            cache: cache
            http: { retry_delay_ms: 10, retries: 1, timeout_s: \(TestSite.patientTimeout) }
            animations:
            \(animation)

            """
        try Data(yaml.utf8).write(to: project.appendingPathComponent("matsite.yml"))
        return project
    }

    static func solidPNG(red: Int, size: Int = 256) -> [UInt8] {
        OGCSourcesTests.tile(minutes: red, size: size)
    }

    /// MapServer's tile for a time without data: every pixel alpha 0.
    static func transparentPNG() -> [UInt8] {
        (try? PNGWriter.encode(width: 256, height: 256, format: .rgba, pixels: [UInt8](repeating: 0, count: 256 * 256 * 4))) ?? []
    }

    static func manifest(_ project: URL, _ id: String) throws -> [String: Any] {
        let data = try Data(contentsOf: project.appendingPathComponent("site/\(id)/manifest.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func times(_ manifest: [String: Any]) -> [String] {
        (manifest["frames"] as? [[String: Any]] ?? []).compactMap { $0["time"] as? String }
    }

    static func blankFlags(_ manifest: [String: Any]) -> [Bool] {
        (manifest["frames"] as? [[String: Any]] ?? []).map { $0["blank"] as? Bool ?? false }
    }
}
