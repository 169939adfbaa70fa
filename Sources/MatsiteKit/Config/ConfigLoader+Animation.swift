import Foundation
import MatsiteCapabilities
import MatsiteImaging
import Yams

/// One entry of `animations`, and the checks that need the whole entry.
extension ConfigLoader {
    /// The keys of a feed (`FeedConfig`): an animation's, or each of its layers'.
    static let feedKeys = [
        "missing", "blank", "attribution", "source", "frames", "time_format", "fallback", "compression", "format", "quality", "opacity",
        "legend", "pyramid", "levels", "settle", "runs", "run_format",
    ]
    static let animationKeys =
        [
            "id", "title", "bbox", "zoom", "frame_duration_ms", "last_frame_duration_ms", "crossfade_ms", "loop", "time_zone",
            "time_label", "points", "layers",
        ] + feedKeys + exportKeys

    static func animation(_ node: Node, _ path: String, config: SiteConfig, _ r: inout YAMLReader) throws -> AnimationConfig {
        let f = try r.fields(node, path, allowed: animationKeys)
        func required(_ key: String) throws -> Node {
            guard let value = f[key] else { throw r.error(node, f.path(key), "missing (required for every animation)") }
            return value
        }
        let idNode = try required("id")
        let id = try slug(idNode, f.path("id"), what: "folder name", &r)
        let bboxNode = try required("bbox")
        let box = try bbox(bboxNode, f.path("bbox"), &r)
        let zoomNode = try required("zoom")
        let zoom = try r.int(zoomNode, f.path("zoom"), in: 0...22)
        let framesNode = try required("frames")
        var animation: AnimationConfig
        if let layersNode = f["layers"] {
            animation = try layered(f, timeline: framesNode, id: id, bbox: box, zoom: zoom, &r)
            animation.line = node.mark?.line
            // The box and zoom are the animation's: their errors name it, not a layer.
            try checkSize(animation, config: config, nodes: (bbox: bboxNode, zoom: zoomNode, frames: framesNode), path: path, r)
            animation.layers = try layers(layersNode, f.path("layers"), animation: animation, config: config, nodes: (bboxNode, zoomNode), &r)
        } else {
            guard let sourceNode = f["source"] else {
                throw r.error(node, f.path("source"), "missing: give source (where the tiles come from), or layers")
            }
            let feed = try self.feed(f, sourceNode: sourceNode, framesNode: framesNode, timeline: nil, &r)
            animation = AnimationConfig(id: id, title: id, bbox: box, zoom: zoom, source: feed.source, frames: feed.frames)
            animation.feed = feed
            animation.line = node.mark?.line
        }
        if let n = f["title"] { animation.title = try r.string(n, f.path("title")) }
        if let n = f["frame_duration_ms"] { animation.frameDurationMs = try r.int(n, f.path("frame_duration_ms"), in: 1...600_000) }
        if let n = f["last_frame_duration_ms"] {
            animation.lastFrameDurationMs = try r.int(n, f.path("last_frame_duration_ms"), in: 1...600_000)
        }
        if let n = f["crossfade_ms"] { animation.crossfadeMs = try r.int(n, f.path("crossfade_ms"), in: 0...60_000) }
        if let n = f["loop"] { animation.loop = try r.bool(n, f.path("loop")) }
        try player(f, into: &animation, &r)
        try export(f, into: &animation, &r)
        if let n = f["points"] { animation.points = try points(n, f.path("points"), &r) }
        if !animation.isLayered {
            try checkSize(animation, config: config, nodes: (bbox: bboxNode, zoom: zoomNode, frames: framesNode), path: path, r)
        }
        return animation
    }

    /// A feed's keys from `f` (an animation's or a layer's fields): its source, its frames
    /// (or, for a layer without `frames:`, the `timeline`), format and presentation.
    static func feed(_ f: Fields, sourceNode: Node, framesNode: Node?, timeline: FramesConfig?, _ r: inout YAMLReader) throws -> FeedConfig {
        // A frame index's fields are placeholders of the source template: know their names first.
        // `{run}` and `{lead}` are known to every template; `checkRuns` refuses them without `runs:`.
        var source = try self.source(sourceNode, f.path("source"), fields: (framesNode.map(indexFieldNames) ?? []).union(runFields), &r)
        var feed = FeedConfig(source: source, frames: .count(1))
        if let n = f["missing"] { feed.missing = try r.choice(n, f.path("missing"), MissingPolicy.self, options: [.fail, .transparent]) }
        if let n = f["settle"] { feed.settle = try duration(n, f.path("settle"), r: &r, zero: true) }
        if let n = f["blank"] { feed.blank = try r.choice(n, f.path("blank"), BlankPolicy.self, options: [.skipNewest, .keep]) }
        if let n = f["attribution"] { feed.attribution = try r.string(n, f.path("attribution")) }
        if let n = f["compression"] { feed.compressionLevel = try r.int(n, f.path("compression"), in: 0...PNGWriter.maxLevel) }
        if let n = f["format"] {
            feed.frameFormat.setting = try r.choice(n, f.path("format"), FrameFormatChoice.Setting.self, options: FrameFormatChoice.Setting.allCases)
        }
        if let n = f["quality"] {
            feed.frameFormat.quality = try r.int(n, f.path("quality"), in: 1...100)
            guard feed.frameFormat.setting != .png, feed.frameFormat.setting != .webpLossless else {
                throw r.error(n, f.path("quality"), "applies to lossy JPEG and WebP frames only: remove it, or set format: auto, jpeg or webp")
            }
        }
        if let n = f["time_format"] {
            let text = try r.string(n, f.path("time_format"))
            do { feed.timeFormat = try TimeFormat(text) } catch { throw r.error(n, f.path("time_format"), error.description) }
        }
        if let n = f["fallback"] {
            let ff = try r.fields(n, f.path("fallback"), allowed: ["levels", "source"])
            if let m = ff["levels"] { feed.fallback.levels = try r.int(m, ff.path("levels"), in: 0...4) }
            if let m = ff["source"] { feed.fallback.fromSource = try r.bool(m, ff.path("source")) }
        }
        if let n = f["pyramid"] {
            let pf = try r.fields(n, f.path("pyramid"), allowed: ["publish", "above_px"])
            if let m = pf["publish"] {
                feed.pyramid.publish = try r.choice(m, pf.path("publish"), PyramidConfig.Publish.self, options: PyramidConfig.Publish.allCases)
            }
            if let m = pf["above_px"] { feed.pyramid.abovePx = try r.int(m, pf.path("above_px"), in: 0...(1 << 40)) }
        }
        if let n = f["levels"] {
            feed.levels = try r.choice(n, f.path("levels"), ReducedLevelsSetting.self, options: ReducedLevelsSetting.allCases)
        }
        if let n = f["opacity"] { feed.opacity = try r.double(n, f.path("opacity"), in: 0...1) }
        if let n = f["legend"] { feed.legend = try legend(n, f.path("legend"), &r) }
        if let framesNode {
            feed.frames = try frames(framesNode, f.path("frames"), source: &source, &r)
        } else if let timeline {
            feed.frames = timeline
        }
        feed.source = source
        try checkPlaceholders(feed, sourceNode: sourceNode, framesNode: framesNode ?? f.node, path: f.path, r)
        feed.runs = try runs(f, feed: feed, sourceNode: sourceNode, framesNode: framesNode ?? f.node, &r)
        return feed
    }

    /// An id that becomes a folder name.
    static func slug(_ node: Node, _ path: String, what: String, _ r: inout YAMLReader) throws -> String {
        let id = try r.string(node, path)
        guard isSlug(id) else {
            throw r.error(
                node, path,
                "\"\(id)\" is not a valid id: use lowercase letters, digits and '-', starting with a letter or digit (it becomes a \(what))")
        }
        return id
    }

    /// The player's keys of the animation: `time_zone`, `time_label`.
    static func player(_ f: Fields, into animation: inout AnimationConfig, _ r: inout YAMLReader) throws {
        if let n = f["time_label"] { animation.timeLabel = try r.choice(n, f.path("time_label"), TimeLabel.self, options: TimeLabel.allCases).rawValue }
        if let n = f["time_zone"] {
            let zone = try r.string(n, f.path("time_zone"))
            guard TimeZone(identifier: zone) != nil else {
                throw r.error(n, f.path("time_zone"), "\"\(zone)\" is not an IANA time zone name (for example Europe/Paris or America/Chicago)")
            }
            animation.timeZone = zone
        }
    }

    /// `legend:`: colour stops, and optionally an image with the words that say what it shows.
    static func legend(_ n: Node, _ path: String, _ r: inout YAMLReader) throws -> LegendConfig {
        let lf = try r.fields(n, path, allowed: ["unit", "stops", "image", "image_alt"])
        guard let stopsNode = lf["stops"] else { throw r.error(n, lf.path("stops"), "missing (a legend needs its colour stops)") }
        var stops: [LegendConfig.Stop] = []
        for (item, path) in try r.list(stopsNode, lf.path("stops")) {
            let parts = try r.list(item, path)
            guard parts.count == 2 || parts.count == 3 else { throw r.error(item, path, "expected [value, \"#rrggbb\"] or [value, \"#rrggbb\", label]") }
            let color = try r.string(parts[1].0, parts[1].1)
            guard color.wholeMatch(of: /#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})/) != nil else {
                throw r.error(parts[1].0, parts[1].1, "\"\(color)\" is not a colour: use #rgb, #rrggbb or #rrggbbaa")
            }
            let value = try r.double(parts[0].0, parts[0].1, in: -1e9...1e9)
            var label: String?
            if parts.count == 3 { label = try r.string(parts[2].0, parts[2].1) }
            stops.append(.init(value: value, color: color, label: label))
        }
        guard !stops.isEmpty else { throw r.error(stopsNode, lf.path("stops"), "must list at least one stop") }
        var unit = ""
        if let u = lf["unit"] { unit = try r.string(u, lf.path("unit")) }
        var legend = LegendConfig(unit: unit, stops: stops)
        // An image beside the stops (a product's own colour bar): a path, checked and
        // published by the build, and the words that say what it shows.
        if let m = lf["image"] {
            legend.image = try r.string(m, lf.path("image"))
            legend.imageLine = m.mark?.line
            guard let alt = lf["image_alt"] else {
                throw r.error(m, lf.path("image_alt"), "missing: a legend image needs image_alt, the text that says what it shows")
            }
            legend.imageAlt = try r.string(alt, lf.path("image_alt"))
        } else if let alt = lf["image_alt"] {
            throw r.error(alt, lf.path("image_alt"), "given without legend.image")
        }
        return legend
    }

    /// `time_label:` values.
    enum TimeLabel: String, CaseIterable { case absolute, relative, both }

    static func bbox(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> BoundingBox {
        let items = try r.list(node, path)
        guard items.count == 4 else {
            throw r.error(node, path, "expected four numbers [west, south, east, north] in degrees, found \(items.count)")
        }
        let west = try r.double(items[0].0, items[0].1, in: -180...180)
        let south = try r.double(items[1].0, items[1].1, in: -90...90)
        let east = try r.double(items[2].0, items[2].1, in: -180...180)
        let north = try r.double(items[3].0, items[3].1, in: -90...90)
        guard south < north else {
            throw r.error(node, path, "south (\(south)) must be less than north (\(north)); the order is [west, south, east, north]")
        }
        guard west != east else { throw r.error(node, path, "west and east are equal: the box has no width") }
        guard north > -WebMercator.maxLatitude, south < WebMercator.maxLatitude else {
            throw r.error(node, path, "the box lies beyond Web Mercator's latitude limit (±85.0511°)")
        }
        return BoundingBox(west: west, south: south, east: east, north: north)
    }

    /// Placeholders must be fillable: `{s}` needs subdomains, `{time}` needs times.
    static func checkPlaceholders(_ a: FeedConfig, sourceNode: Node, framesNode: Node, path: String, _ r: YAMLReader) throws {
        var templates: [TileTemplate] = []
        switch a.source.kind {
        case .url(let t), .path(let t), .mbtiles(let t): templates = [t]
        case .perFrame:
            guard case .templates(let list) = a.frames else {
                throw r.error(sourceNode, "\(path).source", "give one of \(sourceKinds.joined(separator: ", ")) (or list frames.templates)")
            }
            templates = list
        case .demo, .wmts, .wms: break
        }
        let timed: Bool
        switch a.frames {
        case .times, .latest, .range, .rolling, .index: timed = true
        case .count, .templates: timed = false
        }
        switch (a.frames, a.source.kind) {
        case (.index, .wmts), (.index, .wms):
            throw r.error(framesNode, "\(path).frames.index", "a WMTS/WMS source advertises its own times: use latest: or last: instead of an index")
        case (.rolling(let window), .url), (.rolling(let window), .path), (.rolling(let window), .mbtiles), (.rolling(let window), .demo):
            // The demo's weather is a function of time: a window of it moves with the clock.
            if window.step == nil { throw r.error(framesNode, "\(path).frames.step", "missing: a rolling window needs step:") }
        case (.rolling, .perFrame), (.index, .perFrame):
            throw r.error(framesNode, "\(path).frames", "a rolling window or index needs a template with {time} (url, path or mbtiles) or a WMTS/WMS source")
        case (.index, .demo):
            throw r.error(
                framesNode, "\(path).frames", "the demo source has no frame index: give it last: and step: (a rolling window), times:, range: or count:")
        default: break
        }
        for template in templates {
            if template.placeholders.contains(.s), a.source.subdomains.isEmpty {
                throw r.error(sourceNode, "\(path).source.subdomains", "the template uses {s}, so subdomains must be given")
            }
            if template.placeholders.contains(.time), !timed {
                throw r.error(framesNode, "\(path).frames", "the template uses {time}, so frames must be times, latest, range, last or index")
            }
        }
        if case .latest = a.frames {
            switch a.source.kind {
            case .wmts, .wms: break
            default: throw r.error(framesNode, "\(path).frames.latest", "needs a source that advertises its times (wmts or wms)")
            }
        }
    }

    /// Errors point at the key they name (not at the animation's first line).
    static func checkSize(
        _ a: AnimationConfig, config: SiteConfig, nodes: (bbox: Node, zoom: Node, frames: Node),
        path: String, _ r: YAMLReader
    ) throws {
        let window = WebMercator.window(of: a.bbox, zoom: a.zoom, tileSize: a.source.tileSize)
        guard window.width >= 1, window.height >= 1 else {
            throw r.error(nodes.bbox, "\(path).bbox", "the box is smaller than one pixel at zoom \(a.zoom); zoom in")
        }
        guard window.width <= config.limits.maxFrameWidth, window.height <= config.limits.maxFrameHeight else {
            throw r.error(
                nodes.zoom, "\(path).zoom",
                "frames would be \(window.width)x\(window.height) pixels, over the limit of \(config.limits.maxFrameWidth)x\(config.limits.maxFrameHeight) (limits.max_frame_width / max_frame_height); lower the zoom or shrink the box"
            )
        }
        let count: Int? =
            switch a.frames {
            case .templates(let list): list.count
            case .times(let list): list.count
            case .count(let n), .latest(let n): n
            case .range(let start, let end, let step): rangeCount(start: start, end: end, step: step)
            case .rolling(let window): window.step.map { Int(window.last.milliseconds / $0.milliseconds) + 1 } ?? window.latest
            case .index(let index): index.latest
            }
        if let count, count > config.limits.maxFrames {
            throw r.error(nodes.frames, "\(path).frames", "\(count) frames, over the limit of \(config.limits.maxFrames) (limits.max_frames)")
        }
    }
}
