import Foundation
import Testing

@testable import MatsiteKit

/// `pyramid: { publish, above_px }`: its defaults, its values and its errors (named by key path and line).
@Suite("PyramidConfig")
struct PyramidConfigTests {
    func parse(_ pyramid: String?) throws -> AnimationConfig {
        let extra = pyramid.map { ["    pyramid: \($0)"] } ?? []
        return try #require(try ConfigLoader.parse(Data(ConfigLoaderTests.yaml(appending: extra).utf8), file: "site.yml").animations.first)
    }

    func failure(_ pyramid: String) throws -> ConfigError {
        let yaml = ConfigLoaderTests.yaml(appending: ["    pyramid: \(pyramid)"])
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(Data(yaml.utf8), file: "site.yml") }
        return try #require(error)
    }

    @Test("without the key, levels are published automatically above 2048 x 2048 pixels")
    func defaults() throws {
        let config = try parse(nil).pyramid
        #expect(config == PyramidConfig())
        #expect(config.publish == .auto && config.abovePx == 2048 * 2048)
        #expect(!config.wants(width: 2048, height: 2048))
        #expect(config.wants(width: 2049, height: 2048))
    }

    @Test("publish and above_px are read; always and never ignore the size")
    func values() throws {
        let auto = try parse("{ publish: auto, above_px: 100 }").pyramid
        #expect(auto.publish == .auto && auto.abovePx == 100)
        #expect(auto.wants(width: 11, height: 10) && !auto.wants(width: 10, height: 10))
        #expect(try parse("{ publish: always }").pyramid.wants(width: 1, height: 1))
        #expect(!(try parse("{ publish: never }").pyramid.wants(width: 20000, height: 20000)))
    }

    @Test(
        "bad pyramid settings name their key path and line",
        arguments: [
            ("{ publish: sometimes }", "animations[0].pyramid.publish", "auto, always, never"),
            ("{ above_px: -5 }", "animations[0].pyramid.above_px", "-5"),
            ("{ above_px: lots }", "animations[0].pyramid.above_px", "lots"),
            ("{ levels: 3 }", "animations[0].pyramid.levels", "unknown key"),
            ("yes", "animations[0].pyramid", ""),
        ])
    func errors(pyramid: String, keyPath: String, word: String) throws {
        let error = try failure(pyramid)
        #expect(error.keyPath == keyPath, "\(error.description)")
        #expect(error.line == 10)
        #expect(error.description.hasPrefix("site.yml:10: \(keyPath): "), "\(error.description)")
        #expect(word.isEmpty || error.message.contains(word), "\(error.message)")
    }
}
