import MatsiteCapabilities
import Yams

/// An animation's `layers:` and the timeline they are shown on.
extension ConfigLoader {
    static let layerKeys = ["id", "title", "max_age"] + feedKeys

    /// A layered animation's own part: its timeline (`frames:`) and attribution; the feed's
    /// other keys belong to each layer.
    static func layered(
        _ f: Fields, timeline framesNode: Node, id: String, bbox: BoundingBox, zoom: Int, _ r: inout YAMLReader
    ) throws -> AnimationConfig {
        for key in feedKeys where key != "frames" && key != "attribution" {
            guard let n = f[key] else { continue }
            throw r.error(
                n, f.path(key),
                key == "source"
                    ? "give either source or layers, not both: with layers, each layer has its own source"
                    : "is a layer's key when the animation has layers: give it on each layer that needs it")
        }
        let timeline = try self.timeline(framesNode, f.path("frames"), &r)
        var animation = AnimationConfig(id: id, title: id, bbox: bbox, zoom: zoom, source: SourceConfig(kind: .perFrame), frames: timeline)
        if let n = f["attribution"] { animation.attribution = try r.string(n, f.path("attribution")) }
        return animation
    }

    /// The timeline: times of their own (`times`, `range`, or `last` with `step`), which the
    /// layers' frames are placed on.
    static func timeline(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> FramesConfig {
        var none = SourceConfig(kind: .perFrame)
        let frames = try self.frames(node, path, source: &none, &r)
        switch frames {
        case .times, .range, .rolling: return frames
        case .count, .templates, .latest, .index:
            throw r.error(
                node, path,
                "with layers, frames is the timeline: give times, range, or last with step (count, templates, latest and index are a layer's frames: give them on the layer)"
            )
        }
    }

    /// `layers:`, bottom to top.
    static func layers(
        _ node: Node, _ path: String, animation: AnimationConfig, config: SiteConfig, nodes: (bbox: Node, zoom: Node), _ r: inout YAMLReader
    ) throws -> [LayerConfig] {
        let items = try r.list(node, path)
        guard !items.isEmpty else { throw r.error(node, path, "must list at least one layer (or give the animation a source instead)") }
        var layers: [LayerConfig] = []
        var seen: [String: Int] = [:]
        for (position, (item, itemPath)) in items.enumerated() {
            let f = try r.fields(item, itemPath, allowed: layerKeys)
            guard let idNode = f["id"] else { throw r.error(item, f.path("id"), "missing (required for every layer: it names the layer's folder)") }
            let id = try slug(idNode, f.path("id"), what: "folder name", &r)
            guard !LayerConfig.reservedIDs.contains(id) else {
                throw r.error(
                    idNode, f.path("id"),
                    "\"\(id)\" is taken by the animation's own folder of that name: choose another id (not \(LayerConfig.reservedIDs.sorted().joined(separator: ", ")))"
                )
            }
            if let first = seen[id] { throw r.error(idNode, f.path("id"), "duplicate layer id \"\(id)\" (also \(path)[\(first)])") }
            seen[id] = position
            guard let sourceNode = f["source"] else { throw r.error(item, f.path("source"), "missing: every layer needs its source") }
            let feed = try self.feed(f, sourceNode: sourceNode, framesNode: f["frames"], timeline: animation.frames, &r)
            switch feed.frames {
            case .count, .templates:
                throw r.error(
                    f["frames"], f.path("frames"),
                    "a layer's frames need times to be placed on the timeline: give times, range, last, latest or index, or leave frames out to use the timeline's"
                )
            default: break
            }
            var layer = LayerConfig(id: id, title: id, feed: feed)
            layer.line = item.mark?.line
            layer.position = position
            if let n = f["title"] { layer.title = try r.string(n, f.path("title")) }
            if let n = f["max_age"] { layer.maxAge = try duration(n, f.path("max_age"), r: &r) }
            try checkSize(
                animation.layerConfig(layer), config: config, nodes: (bbox: nodes.bbox, zoom: nodes.zoom, frames: f["frames"] ?? item),
                path: itemPath, r)
            layers.append(layer)
        }
        return layers
    }
}
