import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// End to end: a WMTS and a WMS server on 127.0.0.1 advertise a time dimension; a config
/// asks for `frames.latest: 5`; the build must pick the newest five times, request each
/// tile at its time, and stitch frames whose pixels say which time they were drawn for.
@Suite("WMTS and WMS sources")
struct OGCSourcesTests {
    /// Times advertised: 10:00 to 11:00 every 10 minutes (7 instants).
    static let advertised = TestTiles.advertised
    static let expectedTimes = [
        "2026-11-21T10:20:00Z", "2026-11-21T10:30:00Z", "2026-11-21T10:40:00Z",
        "2026-11-21T10:50:00Z", "2026-11-21T11:00:00Z",
    ]

    @Test("frames.latest: 5 over WMTS takes the newest five times, and every tile comes from its time")
    func wmtsLatest() async throws {
        let server = try await TestServer.start()
        let base = String(server.url("/x").dropLast(2))
        server.route("/wmts/caps.xml", .ok(Array(Self.wmtsCapabilities(base: base).utf8), contentType: "application/xml"))
        server.route(
            prefix: "/wmts/tiles/",
            .dynamic { request in
                // /wmts/tiles/<time>/<matrix>/<col>/<row>.png
                let parts = request.path.split(separator: "/").map(String.init)
                let time = parts[2].removingPercentEncoding ?? parts[2]
                return .ok(Self.tile(minutes: Self.minutesAfterTen(time)), contentType: "image/png")
            })
        let site = try await build(source: "wmts: { capabilities: \"\(base)/wmts/caps.xml\", layer: radar }")
        try check(site: site)
        // Matrix identifiers are not numbers in this set: "z4" must have been used.
        let tileRequests = server.allRequests.filter { $0.path.hasPrefix("/wmts/tiles/") }
        #expect(!tileRequests.isEmpty && tileRequests.allSatisfy { $0.path.contains("/z4/") })
        await server.stop()
    }

    @Test("frames.latest: 5 over WMS 1.3.0 sends GetMap in EPSG:3857 with TIME for each frame")
    func wmsLatest() async throws {
        let server = try await TestServer.start()
        let base = String(server.url("/x").dropLast(2))
        server.route(
            "/wms",
            .dynamic { request in
                let query = Self.query(request.query ?? "")
                if query["REQUEST"] == "GetCapabilities" {
                    return .ok(Array(Self.wmsCapabilities(base: base).utf8), contentType: "text/xml")
                }
                guard query["REQUEST"] == "GetMap", query["CRS"] == "EPSG:3857", query["WIDTH"] == "256",
                    query["TRANSPARENT"]?.uppercased() == "TRUE", let time = query["TIME"]
                else {
                    return .status(400)
                }
                return .ok(Self.tile(minutes: Self.minutesAfterTen(time)), contentType: "image/png")
            })
        let site = try await build(source: "wms: { url: \"\(base)/wms\", layers: precip, version: 1.3.0 }")
        try check(site: site)
        await server.stop()
    }

    @Test("a WMTS layer of 512-pixel tiles is held to limits.max_frame_width after planning, before any tile request")
    func frameLimitAfterPlanning() async throws {
        let server = try await TestServer.start()
        let base = String(server.url("/x").dropLast(2))
        server.route("/wmts/caps.xml", .ok(Array(Self.wmtsCapabilities(base: base, tileSize: 512).utf8), contentType: "application/xml"))
        server.route(prefix: "/wmts/tiles/", .ok(Self.tile(minutes: 0), contentType: "image/png"))
        // With the config's 256-pixel tiles the box is 228 pixels wide at zoom 4 (under 300);
        // the layer's 512-pixel tiles make it 456.
        await #expect {
            _ = try await build(
                source: "wmts: { capabilities: \"\(base)/wmts/caps.xml\", layer: radar }",
                extra: "limits: { max_frame_width: 300 }")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.keyPath == "animations[0].zoom" && error.line == 3
                && error.message.contains("456x") && error.message.contains("512 px tiles")
                && error.message.contains("limits.max_frame_width")
        }
        #expect(server.allRequests.contains { $0.path == "/wmts/caps.xml" })
        #expect(!server.allRequests.contains { $0.path.hasPrefix("/wmts/tiles/") })
        await server.stop()
    }

    @Test("a WMTS layer of 512-pixel tiles builds, and its manifest says tile_size 512, its width following 512")
    func wmts512Manifest() async throws {
        let server = try await TestServer.start()
        let base = String(server.url("/x").dropLast(2))
        server.route("/wmts/caps.xml", .ok(Array(Self.wmtsCapabilities(base: base, tileSize: 512).utf8), contentType: "application/xml"))
        server.route(prefix: "/wmts/tiles/", .ok(Self.tile(minutes: 7, size: 512), contentType: "image/png"))
        let site = try await build(source: "wmts: { capabilities: \"\(base)/wmts/caps.xml\", layer: radar }")
        defer { try? FileManager.default.removeItem(at: site.deletingLastPathComponent()) }
        let data = try Data(contentsOf: site.appendingPathComponent("loop/manifest.json"))
        let manifest = try JSONDecoder.manifest.decode(AnimationManifest.self, from: data)
        // The contract's size rule: width/height are the box at `zoom` with `tile_size`.
        let layout = WebMercator.layout(of: manifest.bounds, zoom: manifest.zoom, sourceZoom: manifest.zoom, tileSize: 512)
        #expect(manifest.tileSize == 512)
        #expect(manifest.width == layout.width && manifest.height == layout.height)
        #expect(manifest.width == 456, "228 pixels with 256-pixel tiles, twice that with 512")
        let first = try [UInt8](Data(contentsOf: site.appendingPathComponent("loop").appendingPathComponent(manifest.frames[0].url)))
        let image = try PNGDecoder().decode(first, keepIndices: false)
        #expect(image.width == manifest.width && image.pixels[0] == 7)
        await server.stop()
    }

    @Test("an unknown WMTS layer is a config error naming the key and listing the layers there are")
    func unknownLayer() async throws {
        let server = try await TestServer.start()
        let base = String(server.url("/x").dropLast(2))
        server.route("/wmts/caps.xml", .ok(Array(Self.wmtsCapabilities(base: base).utf8), contentType: "application/xml"))
        await #expect {
            _ = try await build(source: "wmts: { capabilities: \"\(base)/wmts/caps.xml\", layer: nope }")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.keyPath.hasSuffix("source.wmts.layer") && error.line == 3 && error.description.contains("radar")
        }
        await server.stop()
    }
}

extension OGCSourcesTests {
    func build(source: String, extra: String = "") async throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-ogc-\(UUID().uuidString)")
        let yaml = """
            output: \(folder.appendingPathComponent("site").path)
            animations:
              - id: loop
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                fallback: { levels: 0 }
                source: { \(source) }
                frames: { latest: 5 }
            http: { retry_delay_ms: 10, retries: 1 }
            cache: \(folder.appendingPathComponent("cache").path)
            \(extra)
            """
        var config = try ConfigLoader.parse(Data(yaml.utf8), file: "ogc.yml")
        config.directory = folder
        do {
            _ = try await Builder(config: config).run()
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        return folder.appendingPathComponent("site")
    }

    func check(site: URL) throws {
        defer { try? FileManager.default.removeItem(at: site.deletingLastPathComponent()) }
        let data = try Data(contentsOf: site.appendingPathComponent("loop/manifest.json"))
        let manifest = try JSONDecoder.manifest.decode(AnimationManifest.self, from: data)
        #expect(manifest.frames.map(\.time?.iso8601) == Self.expectedTimes)
        for (i, frame) in manifest.frames.enumerated() {
            let bytes = try [UInt8](Data(contentsOf: site.appendingPathComponent("loop").appendingPathComponent(frame.url)))
            let image = try PNGDecoder().decode(bytes, keepIndices: false)
            // Every pixel carries its frame's minutes after 10:00 in red.
            let expected = UInt8(20 + 10 * i)
            let reds = Set(stride(from: 0, to: image.pixels.count, by: 4 * 97).map { image.pixels[$0] })
            #expect(reds == [expected], "frame \(i)")
        }
    }

    static func minutesAfterTen(_ time: String) -> Int {
        // 2026-11-21T10:20:00Z -> 20; 11:00 -> 60
        let clock = time.split(separator: "T").last ?? ""
        let parts = clock.split(separator: ":")
        guard parts.count >= 2, let hour = Int(parts[0]), let minute = Int(parts[1]) else { return 255 }
        return (hour - 10) * 60 + minute
    }

    static func tile(minutes: Int, size: Int = 256) -> [UInt8] { TestTiles.minutes(minutes, size: size) }

    static func query(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            out[kv[0].uppercased()] = kv[1].removingPercentEncoding ?? kv[1]
        }
        return out
    }

    static func wmtsCapabilities(base: String, tileSize: Int = 256) -> String { TestTiles.wmtsCapabilities(base: base, tileSize: tileSize) }

    static func wmsCapabilities(base: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <WMS_Capabilities version="1.3.0" xmlns="http://www.opengis.net/wms" xmlns:xlink="http://www.w3.org/1999/xlink">
          <Service><Name>WMS</Name><Title>Test WMS</Title></Service>
          <Capability>
            <Request>
              <GetCapabilities><Format>text/xml</Format><DCPType><HTTP><Get>
                <OnlineResource xlink:type="simple" xlink:href="\(base)/wms?"/></Get></HTTP></DCPType></GetCapabilities>
              <GetMap><Format>image/png</Format><DCPType><HTTP><Get>
                <OnlineResource xlink:type="simple" xlink:href="\(base)/wms?"/></Get></HTTP></DCPType></GetMap>
            </Request>
            <Layer><Title>Root</Title><CRS>EPSG:4326</CRS><CRS>EPSG:3857</CRS>
              <Layer queryable="0"><Name>precip</Name><Title>Precipitation</Title>
                <Dimension name="time" units="ISO8601" default="2026-11-21T11:00:00Z">\(advertised)</Dimension>
              </Layer>
            </Layer>
          </Capability>
        </WMS_Capabilities>
        """
    }
}
