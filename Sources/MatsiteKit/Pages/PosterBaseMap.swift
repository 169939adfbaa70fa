import Foundation
import Mustache

/// The base map tiles under an animation's box, placed in the frame's own pixels: the index
/// page draws them under the poster in an `<svg>` (attributes, not styles, so the strict
/// CSP holds). The viewer's browser fetches them, as the player would: the build never
/// does (`base_map` is the viewer's, and some providers forbid bulk downloads).
struct PosterBaseMap: Sendable, Equatable {
    /// One tile: its URL (relative to the site root or absolute) and where it lies, in frame pixels.
    struct Tile: Sendable, Equatable, MustacheParent {
        var url: String
        var x: Double
        var y: Double
        var size: Double

        func child(named name: String) -> Any? {
            switch name {
            case "url": url
            case "x": Self.number(x)
            case "y": Self.number(y)
            case "size": Self.number(size)
            default: nil
            }
        }

        /// Two decimals at most, no trailing zeros: SVG attribute text.
        static func number(_ value: Double) -> String {
            let rounded = (value * 100).rounded() / 100
            return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        }
    }

    var tiles: [Tile]
    /// The base map's attribution, safe HTML.
    var attributionHTML: String

    /// The box at the chosen base map zoom spans at most this many pixels: a handful of
    /// tiles, about the poster's own size.
    static let targetEdge = 640.0

    /// The tiles for `manifest`'s box, or nil when it has no base map (or a URL template
    /// with placeholders a page cannot fill).
    init?(_ manifest: AnimationManifest) {
        guard let base = manifest.baseMap else { return nil }
        // The demo map's URL is relative to an animation's folder; the index is one folder up.
        let text = base.url.hasPrefix("../") ? String(base.url.dropFirst(3)) : base.url
        // What `base_map.url` accepts ({z}, {x}, {y}, {-y}, {s}); anything else a page cannot fill.
        guard let template = try? TileTemplate(text), template.addressesTiles, template.placeholders.isDisjoint(with: [.time, .frame]) else {
            return nil
        }
        let window = WebMercator.window(of: manifest.bounds, zoom: manifest.zoom, tileSize: manifest.tileSize)
        let frameWorld = WebMercator.worldSize(zoom: manifest.zoom, tileSize: manifest.tileSize)
        let edge = Double(max(manifest.width, manifest.height, 1))
        // The deepest zoom at which the box fits the target, within what the server has.
        var zoom = 0
        while zoom < min(base.maxNativeZoom, 22), edge * WebMercator.worldSize(zoom: zoom + 1, tileSize: 256) / frameWorld <= Self.targetEdge {
            zoom += 1
        }
        let size = frameWorld / WebMercator.worldSize(zoom: zoom, tileSize: 256) * 256
        let count = 1 << zoom
        let columns = Int((Double(window.x) / size).rounded(.down))...Int((Double(window.x + window.width - 1) / size).rounded(.down))
        let rows = max(0, Int((Double(window.y) / size).rounded(.down)))...min(count - 1, Int((Double(window.y + window.height - 1) / size).rounded(.down)))
        var tiles: [Tile] = []
        for row in rows {
            for column in columns {
                let wrapped = ((column % count) + count) % count
                // Leaflet's own default when the config names none.
                let subdomains = base.subdomains.isEmpty ? ["a", "b", "c"] : base.subdomains
                let url = template.expand(
                    z: zoom, x: wrapped, y: row, subdomain: subdomains[(wrapped + row) % subdomains.count], time: nil, frame: nil)
                tiles.append(Tile(url: url, x: Double(column) * size - Double(window.x), y: Double(row) * size - Double(window.y), size: size))
            }
        }
        self.tiles = tiles
        attributionHTML = base.attributionHtml
    }
}
