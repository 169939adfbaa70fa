import Foundation
import Testing

@testable import MatsiteKit

/// `points:` in an animation: defaults, every key, and errors naming the key and line.
@Suite("PointsConfig")
struct PointsConfigTests {
    static func yaml(_ points: [String]) -> String {
        (ConfigLoaderTests.lines + ["    points:"] + points.map { "      " + $0 }).joined(separator: "\n") + "\n"
    }

    func failure(_ points: [String]) throws -> ConfigError {
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(Data(Self.yaml(points).utf8), file: "site.yml") }
        return try #require(error)
    }

    @Test("a layer with every key is read; defaults fill the rest")
    func everyKey() throws {
        let config = try ConfigLoader.parse(
            Data(
                Self.yaml([
                    "- id: reports", "  title: Storm reports", "  geojson: data/reports.geojson", "  time: time", "  window: PT30M",
                    "  label: type", "  popup: [type, magnitude]", "  cluster: { radius_px: 60, max_zoom: 12, min_zoom: 3, tile_above_bytes: 65536 }",
                    "  skip_invalid: true", "  max_points: 5000",
                    "- { id: gauges, csv: g.csv, lat: latitude, lon: longitude }",
                    "- { id: live, url: https://example.org/feed.csv }",
                ]).utf8), file: "site.yml")
        let layers = config.animations[0].points
        try #require(layers.count == 3)
        let r = layers[0]
        #expect(r.title == "Storm reports" && r.source == .geojson("data/reports.geojson") && r.time == "time")
        #expect(r.window?.milliseconds == 1_800_000 && r.label == "type" && r.popup == ["type", "magnitude"])
        #expect(r.radiusPx == 60 && r.maxZoom == 12 && r.minZoom == 3 && r.skipInvalid && r.maxPoints == 5000)
        #expect(r.keyPath == "animations[0].points[0]" && r.tileAboveBytes == 65536 && layers[1].tileAboveBytes == 1 << 20)
        #expect(layers[1].latColumn == "latitude" && layers[1].lonColumn == "longitude" && layers[1].radiusPx == 40 && layers[1].maxZoom == 14)
        #expect(layers[2].source == .url(try #require(HTTPURL("https://example.org/feed.csv")), format: .csv))
        #expect(layers[1].maxPoints == 1_000_000 && !layers[1].skipInvalid && layers[1].minZoom == 0)
    }

    @Test("bad point layer keys are named with their path and line")
    func errors() throws {
        var e = try failure(["- { id: a, geojson: a.json, csv: b.csv }"])
        #expect(e.keyPath == "animations[0].points[0]" && e.line == 11 && e.message.contains("exactly one of"))
        e = try failure(["- { id: a, geojson: a.json, colour: red }"])
        #expect(e.keyPath == "animations[0].points[0].colour" && e.message.contains("unknown key"))
        e = try failure(["- { id: A b, geojson: a.json }"])
        #expect(e.keyPath == "animations[0].points[0].id")
        e = try failure(["- { id: a, geojson: a.json, window: PT5M }"])
        #expect(e.keyPath == "animations[0].points[0].window" && e.message.contains("needs time"))
        e = try failure(["- { id: a, geojson: a.json, time: t, window: P1M }"])
        #expect(e.keyPath == "animations[0].points[0].window" && e.message.contains("fixed span"))
        e = try failure(["- { id: a, geojson: a.json, lat: y }"])
        #expect(e.keyPath == "animations[0].points[0].lat")
        e = try failure(["- { id: a, url: ftp://x/y.json }"])
        #expect(e.keyPath == "animations[0].points[0].url")
        e = try failure(["- { id: a, geojson: a.json, cluster: { radius_px: 0 } }"])
        #expect(e.keyPath == "animations[0].points[0].cluster.radius_px")
        e = try failure(["- { id: a, geojson: a.json, cluster: { tile_above_bytes: 10 } }"])
        #expect(e.keyPath == "animations[0].points[0].cluster.tile_above_bytes")
        e = try failure(["- { id: a, geojson: a.json, cluster: { min_zoom: 9, max_zoom: 4 } }"])
        #expect(e.keyPath == "animations[0].points[0].cluster.min_zoom")
        e = try failure(["- { id: a, geojson: a.json }", "- { id: a, csv: b.csv }"])
        #expect(e.keyPath == "animations[0].points[1].id" && e.line == 12 && e.message.contains("duplicate"))
        e = try failure(["- { id: a, geojson: a.json, max_points: 0 }"])
        #expect(e.keyPath == "animations[0].points[0].max_points")
    }
}
