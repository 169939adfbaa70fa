import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// The pages and the site index written around the animations' manifests.
@Suite("Site pages")
struct SitePagesTests {
    /// Writes the pages of one animation (`width` x `height` frames, two timed frames)
    /// into a fresh folder; returns the folder.
    func write(title: String, baseURL: String, width: Int = 400, height: Int = 200) throws -> (TestSite, URL) {
        let (site, root, _, _) = try prepare(title: title, baseURL: baseURL, width: width, height: height)
        return (site, root)
    }

    func prepare(title: String, baseURL: String, width: Int, height: Int) throws -> (TestSite, URL, SitePages, AnimationManifest) {
        let site = try TestSite()
        let yaml = site.yaml(
            """
              - id: loop
                title: "\(title)"
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 3
                source: { demo: radar }
                frames: { count: 2 }
            """
        ).replacingOccurrences(of: "title: Test site", with: "title: Site and co\nbase_url: \(baseURL)")
        let config = try site.config(yaml)
        let layout = FrameLayout(width: width, height: height, originX: 0, originY: 0, shift: 0, tileSize: 256)
        let frames = (0..<2).map {
            PublishedFrame(
                index: $0, time: TimeFormat.instant("2026-11-21T10:0\($0):00Z"), durationMs: 500, file: "frames/\($0).png",
                bytes: 1, sha256: "00", inputHash: "00")
        }
        let manifest = AnimationManifest(animation: config.animations[0], layout: layout, frames: frames, site: config)
        let root = site.root.appendingPathComponent("staged")
        let writer = SiteWriter(root: root, previous: PreviousSite(output: site.output))
        let assets = SiteAssets(urls: [
            "player_js": "assets/player.1234.js", "player_bundle_js": "assets/player-bundle.5678.js", "player_css": "assets/player.1234.css",
        ])
        let pages = SitePages(config: config, pages: try PageRenderer(overrides: nil), assets: assets)
        try pages.write([manifest], with: writer)
        return (site, root, pages, manifest)
    }

    func text(_ root: URL, _ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("each animation gets a player page and an embed page; the index lists it with its times")
    func pagesAndIndex() throws {
        let (site, root) = try write(title: "Radar", baseURL: "/")
        defer { site.remove() }
        let player = try text(root, "loop/index.html"), embed = try text(root, "loop/embed.html")
        #expect(player.contains("../assets/player-bundle.5678.js") && embed.contains("../assets/player-bundle.5678.js"))
        #expect(player != embed)
        let index = try text(root, "index.html")
        #expect(index.contains("href=\"loop/index.html\"") && index.contains("loop/poster.png"))
        #expect(index.contains("2 frames") && index.contains("2026-11-21T10:00:00Z") && index.contains("2026-11-21T10:01:00Z"))
        #expect(index.contains("assets/player.1234.css") && !index.contains("../assets/"))
    }

    @Test("the index says per loop where its observed frames end, where its forecast ends and the run")
    func indexForecast() throws {
        let (site, _, pages, published) = try prepare(title: "Radar", baseURL: "/", width: 400, height: 200)
        defer { site.remove() }
        var manifest = published
        manifest.now = "2026-11-21T10:00:30Z"
        manifest.frames[1].kind = "forecast"
        manifest.frames[1].run = "2026-11-21T09:00:00Z"
        let root = site.root.appendingPathComponent("forecast")
        try pages.write([manifest], with: SiteWriter(root: root, previous: PreviousSite(output: site.output)))
        let index = try text(root, "index.html")
        #expect(
            index.contains(
                "2 frames</span>, observed <time datetime=\"2026-11-21T10:00:00Z\">2026-11-21 10:00 UTC</time> "
                    + "to <time datetime=\"2026-11-21T10:00:00Z\">2026-11-21 10:00 UTC</time>, "
                    + "forecast to <time datetime=\"2026-11-21T10:01:00Z\">2026-11-21 10:01 UTC</time> "
                    + "(run <time datetime=\"2026-11-21T09:00:00Z\">2026-11-21 09:00 UTC</time>)</p>"), "\(index)")
    }

    @Test("the site manifest lists each animation's page, embed, manifest and poster")
    func siteManifest() throws {
        let (site, root) = try write(title: "Radar", baseURL: "/")
        defer { site.remove() }
        let manifest = try JSONDecoder.manifest.decode(SiteManifest.self, from: Data(contentsOf: root.appendingPathComponent("manifest.json")))
        #expect(manifest.title == "Site and co" && manifest.generator == "matsite \(Matsite.version)")
        #expect(
            manifest.animations == [
                .init(
                    id: "loop", title: "Radar", page: "loop/index.html", embed: "loop/embed.html",
                    manifest: "loop/manifest.json", poster: "loop/poster.png")
            ])
    }

    @Test("the embed code fills its column at the frames' aspect ratio plus the bar, points under base_url and escapes the title")
    func embedCode() throws {
        let (site, root, _, manifest) = try prepare(title: "Rain <b>now</b>", baseURL: "https://example.org/loops", width: 400, height: 200)
        defer { site.remove() }
        // 50% of the width for the frames, and the bar: 104 px above 768 px wide, 125 px up to it.
        let code = SitePages.embedCode(manifest, address: SiteAddress("https://example.org/loops"), baseURL: "https://example.org/loops")
        #expect(
            code
                == "<div style=\"position:relative;width:100%;height:0;padding-bottom:calc(50% + 104px + clamp(0px, (768.5px - 100%) * 1000, 21px))\">"
                + "<iframe src=\"https://example.org/loops/loop/embed.html\" title=\"Rain &lt;b&gt;now&lt;/b&gt;\" "
                + "style=\"position:absolute;top:0;left:0;width:100%;height:100%;border:0\" loading=\"lazy\" allowfullscreen></iframe></div>")
        let index = try text(root, "index.html")
        #expect(index.contains("&lt;iframe src=&quot;https://example.org/loops/loop/embed.html&quot;"), "\(index)")
        #expect(!index.contains("<b>now</b>"))
    }

    @Test("the player page's share tags are whole URLs under an absolute base_url")
    func shareTags() throws {
        let (site, root) = try write(title: "Radar", baseURL: "https://example.org/loops/")
        defer { site.remove() }
        let player = try text(root, "loop/index.html")
        #expect(player.contains("<meta property=\"og:image\" content=\"https://example.org/loops/loop/poster.png\">"), "\(player)")
        #expect(player.contains("<meta property=\"og:url\" content=\"https://example.org/loops/loop/index.html\">"))
        #expect(player.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"))
    }

    @Test("with a relative base_url the embed code's src stays relative and og:url is left out")
    func relativeShareTags() throws {
        let (site, root) = try write(title: "Radar", baseURL: "/maps")
        defer { site.remove() }
        let player = try text(root, "loop/index.html"), index = try text(root, "index.html")
        #expect(player.contains("<meta property=\"og:image\" content=\"poster.png\">") && !player.contains("og:url"))
        #expect(index.contains("src=&quot;/maps/loop/embed.html&quot;"))
    }

    @Test("an odd aspect ratio is a percentage with two decimals at most")
    func oddRatio() throws {
        let (site, _, _, manifest) = try prepare(title: "Radar", baseURL: "/", width: 300, height: 200)
        defer { site.remove() }
        #expect(SitePages.embedCode(manifest, address: SiteAddress("/"), baseURL: "/").contains("padding-bottom:calc(66.67% + "))
    }

    /// The pages of `manifest`, published as a pyramid whose coarsest image is 667 x 370 at
    /// zoom 4 and, with `halving`, 334 x 186 at zoom 3 too.
    func pyramidPages(
        _ published: AnimationManifest, frames count: Int, halving: Bool, site: TestSite, pages: SitePages
    ) throws -> (player: String, embed: String) {
        var manifest = published
        manifest.pyramid = .init(
            tileSize: 256, minZoom: 4, maxZoom: 5,
            levels: [.init(zoom: 4, x0: 630, y0: 1396, width: 667, height: 370), .init(zoom: 5, x0: 1260, y0: 2792, width: 1334, height: 740)])
        manifest.frames = (0..<count).map { i in
            var frame = published.frames[0]
            frame.index = i
            frame.tiles = "frames/\(i)/{z}/{x}/{y}.png"
            let halvings = [AnimationManifest.Frame.Coarsest.Image(url: "frames/\(i)/3.png", zoom: 3, x0: 315, y0: 698, width: 334, height: 186, bytes: 8000)]
            frame.coarsest = .init(url: "frames/\(i)/4.png", width: 667, height: 370, bytes: 22000, levels: halving ? halvings : nil)
            return frame
        }
        let root = site.root.appendingPathComponent("pyramid-\(halving)")
        try pages.write([manifest], with: SiteWriter(root: root, previous: PreviousSite(output: site.output)))
        return (try text(root, "loop/index.html"), try text(root, "loop/embed.html"))
    }

    func preloads(_ html: String) -> [String] {
        html.components(separatedBy: "\n").filter { $0.hasPrefix("<link rel=\"preload\"") && $0.contains("frames/") }
    }

    @Test("a multi-level animation's pages preload each frame's smallest image, in the player's order, for the screens that start on it")
    func pyramidPreloads() throws {
        let (site, _, pages, published) = try prepare(title: "Radar", baseURL: "/", width: 400, height: 200)
        defer { site.remove() }
        let halved = try pyramidPages(published, frames: 5, halving: true, site: site, pages: pages)
        // Under sqrt(2) times the 334 x 186 halving, a fitted map rounds to its zoom, 3.
        let media = " media=\"(max-width: 468px), (max-height: 259px)\">"
        #expect(
            preloads(halved.player)
                == [0, 1, 4, 2, 3].map {
                    "<link rel=\"preload\" href=\"frames/\($0)/3.png\" as=\"fetch\" crossorigin=\"anonymous\" fetchpriority=\"low\"" + media
                },
            "\(halved.player)")
        // The embed page waits on the newest frame: it comes first.
        #expect(preloads(halved.embed).map { $0.components(separatedBy: "\"")[3] } == [4, 0, 3, 1, 2].map { "frames/\($0)/3.png" })
        // Without halvings every view starts on the coarsest image: no media query.
        let whole = try pyramidPages(published, frames: 2, halving: false, site: site, pages: pages)
        #expect(
            preloads(whole.player)
                == ["frames/0/4.png", "frames/1/4.png"].map {
                    "<link rel=\"preload\" href=\"\($0)\" as=\"fetch\" crossorigin=\"anonymous\" fetchpriority=\"low\">"
                })
        // Single-image frames: the player picks their level from the view; nothing is preloaded.
        let (plain, root) = try write(title: "Radar", baseURL: "/")
        defer { plain.remove() }
        let plainPlayer = try text(root, "loop/index.html"), plainEmbed = try text(root, "loop/embed.html")
        #expect(preloads(plainPlayer).isEmpty && preloads(plainEmbed).isEmpty)
    }
}
