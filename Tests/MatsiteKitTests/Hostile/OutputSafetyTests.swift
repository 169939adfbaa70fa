// Output safety: a build writes only in its output (plus its staging folder and lock
// beside it) and never reads or links through symlinks planted in the previous site;
// user strings reach pages and manifests escaped.

import Foundation
import Testing

@testable import MatsiteKit

@Suite("Output safety: nothing written outside, no symlink followed, every user string escaped")
struct OutputSafetyTests {
    /// Builds the small demo into `root/out/site` and returns the site.
    func builtSite(in root: URL, yaml: String = Hostile.demoYAML()) async throws -> (URL, SiteConfig) {
        let config = try Hostile.config(yaml, in: root)
        let site = root.appendingPathComponent("out/site")
        try await Hostile.build(config, output: site)
        return (site, config)
    }

    /// The file of the animation's first frame, as its manifest names it.
    func firstFrame(_ site: URL) throws -> URL {
        let data = try Data(contentsOf: site.appendingPathComponent("radar/manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let url = try #require((manifest["frames"] as? [[String: Any]])?.first?["url"] as? String)
        return site.appendingPathComponent("radar").appendingPathComponent(url)
    }

    func linkCount(_ url: URL) -> Int {
        var status = stat()
        return lstat(url.path, &status) == 0 ? Int(status.st_nlink) : -1
    }

    func isSymlink(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }

    @Test("a build writes nothing outside its output folder but its lock beside it")
    func writesOnlyIntoTheOutput() async throws {
        let root = try Hostile.scratch("writesonly")
        defer { Hostile.remove(root) }
        let (site, _) = try await builtSite(in: root)
        #expect(Hostile.manifestProblems(site).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["out"])
        #expect(Hostile.leftovers(beside: site).isEmpty)
    }

    @Test("a frame of the old site replaced by a symlink to an outside file is neither linked nor read")
    func symlinkedFrameIsNotFollowed() async throws {
        let root = try Hostile.scratch("symlinkframe")
        defer { Hostile.remove(root) }
        let (site, config) = try await builtSite(in: root)
        let frame = try firstFrame(site)
        let original = try Data(contentsOf: frame)
        let secret = root.appendingPathComponent("secret.png")
        try Data(Hostile.tile(seed: 99)).write(to: secret)
        let secretBytes = try Data(contentsOf: secret)
        try FileManager.default.removeItem(at: frame)
        try FileManager.default.createSymbolicLink(at: frame, withDestinationURL: secret)

        try await Hostile.build(config, output: site)

        let rebuilt = try firstFrame(site)
        #expect(!isSymlink(rebuilt))
        #expect(try Data(contentsOf: rebuilt) == original)
        #expect(try Data(contentsOf: secret) == secretBytes)
        #expect(linkCount(secret) == 1, "the outside file was hard-linked into the site")
        #expect(Hostile.manifestProblems(site).isEmpty)
    }

    @Test("an old site whose frames folder is a symlink to outside files is not linked through")
    func symlinkedFramesFolderIsNotFollowed() async throws {
        let root = try Hostile.scratch("symlinkfolder")
        defer { Hostile.remove(root) }
        let (site, config) = try await builtSite(in: root)
        let frames = site.appendingPathComponent("radar/frames")
        let outside = root.appendingPathComponent("outside-frames")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        // Same names, other bytes: what a planted link would smuggle into the next site.
        for name in try FileManager.default.contentsOfDirectory(atPath: frames.path) {
            try Data(Hostile.tile(seed: 7)).write(to: outside.appendingPathComponent(name))
        }
        try FileManager.default.removeItem(at: frames)
        try FileManager.default.createSymbolicLink(at: frames, withDestinationURL: outside)

        try await Hostile.build(config, output: site)

        #expect(!isSymlink(site.appendingPathComponent("radar/frames")))
        let names = try FileManager.default.contentsOfDirectory(atPath: outside.path)
        let problems = Hostile.manifestProblems(site)
        for name in names {
            #expect(linkCount(outside.appendingPathComponent(name)) == 1, "\(name) was hard-linked into the site")
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("an old poster replaced by a symlink to an outside file is not copied into the new site")
    func symlinkedPosterIsNotRead() async throws {
        let root = try Hostile.scratch("symlinkposter")
        defer { Hostile.remove(root) }
        let (site, config) = try await builtSite(in: root)
        let poster = site.appendingPathComponent("radar/poster.png")
        let secret = root.appendingPathComponent("secret.png")
        try Data(Hostile.tile(seed: 42)).write(to: secret)
        try FileManager.default.removeItem(at: poster)
        try FileManager.default.createSymbolicLink(at: poster, withDestinationURL: secret)

        try await Hostile.build(config, output: site)

        #expect(!isSymlink(poster))
        let published = try Data(contentsOf: poster), outside = try Data(contentsOf: secret)
        #expect(published != outside, "the outside file became the poster")
        #expect(Hostile.manifestProblems(site).isEmpty)
    }

    @Test("a hostile title and attribution render as text in pages and round-trip exactly in manifests")
    func userStringsAreEscaped() async throws {
        let root = try Hostile.scratch("escape")
        defer { Hostile.remove(root) }
        let title = "</script><script>alert(1)</script> \"quoted\" 'single' & <b>bold</b>"
        let attribution =
            "\"><img src=x onerror=alert(1)> <a href=\"javascript:alert(2)\">js</a> <a href=\"https://example.org/\" onclick=\"alert(3)\">click</a> <a href=\"https://example.org/a\">ok</a>"
        let (site, _) = try await builtSite(in: root, yaml: Hostile.demoYAML(title: title, attribution: attribution))

        for page in ["index.html", "radar/index.html", "radar/embed.html"] {
            let html = try String(contentsOf: site.appendingPathComponent(page), encoding: .utf8)
            #expect(!html.contains("<script>alert(1)"), "\(page) carries the title's script unescaped")
            #expect(!html.contains("</script><script>"), "\(page) lets the title close a script element")
            #expect(!html.contains("<b>bold</b>"), "\(page) renders the title's markup")
            #expect(!html.contains("<img src=x"), "\(page) renders the attribution's img")
            #expect(!html.lowercased().contains("href=\"javascript:"), "\(page) links to javascript:")
            #expect(!html.contains("onclick=\"alert"), "\(page) keeps an event handler")
            #expect(!html.contains("onerror=alert"), "\(page) keeps an event handler")
        }
        let index = try JSONSerialization.jsonObject(with: Data(contentsOf: site.appendingPathComponent("manifest.json"))) as? [String: Any]
        #expect(index?["title"] as? String == title)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: site.appendingPathComponent("radar/manifest.json"))) as? [String: Any]
        #expect(manifest?["title"] as? String == title)
        #expect(manifest?["attribution"] as? String == attribution)
        let html = try #require(manifest?["attribution_html"] as? String)
        // Hostile markup survives only as escaped text.
        #expect(!html.contains("<img"))
        #expect(!html.contains("href=\"javascript"))
        #expect(!html.contains("onclick=\""))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("<a href=\"https://example.org/a\" rel=\"noopener noreferrer\""))
    }
}
