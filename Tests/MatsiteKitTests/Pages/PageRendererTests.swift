import Foundation
import Testing

@testable import MatsiteKit

/// The default templates, overridden file by file by a project's `templates:` folder.
@Suite("Page renderer")
struct PageRendererTests {
    /// A templates folder holding `files` (relative path -> bytes).
    func folder(_ files: [String: [UInt8]]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-templates-\(UUID().uuidString)")
        for (path, bytes) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: file)
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }

    @Test("the defaults render the three pages and carry the player's assets")
    func defaults() throws {
        let pages = try PageRenderer(overrides: nil)
        #expect(pages.assets.keys.contains("player.js") && pages.assets.keys.contains("player.css"))
        let html = try pages.render(IndexPageContext(siteTitle: "Loops", generator: "matsite test", assets: [:], animations: []))
        #expect(html.contains("<title>Loops</title>"))
    }

    @Test("the default bundle lists every script of the player in load order, player.js last, Leaflet not at all")
    func defaultBundle() throws {
        let pages = try PageRenderer(overrides: nil)
        let scripts = Set(pages.assets.keys.filter { $0.hasSuffix(".js") && $0 != "index.js" })
        #expect(Set(pages.bundle) == scripts && pages.bundle.count == scripts.count)
        #expect(pages.bundle.last == "player.js" && pages.bundle.first == "player-input.js")
        #expect(pages.bundle.firstIndex(of: "crossfade.js")! < pages.bundle.firstIndex(of: "frame-overlay.js")!)
    }

    @Test("a project's bundle list replaces the default; comments and blank lines are skipped; a name not in assets/ is an error")
    func ownBundle() throws {
        let root = try folder([
            "player-bundle.txt": Array("# mine\n\nplayer-input.js\n  extra.js  \nplayer.js\n".utf8),
            "assets/extra.js": Array("var extra;".utf8),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try PageRenderer(overrides: root).bundle == ["player-input.js", "extra.js", "player.js"])
        let wrong = try folder(["player-bundle.txt": Array("player.js\nno-such.js\n".utf8)])
        defer { try? FileManager.default.removeItem(at: wrong) }
        let error = #expect(throws: PageTemplateError.self) { try PageRenderer(overrides: wrong) }
        #expect(error == .notAnAsset(list: "player-bundle.txt", name: "no-such.js"))
        #expect(error?.description == "template player-bundle.txt lists no-such.js, which is not a file of assets/")
    }

    @Test("user strings are escaped in pages")
    func escapes() throws {
        let html = try PageRenderer(overrides: nil).render(
            IndexPageContext(siteTitle: "<script>alert(1)</script> & co", generator: "", assets: [:], animations: []))
        #expect(!html.contains("<script>alert(1)</script>"))
        #expect(html.contains("&lt;script&gt;"))
    }

    @Test("a file in the templates folder replaces the default of the same name; the others stay")
    func overrides() throws {
        let root = try folder([
            "index.mustache": Array("custom {{site_title}}".utf8),
            "assets/player.css": Array("body{}".utf8),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let pages = try PageRenderer(overrides: root)
        #expect(try pages.render(IndexPageContext(siteTitle: "Loops", generator: "", assets: [:], animations: [])) == "custom Loops")
        #expect(pages.assets["player.css"] == "body{}")
        let page = AnimationPageValues(siteTitle: "S", title: "T", id: "t", generator: "", width: 1, height: 1, assets: [:])
        #expect(try pages.render(EmbedPageContext(page: page)).contains("<html"))
    }

    @Test("a templates folder that does not exist is an error naming it and the config key")
    func missingFolder() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-no-such-\(UUID().uuidString)")
        let error = #expect(throws: (any Error).self) { try PageRenderer(overrides: path) }
        #expect("\(error.map { "\($0)" } ?? "")" == "the templates folder \(path.path) does not exist (config key templates)")
    }

    @Test("a template that does not parse, or is not UTF-8, is an error naming the file")
    func badTemplates() throws {
        let unparsable = try folder(["player.mustache": Array("{{#open}} never closed".utf8)])
        defer { try? FileManager.default.removeItem(at: unparsable) }
        let parseError = #expect(throws: (any Error).self) { try PageRenderer(overrides: unparsable) }
        #expect("\(parseError.map { "\($0)" } ?? "")".hasPrefix("template player.mustache does not parse: "))

        let binary = try folder(["index.mustache": [0xFF, 0xFE, 0x00, 0xC3]])
        defer { try? FileManager.default.removeItem(at: binary) }
        let textError = #expect(throws: (any Error).self) { try PageRenderer(overrides: binary) }
        #expect("\(textError.map { "\($0)" } ?? "")".contains("index.mustache is not UTF-8 text"))
    }

    @Test("rendering a template nobody defined names it")
    func unknownTemplate() throws {
        let error = #expect(throws: (any Error).self) { try PageRenderer(overrides: nil).render(NoSuchPage()) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("template nope.mustache is missing"))
    }
}

/// A context whose template nobody defined.
private struct NoSuchPage: PageContext {
    static let template = "nope"
    func child(named name: String) -> Any? { nil }
}
