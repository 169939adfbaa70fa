import Foundation
import Testing

@testable import MatsiteKit

/// An animation without `layers:` builds exactly as before layers existed: its manifest,
/// byte for byte, is the one main's matsite wrote for the same config (`Golden/`:
/// `one-source.yml` built by that binary; the demo source draws the same frames anywhere).
/// Regenerate both only for a change meant to alter one-source manifests.
@Suite("Layers: a one-source animation is unchanged")
struct UnchangedManifestTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    @Test("the manifest of an animation without layers is byte for byte the one written before layers")
    func unchanged() async throws {
        let site = try TestSite()
        defer { site.remove() }
        var config = try ConfigLoader.parse(Data(contentsOf: Self.golden.appendingPathComponent("one-source.yml")), file: "matsite.yml")
        config.directory = site.root
        try await Builder(config: config).run()
        let built = try Data(contentsOf: site.root.appendingPathComponent("site/radar/manifest.json"))
        let expected = try Data(contentsOf: Self.golden.appendingPathComponent("one-source-manifest.json"))
        #expect(
            built == expected,
            "\(String(decoding: built, as: UTF8.self))")
        // The timeline's keys stay out of it.
        #expect(!String(decoding: built, as: UTF8.self).contains("\"layers\""))
    }
}
