import Foundation
import Testing

@testable import MatsiteKit

/// The player's keys (`opacity`, `legend`, `time_zone`, `time_label`) from YAML to the
/// config model, and their errors with key path and line; the legend image file is read
/// by the build, with errors that name the key and the file.
@Suite("Player keys in the config")
struct PlayerKeysConfigTests {
    let base = ConfigLoaderTests()

    func animation(_ extra: [String]) throws -> AnimationConfig {
        let config = try ConfigLoader.parse(Data(ConfigLoaderTests.yaml(appending: extra).utf8), file: "site.yml")
        return try #require(config.animations.first)
    }

    @Test("all four keys are read into the animation")
    func allKeys() throws {
        let a = try animation([
            "    opacity: 0.6",
            "    time_zone: Europe/Paris",
            "    time_label: relative",
            "    legend:",
            "      unit: dBZ",
            "      stops: [[10, \"#78c8e6\"], [40, \"#f0e628\", heavy]]",
            "      image: bar.png",
            "      image_alt: Reflectivity from 10 to 60 dBZ",
        ])
        #expect(a.opacity == 0.6)
        #expect(a.timeZone == "Europe/Paris")
        #expect(a.timeLabel == "relative")
        let legend = try #require(a.legend)
        #expect(legend.unit == "dBZ")
        #expect(legend.stops == [.init(value: 10, color: "#78c8e6"), .init(value: 40, color: "#f0e628", label: "heavy")])
        #expect(legend.image == "bar.png" && legend.imageAlt == "Reflectivity from 10 to 60 dBZ")
        #expect(legend.imageLine == 16)
    }

    @Test("absent keys stay absent: the player's defaults apply")
    func defaults() throws {
        let a = try animation([])
        #expect(a.opacity == nil && a.timeZone == nil && a.timeLabel == nil && a.legend == nil)
    }

    @Test("each bad value names its key path and line")
    func errors() throws {
        let cases: [([String], Int, String, String)] = [
            (["    opacity: 1.5"], 10, "animations[0].opacity", "1.5"),
            (["    time_zone: Mars/Olympus"], 10, "animations[0].time_zone", "IANA"),
            (["    time_label: sometimes"], 10, "animations[0].time_label", "sometimes"),
            (["    legend: { unit: dBZ }"], 10, "animations[0].legend.stops", "colour stops"),
            (["    legend: { stops: [] }"], 10, "animations[0].legend.stops", "at least one"),
            (["    legend: { stops: [[10, red]] }"], 10, "animations[0].legend.stops[0][1]", "#rrggbb"),
            (["    legend: { stops: [[10]] }"], 10, "animations[0].legend.stops[0]", "[value, \"#rrggbb\"]"),
            (["    legend: { stops: [[10, \"#fff\"]], colour: red }"], 10, "animations[0].legend.colour", "unknown key"),
            (["    legend: { stops: [[10, \"#fff\"]], image: bar.png }"], 10, "animations[0].legend.image_alt", "image_alt"),
            (["    legend: { stops: [[10, \"#fff\"]], image_alt: words }"], 10, "animations[0].legend.image_alt", "without legend.image"),
        ]
        for (extra, line, keyPath, words) in cases {
            let error = try base.failure(ConfigLoaderTests.yaml(appending: extra))
            base.check(error, line: line, keyPath: keyPath, says: words)
        }
    }
}

/// `legend.image`: read while planning, before any request; a bad file is a config error.
@Suite("LegendImage")
struct LegendImageTests {
    static func config(image: String, in folder: URL) throws -> (SiteConfig, AnimationConfig) {
        let yaml = ConfigLoaderTests.yaml(appending: [
            "    legend:", "      stops: [[10, \"#fff\"]]", "      image: \(image)", "      image_alt: A colour bar",
        ])
        let file = folder.appendingPathComponent("site.yml")
        try Data(yaml.utf8).write(to: file)
        let config = try ConfigLoader.load(file: file)
        return (config, try #require(config.animations.first))
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("legend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a PNG, JPEG or WebP file is read, named by its hash and its format, relative to the config")
    func readsByKind() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let kinds: [(String, [UInt8], String)] = [
            ("bar.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2], "png"),
            ("bar.jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 1, 2], "jpg"),
            ("bar.webp", Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8L".utf8), "webp"),
        ]
        for (name, bytes, ext) in kinds {
            try Data(bytes).write(to: folder.appendingPathComponent(name))
            let (config, animation) = try Self.config(image: name, in: folder)
            let image = try #require(try LegendImage.read(animation, config: config))
            #expect(image.bytes == bytes)
            #expect(image.name == "legend-\(SHA256.hex(of: bytes).prefix(8)).\(ext)")
        }
    }

    @Test("a missing, foreign or oversized file is a config error naming the key, the line and the file")
    func errors() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("<svg/>".utf8).write(to: folder.appendingPathComponent("bar.svg"))
        try Data(count: LegendImage.maxBytes + 1).write(to: folder.appendingPathComponent("huge.png"))
        for (name, words) in [("nothing.png", "cannot read"), ("bar.svg", "not a PNG, JPEG or WebP"), ("huge.png", "2 MiB")] {
            let (config, animation) = try Self.config(image: name, in: folder)
            let error = #expect(throws: ConfigError.self) { try LegendImage.read(animation, config: config) }
            #expect(error?.keyPath == "animations[0].legend.image")
            #expect(error?.line == 12)
            #expect(error?.message.contains(name) == true, "\(String(describing: error))")
            #expect(error?.message.contains(words) == true, "\(String(describing: error))")
        }
    }
}
