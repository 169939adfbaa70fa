import Foundation
import Testing

@testable import MatsiteKit

/// The Leaflet copy: which build is published, and under which name.
@Suite("Site assets")
struct SiteAssetsTests {
    static let demo = """
          - id: demo
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            fallback: { levels: 0 }
            source: { demo: radar }
            frames: { count: 1 }
        """

    /// A Leaflet folder with the given files (name -> text).
    static func leafletFolder(in site: TestSite, _ files: [String: String]) throws -> URL {
        let folder = site.root.appendingPathComponent("leaflet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("images"), withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    static func published(_ site: TestSite, _ name: String) throws -> String {
        let assets = site.output.appendingPathComponent("assets")
        let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: assets.path).first { $0.hasPrefix("leaflet-") })
        return try String(contentsOf: assets.appendingPathComponent(folder).appendingPathComponent(name), encoding: .utf8)
    }

    @Test("the player's scripts are one content-hashed file too, in the bundle's order, each ended as a statement")
    func bundle() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await site.build(site.yaml(Self.demo))
        let pages = try PageRenderer(overrides: nil)
        let assets = site.output.appendingPathComponent("assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: assets.path).filter { $0.hasPrefix("player-bundle.") }
        #expect(names.count == 1)
        let name = try #require(names.first)
        let bytes = [UInt8](try Data(contentsOf: assets.appendingPathComponent(name)))
        #expect(name == "player-bundle.\(SHA256.hex(of: bytes).prefix(8)).js")
        let text = String(decoding: bytes, as: UTF8.self)
        var from = text.startIndex
        for script in pages.bundle {
            let marker = try #require(text.range(of: "/* \(script) */\n\(pages.assets[script]!)\n;\n", range: from..<text.endIndex), "\(script)")
            from = marker.upperBound
        }
        #expect(from == text.endIndex)
        // The pages load Leaflet and the bundle, nothing else.
        let page = try String(contentsOf: site.output.appendingPathComponent("demo/index.html"), encoding: .utf8)
        let scripts = page.components(separatedBy: "<script src=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(scripts.count == 2 && scripts[0].hasSuffix("/leaflet.js") && scripts[1] == "../assets/\(name)", "\(scripts)")
    }

    @Test("the minified build is published as leaflet.js when the folder has one; otherwise leaflet.js itself")
    func prefersMinified() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let both = try Self.leafletFolder(in: site, ["leaflet.js": "/* full */ var L;", "leaflet.min.js": "var L;", "leaflet.css": ".a{}"])
        try await site.build(site.yaml(Self.demo).replacingOccurrences(of: "leaflet: /usr/share/javascript/leaflet", with: "leaflet: \(both.path)"))
        #expect(try Self.published(site, "leaflet.js") == "var L;")

        let plain = try Self.leafletFolder(in: site, ["leaflet.js": "/* full */ var L;", "leaflet.css": ".a{}"])
        try await site.build(site.yaml(Self.demo).replacingOccurrences(of: "leaflet: /usr/share/javascript/leaflet", with: "leaflet: \(plain.path)"))
        #expect(try Self.published(site, "leaflet.js") == "/* full */ var L;")
        #expect(try Self.published(site, "leaflet.css") == ".a{}")
    }

    @Test("the Leaflet folder is named by its content: the same bytes keep the name across builds, other bytes get another")
    func folderNameFollowsContent() async throws {
        let site = try TestSite()
        defer { site.remove() }
        func build(_ script: String) async throws -> String {
            let folder = try Self.leafletFolder(in: site, ["leaflet.js": script, "leaflet.css": ".a{}"])
            try await site.build(site.yaml(Self.demo).replacingOccurrences(of: "leaflet: /usr/share/javascript/leaflet", with: "leaflet: \(folder.path)"))
            let names = try FileManager.default.contentsOfDirectory(atPath: site.output.appendingPathComponent("assets").path)
            return try #require(names.first { $0.hasPrefix("leaflet-") })
        }
        let first = try await build("var L = 1;")
        #expect(first == "leaflet-" + SHA256.hex(of: Array("var L = 1;.a{}".utf8)).prefix(8))
        #expect(try await build("var L = 1;") == first)
        #expect(try await build("var L = 2;") != first)
    }
}
