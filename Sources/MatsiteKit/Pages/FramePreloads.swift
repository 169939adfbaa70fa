import Mustache

/// An image an animation's page asks the browser for as it reads the page, before the
/// player's scripts have arrived (`<link rel="preload" as="fetch">`, `frame_preloads` in
/// docs/player.md "Template contexts"). The player's own request for it is then answered
/// from the preload: on a phone the frames download while the scripts do, instead of after
/// them.
struct FramePreload: MustacheParent, Sendable, Equatable {
    /// Relative to the page (the manifest's folder, as the frames' URLs are).
    var url: String
    /// The media query under which the player starts on this image; nil: any view.
    var media: String?

    func child(named name: String) -> Any? {
        switch name {
        case "url": url
        case "media": media
        default: nil
        }
    }
}

extension FramePreload {
    /// What a multi-level animation's page preloads: every frame's smallest background image,
    /// the one the player loads first whatever the view (docs/player.md "Multi-level frames").
    /// Without halvings of the coarsest level, that is the coarsest image, needed by every view.
    /// With them, the smallest halving is what a view narrower (or lower) than its box at the
    /// next zoom starts on, a phone's; a view between that and the tiles' zooms starts on a
    /// finer halving, so the preload is limited to the screens whose viewport (at least the
    /// map's size) is under that: `(max-width: ...), (max-height: ...)`. Single-image frames
    /// and layered animations preload nothing: their level follows the view in ways a media
    /// query cannot tell. In the order the player asks for them: the frame it opens on (the
    /// first on the player page, which plays; the newest on the embed page, which waits;
    /// the newest observed one with forecasts), the next, the previous, then the rest. A
    /// frame whose image a sheet holds preloads the sheet instead, once for all its frames.
    static func of(_ manifest: AnimationManifest, embed: Bool) -> [FramePreload] {
        let frames = manifest.frames
        guard manifest.pyramid != nil, !frames.isEmpty else { return [] }
        let images = frames.compactMap(\.coarsest)
        guard images.count == frames.count else { return [] }
        let firstForecast = frames.firstIndex { $0.kind == "forecast" }
        let start = firstForecast.map { max(0, $0 - 1) } ?? (embed ? frames.count - 1 : 0)
        var seen = Set<String>()
        return loadOrder(from: start, count: frames.count).compactMap { index in
            let coarsest = images[index]
            guard let smallest = coarsest.levels?.first else {
                return FramePreload(url: coarsest.sheet?.url ?? coarsest.url, media: nil).once(&seen)
            }
            return FramePreload(url: smallest.sheet?.url ?? smallest.url, media: narrowerThanNextZoom(width: smallest.width, height: smallest.height))
                .once(&seen)
        }
    }

    /// Itself the first time its URL comes (frames of one sheet share it), else nil.
    private func once(_ seen: inout Set<String>) -> FramePreload? { seen.insert(url).inserted ? self : nil }

    /// The player's order (pyramid-loader.js): `start`, the next, the previous, then the rest
    /// in playing order.
    static func loadOrder(from start: Int, count n: Int) -> [Int] {
        var order = [start, (start + 1) % n, (start + n - 1) % n]
        if n > 3 { order += (2..<(n - 1)).map { (start + $0) % n } }
        var seen = Set<Int>()
        return order.filter { seen.insert($0).inserted }
    }

    /// Viewports in which the map is less than √2 times an image of `width` x `height` (its
    /// box at that zoom, give or take the 2 pixels the image's edges were rounded out by) in
    /// one direction: the map's fitted zoom then rounds to the image's zoom, or a coarser one.
    static func narrowerThanNextZoom(width: Int, height: Int) -> String {
        func under(_ side: Int) -> Int { max(0, Int((Double(side - 2) * 2.0.squareRoot()).rounded(.down)) - 1) }
        return "(max-width: \(under(width))px), (max-height: \(under(height))px)"
    }
}
