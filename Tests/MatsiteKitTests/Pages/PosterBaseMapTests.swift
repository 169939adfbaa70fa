import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// The base map tiles the index page draws under a poster: which, where, and only what a
/// page can fill in.
@Suite("Poster base map")
struct PosterBaseMapTests {
    /// The manifest of one animation over `bbox` at `zoom`, with `baseMap` as the site's `base_map:`.
    func manifest(baseMap: String, bbox: String = "[-10.0, 40.0, 10.0, 52.0]", zoom: Int = 5) throws -> AnimationManifest {
        let site = try TestSite()
        defer { site.remove() }
        let yaml = site.yaml(
            """
              - id: loop
                bbox: \(bbox)
                zoom: \(zoom)
                source: { demo: radar }
                frames: { count: 1 }
            """
        ).replacingOccurrences(of: "title: Test site", with: "title: Test site\nbase_map: \(baseMap)")
        let config = try site.config(yaml)
        let animation = config.animations[0]
        let window = WebMercator.window(of: animation.bbox, zoom: zoom, tileSize: 256)
        let layout = FrameLayout(width: window.width, height: window.height, originX: window.x, originY: window.y, shift: 0, tileSize: 256)
        return AnimationManifest(animation: animation, layout: layout, frames: [], site: config)
    }

    /// The tiles together cover the frame, each is a square of one size, and none lies wholly outside.
    func expectCovers(_ map: PosterBaseMap, _ manifest: AnimationManifest) {
        let (w, h) = (Double(manifest.width), Double(manifest.height))
        #expect(map.tiles.map(\.x).min()! <= 0 && map.tiles.map(\.y).min()! <= 0)
        #expect(map.tiles.map { $0.x + $0.size }.max()! >= w && map.tiles.map { $0.y + $0.size }.max()! >= h)
        #expect(Set(map.tiles.map(\.size)).count == 1)
        #expect(map.tiles.allSatisfy { $0.x < w && $0.y < h && $0.x + $0.size > 0 && $0.y + $0.size > 0 })
    }

    @Test("the demo base map: its own tiles below the site root, at a zoom it has, covering the box")
    func demo() throws {
        let manifest = try manifest(baseMap: "{ demo: true }")
        let map = try #require(PosterBaseMap(manifest))
        expectCovers(map, manifest)
        for tile in map.tiles {
            let parts = tile.url.split(separator: "/")
            #expect(tile.url.hasPrefix(DemoBaseMap.folder + "/") && parts.count == 5 && tile.url.hasSuffix(".png"), "\(tile.url)")
            #expect(Int(parts[2])! <= DemoBaseMap.maxZoom)
        }
    }

    @Test("a provider's template: a zoom where the box is about the poster's size, subdomains filled in")
    func provider() throws {
        let manifest = try manifest(
            baseMap: "{ url: \"https://{s}.tiles.example.org/{z}/{x}/{y}.png\", subdomains: [a, b], max_zoom: 18, attribution: \"© Example\" }",
            zoom: 8)
        let map = try #require(PosterBaseMap(manifest))
        expectCovers(map, manifest)
        // 3641 px wide at zoom 8: 455 px at zoom 5, the deepest at most 640 px; a tile is 8 x 256 frame pixels.
        #expect(map.tiles.allSatisfy { $0.url.contains("/5/") && $0.size == 2048 }, "\(map.tiles)")
        #expect(map.tiles.count <= 12)
        #expect(map.tiles.allSatisfy { $0.url.hasPrefix("https://a.tiles") || $0.url.hasPrefix("https://b.tiles") })
        #expect(map.tiles.allSatisfy { !$0.url.contains("{") })
        #expect(map.attributionHTML == "© Example")
    }

    @Test("a box across the antimeridian wraps its tile columns into the world")
    func antimeridian() throws {
        let manifest = try manifest(baseMap: "{ demo: true }", bbox: "[170.0, -50.0, -170.0, -30.0]", zoom: 4)
        let map = try #require(PosterBaseMap(manifest))
        expectCovers(map, manifest)
        let columns = Set(map.tiles.map { Int($0.url.split(separator: "/")[3])! })
        let zoom = Int(map.tiles[0].url.split(separator: "/")[2])!
        #expect(columns.allSatisfy { $0 >= 0 && $0 < 1 << zoom } && columns.contains(0), "\(columns)")
    }

    @Test("a TMS template gets the TMS row")
    func tms() throws {
        let map = try #require(PosterBaseMap(try manifest(baseMap: "{ url: \"https://tiles.example.org/{z}/{x}/{-y}.png\" }")))
        // https: / tiles.example.org / z / x / tmsRow.png
        let zoom = Int(map.tiles[0].url.split(separator: "/")[2])!
        let rows = Set(map.tiles.map { (1 << zoom) - 1 - Int($0.url.split(separator: "/")[4].dropLast(4))! })
        // XYZ rows counted from the top: the box (40° to 52° N) lies in the northern half.
        #expect(rows.allSatisfy { $0 < 1 << (zoom - 1) }, "\(rows)")
    }

    @Test("no base map, or a template with placeholders a page cannot fill: no tiles")
    func none() throws {
        var odd = try manifest(baseMap: "{ demo: true }")
        odd.baseMap?.url = "https://tiles.example.org/{z}/{x}/{y}.png?key={apikey}"
        #expect(PosterBaseMap(odd) == nil)
        var bare = try manifest(baseMap: "{ demo: true }")
        bare.baseMap = nil
        #expect(PosterBaseMap(bare) == nil)
    }

    @Test("attribute numbers: whole when whole, two decimals at most")
    func numbers() {
        #expect(PosterBaseMap.Tile.number(512) == "512" && PosterBaseMap.Tile.number(-93.456) == "-93.46")
    }
}
