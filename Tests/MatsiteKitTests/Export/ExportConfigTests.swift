import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// `export`, `export_width`, `export_background`, `export_quality`: values and errors
/// (named by key path and line).
@Suite("ExportConfig")
struct ExportConfigTests {
    func parse(_ extra: [String]) throws -> AnimationConfig {
        try #require(try ConfigLoader.parse(Data(ConfigLoaderTests.yaml(appending: extra).utf8), file: "site.yml").animations.first)
    }

    func failure(_ extra: [String]) throws -> ConfigError {
        let yaml = ConfigLoaderTests.yaml(appending: extra)
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(Data(yaml.utf8), file: "site.yml") }
        return try #require(error)
    }

    @Test("without export: nothing is exported")
    func absent() throws {
        #expect(try parse([]).export == nil)
    }

    @Test("export lists formats in order; width, background and quality are read")
    func values() throws {
        let export = try #require(
            try parse([
                "    export: [webp, mp4]", "    export_width: 640", "    export_background: \"#102030\"", "    export_quality: 80",
            ]).export)
        #expect(export.formats == [.webp, .mp4])
        #expect(export.width == 640)
        #expect(export.background == RGB(0x10, 0x20, 0x30))
        #expect(export.webpQuality == 80)
        #expect(export.line == 10)
        let tiles = try #require(try parse(["    export: [gif]", "    export_background: https://t.example.org/{z}/{x}/{y}.png"]).export)
        #expect(tiles.backgroundTiles == "https://t.example.org/{z}/{x}/{y}.png" && tiles.background == nil)
        let plain = try #require(try parse(["    export: [gif]"]).export)
        #expect(plain.width == nil && plain.background == nil && plain.webpQuality == 100)
    }

    @Test(
        "bad export settings name their key path and line",
        arguments: [
            (["    export: [mp4, avi]"], "animations[0].export[1]", 10, "mp4, gif, webp"),
            (["    export: [gif, gif]"], "animations[0].export[1]", 10, "listed twice"),
            (["    export: []"], "animations[0].export", 10, "no format"),
            (["    export: gif"], "animations[0].export", 10, "list"),
            (["    export: [gif]", "    export_width: 8"], "animations[0].export_width", 11, "16"),
            (["    export: [gif]", "    export_background: blue"], "animations[0].export_background", 11, "#rrggbb"),
            (["    export: [gif]", "    export_quality: 0"], "animations[0].export_quality", 11, "1"),
            (["    export: [gif]", "    export_background: https://t.example.org/{z}/{x}.png"], "animations[0].export_background", 11, "{y}"),
            (
                ["    export: [gif]", "    export_background: https://a.tile.openstreetmap.org/{z}/{x}/{y}.png"],
                "animations[0].export_background", 11, "tile policy"
            ),
            (["    export: [gif]", "    export_background: https://t.example.org/{s}/{z}/{x}/{y}.png"], "animations[0].export_background", 11, "only"),
            (["    export_width: 640"], "animations[0].export_width", 10, "without export"),
            (["    exports: [gif]"], "animations[0].exports", 10, "did you mean \"export\""),
        ])
    func errors(extra: [String], keyPath: String, line: Int, word: String) throws {
        let error = try failure(extra)
        #expect(error.keyPath == keyPath, "\(error.description)")
        #expect(error.line == line, "\(error.description)")
        #expect(error.message.contains(word), "\(error.message)")
    }

    @Test("mp4 with no ffmpeg to run is a config error naming the key and line; gif alone needs none")
    func missingFFmpeg() throws {
        let config = try ConfigLoader.parse(Data(ConfigLoaderTests.yaml(appending: ["    export: [gif, mp4]"]).utf8), file: "site.yml")
        let missing = "/nonexistent/matsite-test/ffmpeg"
        let error = try #require(
            #expect(throws: ConfigError.self) { try ConfigLoader.checkExportTools(config, environment: ["MATSITE_FFMPEG": missing]) })
        #expect(error.keyPath == "animations[0].export")
        #expect(error.line == 10)
        #expect(error.message.contains("ffmpeg") && error.message.contains(missing), "\(error.message)")
        let none = try #require(#expect(throws: ConfigError.self) { try ConfigLoader.checkExportTools(config, environment: ["PATH": "/nonexistent"]) })
        #expect(none.message.contains("no ffmpeg") || none.message.contains("none on PATH"), "\(none.message)")
        let gif = try ConfigLoader.parse(Data(ConfigLoaderTests.yaml(appending: ["    export: [gif]"]).utf8), file: "site.yml")
        try ConfigLoader.checkExportTools(gif, environment: ["PATH": "/nonexistent"])
    }

    @Test("an export background that is base_map.url is refused at load: bulk downloads of the player's tiles")
    func backgroundIsNotTheBaseMap() throws {
        let url = "https://tiles.example.org/{z}/{x}/{y}.png"
        var config = try ConfigLoader.parse(
            Data(ConfigLoaderTests.yaml(appending: ["    export: [gif]", "    export_background: \(url)"]).utf8), file: "site.yml")
        try ConfigLoader.checkExportTools(config)
        config.baseMap = BaseMapConfig(url: url)
        let error = try #require(#expect(throws: ConfigError.self) { try ConfigLoader.checkExportTools(config) })
        #expect(error.keyPath == "animations[0].export_background" && error.message.contains("base_map.url"), "\(error)")
    }

    @Test("a missing label font is a config error naming the font")
    func missingFont() throws {
        let config = try ConfigLoader.parse(Data(ConfigLoaderTests.yaml(appending: ["    export: [gif]"]).utf8), file: "site.yml")
        let error = try #require(
            #expect(throws: ConfigError.self) {
                try ConfigLoader.checkExportTools(config, environment: ["MATSITE_EXPORT_FONT": "/nonexistent/font.ttf"])
            })
        #expect(error.keyPath == "animations[0].export" && error.message.contains("/nonexistent/font.ttf"))
    }
}
