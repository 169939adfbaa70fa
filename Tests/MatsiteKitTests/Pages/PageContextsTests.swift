import Testing

@testable import MatsiteKit

/// Each template's typed context answers exactly the keys docs/player.md lists for it.
@Suite("Page contexts")
struct PageContextsTests {
    static let page = AnimationPageValues(
        siteTitle: "Loops", title: "Radar", id: "radar", generator: "matsite test", width: 400, height: 200,
        assets: ["player_js": "../assets/player.1234.js"])
    static let downloads = [
        DownloadLink(label: "MP4", url: "loop-ab.mp4", type: "video/mp4"), DownloadLink(label: "GIF", url: "loop-cd.gif", type: "image/gif"),
    ]

    @Test("the player page has the animation, its files' URLs, its downloads and the MP4 for og:video")
    func player() {
        let context = PlayerPageContext(page: Self.page, downloads: Self.downloads)
        #expect(context.child(named: "site_title") as? String == "Loops" && context.child(named: "id") as? String == "radar")
        #expect(context.child(named: "width") as? Int == 400 && context.child(named: "height") as? Int == 200)
        #expect(context.child(named: "manifest_url") as? String == "manifest.json" && context.child(named: "poster_url") as? String == "poster.png")
        #expect(context.child(named: "index_url") as? String == "../index.html" && context.child(named: "embed_url") as? String == "embed.html")
        #expect((context.child(named: "assets") as? [String: String])?["player_js"] == "../assets/player.1234.js")
        #expect(context.child(named: "is_embed") as? Bool == false)
        #expect(context.child(named: "exports") as? [DownloadLink] == Self.downloads && context.child(named: "has_exports") as? Bool == true)
        #expect(context.child(named: "og_video") as? String == "loop-ab.mp4")
        #expect(context.child(named: "no_such_key") == nil)
    }

    @Test("without exports the download keys are absent, not empty (sections test them)")
    func noDownloads() {
        let context = PlayerPageContext(page: Self.page, downloads: [])
        #expect(context.child(named: "exports") == nil && context.child(named: "has_exports") == nil && context.child(named: "og_video") == nil)
    }

    @Test("the embed page is its own context: the animation, is_embed, and no download links")
    func embed() {
        let context = EmbedPageContext(page: Self.page)
        #expect(context.child(named: "is_embed") as? Bool == true)
        #expect(context.child(named: "title") as? String == "Radar")
        #expect(context.child(named: "exports") == nil && context.child(named: "has_exports") == nil && context.child(named: "og_video") == nil)
    }

    @Test("an index entry names its pages and poster below its id; times only when the frames have them")
    func indexEntry() {
        let entry = IndexEntry(
            id: "radar", title: "Radar", frameCount: 12, width: 400, height: 200, iframeSnippet: "<iframe>", downloads: [],
            firstTime: nil, lastTime: nil)
        #expect(entry.child(named: "page") as? String == "radar/index.html" && entry.child(named: "embed") as? String == "radar/embed.html")
        #expect(entry.child(named: "poster") as? String == "radar/poster.png" && entry.child(named: "frame_count") as? Int == 12)
        #expect(entry.child(named: "first_time") == nil && entry.child(named: "exports") == nil)
    }
}
