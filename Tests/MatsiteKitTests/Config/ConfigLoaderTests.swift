import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// One test per kind of config error; each checks the key path, the line and the
/// `file:line: key: message` text the CLI prints.
@Suite("ConfigLoader")
struct ConfigLoaderTests {
    /// A valid config; tests replace one line at a time (1-based line numbers below).
    static let lines = [
        "title: Weather", // 1
        "animations:", // 2
        "  - id: radar", // 3
        "    bbox: [-95.5, 29.0, -74.5, 43.5]", // 4
        "    zoom: 7", // 5
        "    source:", // 6
        "      url: https://tiles.example.org/{frame}/{z}/{x}/{y}.png", // 7
        "    frames:", // 8
        "      count: 12", // 9
    ]

    static func yaml(replacing changes: [Int: String] = [:], appending extra: [String] = []) -> String {
        var lines = Self.lines
        for (number, text) in changes { lines[number - 1] = text }
        return (lines + extra).joined(separator: "\n") + "\n"
    }

    func failure(_ yaml: String) throws -> ConfigError {
        try failure(Data(yaml.utf8))
    }

    func failure(_ data: Data) throws -> ConfigError {
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(data, file: "site.yml") }
        return try #require(error)
    }

    func check(
        _ error: ConfigError, line: Int, keyPath: String, says words: String...,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error.file == "site.yml", sourceLocation: sourceLocation)
        #expect(error.line == line, sourceLocation: sourceLocation)
        #expect(error.keyPath == keyPath, sourceLocation: sourceLocation)
        let prefix = keyPath.isEmpty ? "site.yml:\(line): " : "site.yml:\(line): \(keyPath): "
        #expect(error.description.hasPrefix(prefix), "\(error.description)", sourceLocation: sourceLocation)
        for word in words {
            #expect(error.message.contains(word), "\"\(error.message)\" lacks \"\(word)\"", sourceLocation: sourceLocation)
        }
    }

    @Test("the base config is valid")
    func baseIsValid() throws {
        let config = try ConfigLoader.parse(Data(Self.yaml().utf8), file: "site.yml")
        #expect(config.animations.map(\.id) == ["radar"])
    }

    @Test("an unknown top-level key is named with its line and a did-you-mean")
    func unknownTopKey() throws {
        check(
            try failure(Self.yaml(replacing: [1: "titel: Weather"])), line: 1, keyPath: "titel",
            says: "unknown key", "did you mean \"title\"")
    }

    @Test("an unknown key inside an animation is named by its full path")
    func unknownNestedKey() throws {
        check(
            try failure(Self.yaml(replacing: [5: "    zom: 7"])), line: 5, keyPath: "animations[0].zom",
            says: "did you mean \"zoom\"")
        check(
            try failure(Self.yaml(appending: ["http: { retries: 2, retires: 3 }"])), line: 10, keyPath: "http.retires",
            says: "did you mean \"retries\"")
    }

    @Test("a value of the wrong type names what was expected and what was found")
    func wrongType() throws {
        check(
            try failure(Self.yaml(replacing: [5: "    zoom: seven"])), line: 5, keyPath: "animations[0].zoom",
            says: "whole number", "seven")
        check(try failure(Self.yaml(replacing: [4: "    bbox: west"])), line: 4, keyPath: "animations[0].bbox", says: "list")
        check(try failure(Self.yaml(appending: ["http: { retries: many }"])), line: 10, keyPath: "http.retries", says: "many")
    }

    @Test("a zoom outside 0-22 is out of range", arguments: ["23", "-1"])
    func zoomRange(zoom: String) throws {
        check(
            try failure(Self.yaml(replacing: [5: "    zoom: \(zoom)"])), line: 5, keyPath: "animations[0].zoom",
            says: "0 to 22")
    }

    @Test("compression is 0-9 (zlib) or 10-12 (libdeflate), 10 unless set")
    func compressionRange() throws {
        #expect(try ConfigLoader.parse(Data(Self.yaml().utf8), file: "site.yml").animations[0].compressionLevel == 10)
        let twelve = try ConfigLoader.parse(Data(Self.yaml(appending: ["    compression: 12"]).utf8), file: "site.yml")
        #expect(twelve.animations[0].compressionLevel == 12)
        check(
            try failure(Self.yaml(appending: ["    compression: 13"])), line: 10, keyPath: "animations[0].compression",
            says: "0 to 12")
    }

    @Test("a duration that is not positive is out of range")
    func durations() throws {
        check(
            try failure(Self.yaml(appending: ["    frame_duration_ms: 0"])), line: 10,
            keyPath: "animations[0].frame_duration_ms", says: "from 1")
    }

    @Test("a bbox with south above north is refused, saying the order")
    func invertedBox() throws {
        check(
            try failure(Self.yaml(replacing: [4: "    bbox: [-95.5, 43.5, -74.5, 29.0]"])), line: 4,
            keyPath: "animations[0].bbox", says: "south", "north", "[west, south, east, north]")
    }

    @Test("a bbox wholly beyond the Mercator latitude limit is refused")
    func beyondMercator() throws {
        check(
            try failure(Self.yaml(replacing: [4: "    bbox: [-10, 86, 10, 89]"])), line: 4,
            keyPath: "animations[0].bbox", says: "latitude limit")
    }

    @Test("a latitude beyond 90 is refused at its own item")
    func latitudeRange() throws {
        check(
            try failure(Self.yaml(replacing: [4: "    bbox: [-10, 20, 10, 95]"])), line: 4,
            keyPath: "animations[0].bbox[3]", says: "-90", "90")
    }

    @Test("a bbox without four numbers is refused")
    func boxArity() throws {
        check(
            try failure(Self.yaml(replacing: [4: "    bbox: [-10, 20, 10]"])), line: 4,
            keyPath: "animations[0].bbox", says: "four numbers")
    }

    @Test("a second animation with the same id names both")
    func duplicateIDs() throws {
        let error = try failure(Self.yaml(appending: Array(Self.lines[2...])))
        check(error, line: 10, keyPath: "animations[1].id", says: "duplicate id \"radar\"", "animations[0]")
    }

    @Test("ids that are not slugs are refused (they become folder names)", arguments: ["../x", "a/b", "Radar", "-x", "radar_1", "\"\""])
    func slugs(id: String) throws {
        check(
            try failure(Self.yaml(replacing: [3: "  - id: \(id)"])), line: 3, keyPath: "animations[0].id",
            says: "not a valid id")
    }

    @Test("an unknown template placeholder is named, with the known ones")
    func unknownPlaceholder() throws {
        check(
            try failure(Self.yaml(replacing: [7: "      url: https://tiles.example.org/{zoom}/{x}/{y}.png"])), line: 7,
            keyPath: "animations[0].source.url", says: "unknown placeholder {zoom}", "{z}")
    }

    @Test("{s} without subdomains is refused")
    func subdomainsMissing() throws {
        check(
            try failure(Self.yaml(replacing: [7: "      url: https://{s}.example.org/{frame}/{z}/{x}/{y}.png"])), line: 7,
            keyPath: "animations[0].source.subdomains", says: "{s}")
    }

    @Test("{time} without times is refused")
    func timeWithoutTimes() throws {
        check(
            try failure(Self.yaml(replacing: [7: "      url: https://tiles.example.org/{time}/{z}/{x}/{y}.png"])), line: 9,
            keyPath: "animations[0].frames", says: "{time}", "times")
    }

    @Test("two source kinds at once are refused, naming both")
    func twoSourceKinds() throws {
        let error = try failure(Self.yaml(replacing: [7: "      url: https://tiles.example.org/{frame}/{z}/{x}/{y}.png\n      path: tiles/{z}/{x}/{y}.png"]))
        check(error, line: 7, keyPath: "animations[0].source", says: "only one of", "url and path")
    }

    @Test("frames without a kind are refused, listing the kinds")
    func noFramesKind() throws {
        check(
            try failure(Self.yaml(replacing: [8: "    frames: {}", 9: ""])), line: 8,
            keyPath: "animations[0].frames", says: "give one of", "count")
    }

    @Test("frames over the pixel limit are refused at the zoom, with the size they would be")
    func pixelLimit() throws {
        check(
            try failure(Self.yaml(replacing: [5: "    zoom: 16"])), line: 5, keyPath: "animations[0].zoom",
            says: "over the limit of 16384x16384")
        // The limit is configurable: at z7 the anchor frame is 1912x1646.
        check(
            try failure(Self.yaml(appending: ["limits: { max_frame_width: 1000 }"])), line: 5, keyPath: "animations[0].zoom",
            says: "1912x1646", "1000x16384")
    }

    @Test("a box smaller than one pixel at the zoom is refused at bbox")
    func subPixelBox() throws {
        check(
            try failure(Self.yaml(replacing: [4: "    bbox: [1.0, 1.0, 1.0001, 1.0001]", 5: "    zoom: 0"])), line: 4,
            keyPath: "animations[0].bbox", says: "smaller than one pixel")
    }

    @Test("more frames than the limit are refused at frames")
    func frameLimit() throws {
        check(
            try failure(Self.yaml(replacing: [9: "      count: 501"])), line: 9, keyPath: "animations[0].frames",
            says: "501 frames", "500")
    }

    @Test("a YAML syntax error gives its line")
    func syntax() throws {
        check(try failure(Self.yaml(replacing: [3: "  - id: radar: x"])), line: 3, keyPath: "", says: "YAML syntax error")
    }

    @Test("bytes that are not UTF-8 are refused with their line")
    func notUTF8() throws {
        var data = Data(Self.yaml().utf8)
        let third = Self.lines[0].utf8.count + Self.lines[1].utf8.count + 2 + 6 // inside "  - id: radar"
        data[third] = 0xFF
        check(try failure(data), line: 3, keyPath: "", says: "not UTF-8")
    }

    @Test("an empty file says an animation is required", arguments: ["", "\n\n", "# nothing yet\n"])
    func emptyFile(text: String) throws {
        let error = try failure(text)
        #expect(error.keyPath == "animations")
        #expect(error.message.contains("at least one animation"))
        #expect(error.description.hasPrefix("site.yml"))
    }

    @Test("a config file that cannot be read is a config error naming it")
    func unreadable() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-missing-\(UUID().uuidString).yml")
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(file: url) }
        #expect(error?.file == url.path)
        #expect(error?.message.contains("cannot read") == true)
    }

    @Test("a required key that is missing is named, at the animation's line")
    func missingRequired() throws {
        check(try failure(Self.yaml(replacing: [5: ""])), line: 3, keyPath: "animations[0].zoom", says: "missing")
    }

    @Test("a key given twice is refused, naming the key at its first line")
    func duplicateKey() throws {
        check(try failure(Self.yaml(appending: ["title: Again"])), line: 1, keyPath: "", says: "key given twice: title")
        check(try failure(Self.yaml(appending: ["    zoom: 8"])), line: 5, keyPath: "", says: "key given twice: zoom")
    }

    @Test("an unsupported time_format code is refused at time_format")
    func timeFormat() throws {
        check(
            try failure(Self.yaml(appending: ["    time_format: \"%Y-%Z\""])), line: 10,
            keyPath: "animations[0].time_format", says: "unsupported time format code")
    }

    @Test("times that do not increase are refused at the offending item")
    func timesOrder() throws {
        let yaml = Self.yaml(replacing: [
            7: "      url: https://tiles.example.org/{time}/{z}/{x}/{y}.png",
            9: "      times: [2026-11-21T10:10:00Z, 2026-11-21T10:00:00Z]",
        ])
        check(try failure(yaml), line: 9, keyPath: "animations[0].frames.times[1]", says: "increase")
    }

    @Test("a time that is not ISO 8601 is refused at its item")
    func badTime() throws {
        let yaml = Self.yaml(replacing: [
            7: "      url: https://tiles.example.org/{time}/{z}/{x}/{y}.png",
            9: "      times: [2026-11-21T10:00:00Z, yesterday]",
        ])
        check(try failure(yaml), line: 9, keyPath: "animations[0].frames.times[1]", says: "ISO 8601")
    }

    @Test("a tile_size that is not a power of two is refused")
    func tileSize() throws {
        check(
            try failure(Self.yaml(appending: ["      tile_size: 300"], at: 7)), line: 8,
            keyPath: "animations[0].source.tile_size", says: "power of two")
    }

    @Test("format: and quality: are read; a format that is none of auto, png, jpeg, webp is refused")
    func frameFormat() throws {
        let config = try ConfigLoader.parse(Data(Self.yaml(appending: ["    format: webp", "    quality: 70"]).utf8), file: "site.yml")
        #expect(config.animations[0].frameFormat == FrameFormatChoice(.webp, quality: 70))
        #expect(try ConfigLoader.parse(Data(Self.yaml().utf8), file: "site.yml").animations[0].frameFormat == FrameFormatChoice())
        check(
            try failure(Self.yaml(appending: ["    format: gif"])), line: 10, keyPath: "animations[0].format",
            says: "auto, png, jpeg, webp, webp-lossless", "gif")
        check(try failure(Self.yaml(appending: ["    quality: 0"])), line: 10, keyPath: "animations[0].quality")
    }

    @Test("quality: with format: png or webp-lossless is refused (both are lossless)")
    func qualityWithPNG() throws {
        for format in ["png", "webp-lossless"] {
            check(
                try failure(Self.yaml(appending: ["    format: \(format)", "    quality: 80"])), line: 11, keyPath: "animations[0].quality",
                says: "JPEG and WebP")
        }
        let config = try ConfigLoader.parse(Data(Self.yaml(appending: ["    format: webp-lossless"]).utf8), file: "site.yml")
        #expect(config.animations[0].frameFormat == FrameFormatChoice(.webpLossless))
    }

    @Test("missing: must be fail or transparent")
    func missingPolicy() throws {
        check(
            try failure(Self.yaml(appending: ["    missing: skip"])), line: 10, keyPath: "animations[0].missing",
            says: "fail, transparent", "skip")
    }

    @Test("blank: skip_newest by default, keep when said; anything else is refused at its line")
    func blankPolicy() throws {
        #expect(try ConfigLoader.parse(Data(Self.yaml().utf8), file: "site.yml").animations[0].blank == .skipNewest)
        #expect(try ConfigLoader.parse(Data(Self.yaml(appending: ["    blank: keep"]).utf8), file: "site.yml").animations[0].blank == .keep)
        check(
            try failure(Self.yaml(appending: ["    blank: skip"])), line: 10, keyPath: "animations[0].blank",
            says: "skip_newest, keep", "skip")
    }

    @Test("a source url that is not http(s) is refused, pointing to path:")
    func notHTTP() throws {
        check(
            try failure(Self.yaml(replacing: [7: "      url: ftp://tiles.example.org/{z}/{x}/{y}.png"])), line: 7,
            keyPath: "animations[0].source.url", says: "http://", "path:")
    }

    @Test("a source url without {z}, {x} and {y} is refused")
    func notATileTemplate() throws {
        check(
            try failure(Self.yaml(replacing: [7: "      url: https://tiles.example.org/{frame}/{z}/{x}.png"])), line: 7,
            keyPath: "animations[0].source.url", says: "{z}, {x} and {y}")
    }

    @Test("frames.templates with a source url is refused: the source then carries only options")
    func templatesWithURL() throws {
        let yaml = Self.yaml(replacing: [9: "      templates: [\"https://a.example.org/1/{z}/{x}/{y}.png\"]"])
        check(try failure(yaml), line: 9, keyPath: "animations[0].frames.templates", says: "only options")
    }

    @Test("a base map with {s} and no subdomains is refused")
    func baseMapSubdomains() throws {
        let error = try failure(Self.yaml(appending: ["base_map: { url: \"https://{s}.tile.example.org/{z}/{x}/{y}.png\" }"]))
        check(error, line: 10, keyPath: "base_map.subdomains", says: "{s}")
    }

    @Test("a base map with {time} is refused")
    func baseMapTime() throws {
        let error = try failure(Self.yaml(appending: ["base_map: { url: \"https://tile.example.org/{time}/{z}/{x}/{y}.png\" }"]))
        check(error, line: 10, keyPath: "base_map.url", says: "{time}")
    }
}

extension ConfigLoaderTests {
    /// The base config with `extra` lines inserted after line `after`.
    static func yaml(appending extra: [String], at after: Int) -> String {
        var lines = Self.lines
        lines.insert(contentsOf: extra, at: after)
        return lines.joined(separator: "\n") + "\n"
    }
}
