import Foundation
import Testing

@testable import MatsiteKit

@Suite("SiteConfig")
struct SiteConfigTests {
    static let minimal = """
        animations:
          - id: a
            bbox: [1, 1, 2, 2]
            zoom: 3
            source: { url: "https://tiles.example.org/{z}/{x}/{y}.png" }
            frames: { count: 1 }
        """

    @Test("SiteConfig() holds the same defaults an almost-empty config yields, key by key")
    func defaultsMatchParsing() throws {
        let parsed = try ConfigLoader.parse(Data(Self.minimal.utf8), file: "m.yml")
        let fresh = SiteConfig()
        #expect(parsed.title == fresh.title)
        #expect(parsed.baseURL == fresh.baseURL)
        #expect(parsed.output == fresh.output)
        #expect(parsed.cache == fresh.cache)
        #expect(parsed.templates == fresh.templates)
        #expect(parsed.leaflet == fresh.leaflet)
        #expect(parsed.baseMap == fresh.baseMap)
        #expect(parsed.http == fresh.http)
        #expect(parsed.limits == fresh.limits)
        #expect(parsed.embed == fresh.embed)
        #expect(parsed.deadlineSeconds == fresh.deadlineSeconds)
    }

    @Test("the defaults are the contract's: site/, .matsite-cache, 6 per host, 4 retries, 16384 px, a User-Agent naming matsite")
    func contractDefaults() {
        let config = SiteConfig()
        #expect(config.output == "site")
        #expect(config.baseURL == "/")
        #expect(config.cache.path == ".matsite-cache")
        #expect(config.leaflet == "/usr/share/javascript/leaflet")
        #expect(config.http.concurrency == 6)
        #expect(config.http.retries == 4)
        #expect(config.http.timeoutSeconds == 30)
        #expect(config.http.userAgent.hasPrefix("matsite/\(Matsite.version)"))
        #expect(config.limits.maxFrameWidth == 16384 && config.limits.maxFrameHeight == 16384)
        #expect(config.animations.isEmpty)
    }

    @Test("an animation that sets only the required keys gets the documented defaults")
    func animationDefaults() throws {
        let animation = try ConfigLoader.parse(Data(Self.minimal.utf8), file: "m.yml").animations[0]
        #expect(animation.title == "a")
        #expect(animation.frameDurationMs == 500)
        #expect(animation.lastFrameDurationMs == nil)
        #expect(animation.crossfadeMs == 250)
        #expect(animation.missing == .fail)
        #expect(animation.attribution == "")
        #expect(animation.timeFormat.pattern == "%Y-%m-%dT%H:%M:%SZ")
        #expect(animation.source.scheme == .xyz)
        #expect(animation.source.tileSize == 256)
        #expect(animation.source.maxZoom == nil)
        #expect(animation.source.subdomains.isEmpty)
        #expect(animation.loop)
        #expect(animation.line == 2)
    }

    @Test("every key the contract shows is read into the config")
    func everyKey() throws {
        let yaml = """
            title: Weather loops
            base_url: /loops/
            output: public
            cache: .tiles
            templates: my-templates
            base_map:
              url: https://{s}.tile.example.org/{z}/{x}/{y}.png
              subdomains: [a, b]
              attribution: "© Example"
              max_zoom: 17
            http:
              user_agent: "my-radar-site/1.0 (contact@example.org)"
              concurrency: 3
              timeout_s: 12
              retries: 1
              headers: { Referer: "https://example.org/" }
            animations:
              - id: radar
                title: Radar, last two hours
                bbox: [-95.5, 29.0, -74.5, 43.5]
                zoom: 7
                frame_duration_ms: 400
                last_frame_duration_ms: 1500
                crossfade_ms: 100
                missing: transparent
                attribution: "Radar: example"
                source:
                  url: https://{s}.example.org/radar/{time}/{z}/{x}/{y}.png
                  subdomains: [a, b, c]
                  scheme: tms
                  max_zoom: 6
                  tile_size: 512
                frames:
                  times: [2026-11-21T10:00:00Z, 2026-11-21T10:10:00Z]
                time_format: "%Y%m%d%H%M"
            """
        let config = try ConfigLoader.parse(Data(yaml.utf8), file: "all.yml")
        #expect(config.title == "Weather loops" && config.baseURL == "/loops/" && config.output == "public")
        #expect(config.cache.path == ".tiles" && config.templates == "my-templates")
        #expect(config.baseMap?.url == "https://{s}.tile.example.org/{z}/{x}/{y}.png")
        #expect(config.baseMap?.subdomains == ["a", "b"] && config.baseMap?.maxZoom == 17)
        #expect(config.http.userAgent == "my-radar-site/1.0 (contact@example.org)")
        #expect(config.http.concurrency == 3 && config.http.timeoutSeconds == 12 && config.http.retries == 1)
        #expect(config.http.headers == ["Referer": "https://example.org/"])
        let a = config.animations[0]
        #expect(a.title == "Radar, last two hours" && a.zoom == 7)
        #expect(a.bbox == BoundingBox(west: -95.5, south: 29, east: -74.5, north: 43.5))
        #expect(a.frameDurationMs == 400 && a.lastFrameDurationMs == 1500 && a.crossfadeMs == 100)
        #expect(a.missing == .transparent && a.attribution == "Radar: example")
        #expect(a.source.subdomains == ["a", "b", "c"] && a.source.scheme == .tms)
        #expect(a.source.maxZoom == 6 && a.source.tileSize == 512)
        #expect(a.timeFormat.pattern == "%Y%m%d%H%M")
        guard case .url(let url) = a.source.kind else { Issue.record("not a url source"); return }
        #expect(url.text == "https://{s}.example.org/radar/{time}/{z}/{x}/{y}.png" && url.host == "{s}.example.org")
        guard case .times(let times) = a.frames else { Issue.record("not times"); return }
        #expect(times.map(\.millisecondsSinceEpoch) == [1_795_255_200_000, 1_795_255_800_000])
    }
}
