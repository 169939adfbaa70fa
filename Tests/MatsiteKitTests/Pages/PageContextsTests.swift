import Testing

@testable import MatsiteKit

/// Each template's typed context answers exactly the keys docs/player.md lists for it.
@Suite("Page contexts")
struct PageContextsTests {
    static let page = AnimationPageValues(
        siteTitle: "Loops", title: "Radar", id: "radar", generator: "matsite test", width: 400, height: 200,
        assets: ["player_js": "../assets/player.1234.js"], poster: "poster.png", address: SiteAddress("/"))
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

    @Test("with an absolute base_url the share tags are whole URLs; with a relative one og:url is absent")
    func shareTags() {
        var page = Self.page
        page.poster = "poster.jpg"
        page.address = SiteAddress("https://example.org/maps")
        let context = PlayerPageContext(page: page, downloads: Self.downloads)
        #expect(context.child(named: "og_image") as? String == "https://example.org/maps/radar/poster.jpg")
        #expect(context.child(named: "og_url") as? String == "https://example.org/maps/radar/index.html")
        #expect(context.child(named: "og_video") as? String == "https://example.org/maps/radar/loop-ab.mp4")
        #expect(context.child(named: "twitter_card") as? String == "summary_large_image")
        #expect(context.child(named: "poster_url") as? String == "poster.jpg")
        let relative = PlayerPageContext(page: Self.page, downloads: Self.downloads)
        #expect(relative.child(named: "og_image") as? String == "poster.png" && relative.child(named: "og_url") == nil)
        #expect(relative.child(named: "og_video") as? String == "loop-ab.mp4")
    }

    @Test(
        "only http(s) URLs with a host are absolute base URLs",
        arguments: [
            ("https://example.org", "https://example.org/"), ("HTTP://example.org/maps/", "HTTP://example.org/maps/"),
            ("/", nil), ("/maps/", nil), ("//example.org/", nil), ("example.org/maps", nil), ("https://", nil),
        ])
    func absoluteBase(baseURL: String, base: String?) {
        #expect(SiteAddress(baseURL).base == base)
        #expect(SiteAddress.isAbsolute(baseURL) == (base != nil))
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
            id: "radar", title: "Radar", frameCount: 12, width: 400, height: 200, poster: "poster.png", baseMap: nil,
            iframeSnippet: "<iframe>", downloads: [], firstTime: nil, lastTime: nil)
        #expect(entry.child(named: "page") as? String == "radar/index.html" && entry.child(named: "embed") as? String == "radar/embed.html")
        #expect(entry.child(named: "poster") as? String == "radar/poster.png" && entry.child(named: "frame_count") as? Int == 12)
        #expect(entry.child(named: "first_time") == nil && entry.child(named: "exports") == nil)
        #expect(entry.child(named: "base_tiles") == nil && entry.child(named: "time_zone") == nil)
    }

    @Test("an index entry's times read in UTC for readers without JavaScript")
    func utcWords() {
        let entry = IndexEntry(
            id: "radar", title: "Radar", frameCount: 2, width: 400, height: 200, poster: "poster.webp", baseMap: nil,
            iframeSnippet: "", downloads: [], firstTime: "2026-11-25T11:10:00Z", lastTime: "2026-11-25T12:10:00Z", timeZone: "Asia/Tokyo")
        #expect(entry.child(named: "first_time_text") as? String == "2026-11-25 11:10 UTC")
        #expect(entry.child(named: "last_time_text") as? String == "2026-11-25 12:10 UTC")
        #expect(entry.child(named: "poster") as? String == "radar/poster.webp" && entry.child(named: "time_zone") as? String == "Asia/Tokyo")
    }

    static func entry(_ forecast: ForecastSpan?) -> IndexEntry {
        IndexEntry(
            id: "radar", title: "Radar", frameCount: 10, width: 400, height: 200, poster: "poster.png", baseMap: nil,
            iframeSnippet: "", downloads: [], firstTime: "2026-11-28T11:05:00Z", lastTime: "2026-11-28T13:05:00Z", forecast: forecast)
    }

    /// The index card's line of times, tags and all, as the default template writes it.
    static func metaLine(_ entry: IndexEntry) throws -> Substring {
        let html = try PageRenderer(overrides: nil).render(
            IndexPageContext(siteTitle: "Loops", generator: "", assets: [:], animations: [entry]))
        let start = try #require(html.range(of: "<p class=\"matsite-card-meta\">"))
        let end = try #require(html[start.upperBound...].range(of: "</p>"))
        return html[start.upperBound..<end.lowerBound]
    }

    @Test("a timeline's forecast span: the newest observed frame, the last forecast, their run; none without forecasts")
    func forecastSpan() {
        let frames: [(time: String?, kind: String?, run: String?)] = [
            ("2026-11-28T11:55:00Z", nil, nil), ("2026-11-28T12:05:00Z", nil, nil),
            ("2026-11-28T12:15:00Z", "forecast", "2026-11-28T11:00:00Z"), ("2026-11-28T13:05:00Z", "forecast", "2026-11-28T11:00:00Z"),
        ]
        #expect(
            ForecastSpan(frames)
                == ForecastSpan(observedTo: "2026-11-28T12:05:00Z", forecastTo: "2026-11-28T13:05:00Z", run: "2026-11-28T11:00:00Z"))
        #expect(ForecastSpan(Array(frames.prefix(2))) == nil)
        let allForecasts: [(time: String?, kind: String?, run: String?)] = frames.map { ($0.time, "forecast", nil) }
        #expect(ForecastSpan(allForecasts) == ForecastSpan(observedTo: nil, forecastTo: "2026-11-28T13:05:00Z", run: nil))
    }

    @Test("the index says per loop where the observed frames end, where the forecast ends, and its run")
    func indexForecastLine() throws {
        let span = ForecastSpan(observedTo: "2026-11-28T12:05:00Z", forecastTo: "2026-11-28T13:05:00Z", run: "2026-11-28T11:00:00Z")
        #expect(
            try Self.metaLine(Self.entry(span))
                == "<span class=\"matsite-nowrap\">10 frames</span>, "
                + "observed <time datetime=\"2026-11-28T11:05:00Z\">2026-11-28 11:05 UTC</time> "
                + "to <time datetime=\"2026-11-28T12:05:00Z\">2026-11-28 12:05 UTC</time>, "
                + "forecast to <time datetime=\"2026-11-28T13:05:00Z\">2026-11-28 13:05 UTC</time> "
                + "(run <time datetime=\"2026-11-28T11:00:00Z\">2026-11-28 11:00 UTC</time>)")
        // No observed frame, no run: the forecast from its first frame, no parentheses.
        #expect(
            try Self.metaLine(Self.entry(ForecastSpan(observedTo: nil, forecastTo: "2026-11-28T13:05:00Z", run: nil)))
                == "<span class=\"matsite-nowrap\">10 frames</span>, "
                + "forecast <time datetime=\"2026-11-28T11:05:00Z\">2026-11-28 11:05 UTC</time> "
                + "to <time datetime=\"2026-11-28T13:05:00Z\">2026-11-28 13:05 UTC</time>")
        // Without forecasts, the line reads as before.
        #expect(
            try Self.metaLine(Self.entry(nil))
                == "<span class=\"matsite-nowrap\">10 frames</span>, "
                + "<time datetime=\"2026-11-28T11:05:00Z\">2026-11-28 11:05 UTC</time> "
                + "to <time datetime=\"2026-11-28T13:05:00Z\">2026-11-28 13:05 UTC</time>")
    }
}
