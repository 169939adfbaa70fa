import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// `layers:` from YAML to the config: each layer takes a one-source animation's feed keys
/// (read by the same function), and every mistake names `animations[N].layers[M].key`
/// and its line.
@Suite("Layers: the config")
struct LayersConfigTests {
    /// A layered animation: `- id: storm` is line 3, the timeline line 6, then the
    /// animation's `extra` lines, `layers:`, and the first layer on the line after.
    static func yaml(_ layers: [String], animation extra: [String] = []) -> String {
        ([
            "output: site",
            "animations:",
            "  - id: storm",
            "    bbox: [-10.5, 40.0, 12.5, 53.0]",
            "    zoom: 4",
            "    frames: { last: PT1H, step: PT5M }",
        ] + extra + ["    layers:"] + layers).joined(separator: "\n") + "\n"
    }

    static let satellite = [
        "      - id: satellite",
        "        title: Infrared satellite",
        "        source: { url: \"https://sat.example.org/{time}/{z}/{x}/{y}.png\" }",
        "        time_format: \"%Y%m%d%H%M\"",
        "        frames: { last: PT1H, step: PT10M, delay: PT2M }",
        "        format: jpeg",
        "        quality: 80",
        "        max_age: PT30M",
    ]
    static let radar = [
        "      - id: radar",
        "        source: { url: \"https://radar.example.org/{time}/{z}/{x}/{y}.png\" }",
        "        opacity: 0.7",
        "        missing: transparent",
        "        attribution: Radar example",
        "        legend: { unit: dBZ, stops: [[5, \"#04e9e7\"], [65, \"#f800fd\"]] }",
        "        pyramid: { publish: never }",
        "        fallback: { levels: 1 }",
    ]

    func parse(_ yaml: String) throws -> SiteConfig {
        try ConfigLoader.parse(Data(yaml.utf8), file: "site.yml")
    }

    @Test("each layer takes the feed keys; a layer without frames uses the timeline's")
    func reads() throws {
        let config = try parse(Self.yaml(Self.satellite + Self.radar, animation: ["    attribution: Storm desk"]))
        let storm = try #require(config.animations.first)
        #expect(storm.isLayered && storm.layers.map(\.id) == ["satellite", "radar"])
        guard case .rolling(let timeline) = storm.frames else { Issue.record("the timeline is not a window"); return }
        #expect(timeline.step == ISODuration(milliseconds: 300_000))
        let (satellite, radar) = (storm.layers[0], storm.layers[1])
        #expect(satellite.title == "Infrared satellite" && radar.title == "radar")
        #expect(satellite.feed.frameFormat.setting == .jpeg && satellite.feed.frameFormat.quality == 80)
        #expect(satellite.maxAge == ISODuration(milliseconds: 1_800_000) && radar.maxAge == nil)
        guard case .rolling(let own) = satellite.feed.frames else { Issue.record("the satellite's frames are not a window"); return }
        #expect(own.step == ISODuration(milliseconds: 600_000) && own.delay == ISODuration(milliseconds: 120_000))
        guard case .rolling(let shared) = radar.feed.frames else { Issue.record("the radar's frames are not the timeline"); return }
        #expect(shared == timeline)
        #expect(radar.feed.opacity == 0.7 && radar.feed.missing == .transparent && radar.feed.legend?.unit == "dBZ")
        #expect(radar.feed.pyramid.publish == .never && radar.feed.fallback.levels == 1)
        #expect(satellite.line == 9 && radar.line == 17 && radar.position == 1)
        // Each layer is built as a one-source animation in its folder, named in messages by its key path.
        let built = storm.layerConfig(radar)
        #expect(built.id == "storm/radar" && built.keyPath == "animations[0].layers[1]" && built.missing == .transparent)
        #expect(storm.fullAttribution == "Storm desk; Radar example")
    }

    @Test("an animation without layers reads as before")
    func oneSource() throws {
        let config = try parse(
            "animations:\n  - id: radar\n    bbox: [-10.5, 40.0, 12.5, 53.0]\n    zoom: 4\n    source: { demo: radar }\n    frames: { count: 3 }\n    opacity: 0.5\n"
        )
        let radar = try #require(config.animations.first)
        #expect(!radar.isLayered && radar.opacity == 0.5 && radar.layer == nil && radar.keyPath == "animations[0]")
    }

    @Test("each mistake names animations[N].layers[M].key and its line")
    func errors() throws {
        let source = "        source: { url: \"https://r.example.org/{time}/{z}/{x}/{y}.png\" }"
        let cases: [(layers: [String], animation: [String], line: Int, keyPath: String, words: String)] = [
            // source and layers together
            (Self.radar, ["    source: { demo: radar }"], 7, "animations[0].source", "either source or layers"),
            // a feed key on the animation belongs on the layers
            (Self.radar, ["    format: png"], 7, "animations[0].format", "layer's key"),
            // a layer without source
            (["      - id: radar", "        opacity: 0.5"], [], 8, "animations[0].layers[0].source", "needs its source"),
            // a layer without id
            (["      - title: Radar", source], [], 8, "animations[0].layers[0].id", "missing"),
            // duplicate ids
            (["      - id: radar", source, "      - id: radar", source], [], 10, "animations[0].layers[1].id", "duplicate layer id \"radar\""),
            // an id the animation's folder already uses
            (["      - id: frames", source], [], 8, "animations[0].layers[0].id", "taken"),
            (["      - id: Radar", source], [], 8, "animations[0].layers[0].id", "not a valid id"),
            // an unknown key, with its line
            (["      - id: radar", source, "        opacty: 0.5"], [], 10, "animations[0].layers[0].opacty", "unknown key"),
            // animation keys are not a layer's
            (["      - id: radar", source, "        zoom: 5"], [], 10, "animations[0].layers[0].zoom", "unknown key"),
            // a feed key's value checked as for an animation
            (["      - id: radar", source, "        opacity: 2"], [], 10, "animations[0].layers[0].opacity", "2"),
            (["      - id: radar", source, "        format: png", "        quality: 80"], [], 11, "animations[0].layers[0].quality", "lossy"),
            (["      - id: radar", source, "        max_age: soon"], [], 10, "animations[0].layers[0].max_age", "ISO 8601 duration"),
            // a layer's frames must have times to be placed on the timeline
            (["      - id: radar", "        source: { demo: radar }", "        frames: { count: 3 }"], [], 10, "animations[0].layers[0].frames", "need times"),
            (
                ["      - id: radar", "        source: { url: \"https://r.example.org/{time}/{z}/{x}/{y}.png\" }", "        frames: { last: PT1H }"], [], 10,
                "animations[0].layers[0].frames.step", "needs step"
            ),
            (
                ["      - id: radar", "        source: { url: \"https://{s}.example.org/{time}/{z}/{x}/{y}.png\" }"], [], 9,
                "animations[0].layers[0].source.subdomains", "{s}"
            ),
            // an empty list
            ([], [], 7, "animations[0].layers", "expected a list"),
        ]
        for c in cases {
            do {
                _ = try parse(Self.yaml(c.layers, animation: c.animation))
                Issue.record("accepted: \(c.keyPath)")
            } catch let error as ConfigError {
                #expect(error.keyPath == c.keyPath, "\(c.keyPath): \(error)")
                #expect(error.line == c.line, "\(c.keyPath): line \(String(describing: error.line)): \(error)")
                #expect(error.description.contains(c.words), "\(c.keyPath): \(error)")
                #expect(error.description.contains("site.yml"), "\(error)")
            }
        }
    }

    @Test("the timeline is times of its own: a source's kinds of frames belong on a layer")
    func timeline() throws {
        for frames in ["{ count: 3 }", "{ index: { file: times.json } }", "{ last: PT1H }"] {
            let yaml = Self.yaml(Self.radar).replacingOccurrences(of: "{ last: PT1H, step: PT5M }", with: frames)
            do {
                _ = try parse(yaml)
                Issue.record("accepted the timeline \(frames)")
            } catch let error as ConfigError {
                #expect(error.keyPath.hasPrefix("animations[0].frames"), "\(error)")
                #expect(error.line == 6, "\(error)")
            }
        }
        let ranged = Self.yaml(Self.radar).replacingOccurrences(
            of: "{ last: PT1H, step: PT5M }", with: "{ range: { start: 2026-11-21T10:00:00Z, end: 2026-11-21T11:00:00Z, step: PT15M } }")
        #expect(try parse(ranged).animations[0].layers.count == 1)
    }

    @Test("matsite init's commented layered example parses once uncommented")
    func initExample() throws {
        let lines = Scaffold.config.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.contains("- id: storm") })
        let example = lines[start...].prefix { $0.hasPrefix("#") }.map { String($0.dropFirst()) }
        let config = try parse((["animations:"] + example).joined(separator: "\n"))
        let storm = try #require(config.animations.first)
        #expect(storm.layers.map(\.id) == ["satellite", "radar"])
        #expect(storm.layers[0].feed.frameFormat.setting == .jpeg && storm.layers[1].feed.opacity == 0.8)
    }
}
