import Foundation
import Testing

@testable import MatsiteKit

/// A layered animation's manifest, byte for byte (`Golden/layered.yml` built into
/// `Golden/layered-manifest.json`; the demo source draws the same frames anywhere): the
/// timeline's entries, and each layer's entry with its own `width`, `height` and
/// `tile_size`. Regenerate both only for a change meant to alter layered manifests.
@Suite("Layers: the layered manifest is pinned")
struct LayeredManifestGoldenTests {
    @Test("the manifest of a layered animation is byte for byte the golden one, each layer saying its size")
    func pinned() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let golden = UnchangedManifestTests.golden
        var config = try ConfigLoader.parse(Data(contentsOf: golden.appendingPathComponent("layered.yml")), file: "matsite.yml")
        config.directory = site.root
        try await Builder(config: config).run()
        let built = try Data(contentsOf: site.root.appendingPathComponent("site/storm/manifest.json"))
        #expect(built == (try Data(contentsOf: golden.appendingPathComponent("layered-manifest.json"))), "\(String(decoding: built, as: UTF8.self))")
        let manifest = try JSONDecoder.manifest.decode(AnimationManifest.self, from: built)
        #expect(manifest.layers?.map(\.tileSize) == [256, 256])
        #expect(manifest.layers?.map(\.width) == [manifest.width, manifest.width])
    }
}
