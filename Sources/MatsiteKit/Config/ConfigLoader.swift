import Foundation
import MatsiteCapabilities
import Yams

/// Reads `matsite.yml` into a `SiteConfig`, checking every key, type and range before
/// anything is fetched or written.
public enum ConfigLoader {
    /// Reads and validates a config file.
    public static func load(file url: URL) throws -> SiteConfig {
        let name = url.path
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ConfigError(file: name, line: nil, keyPath: "", message: "cannot read the file (\(Self.reason(error)))")
        }
        var config = try parse(data, file: name)
        config.directory = url.deletingLastPathComponent()
        return config
    }

    /// Parses config text. `file` names it in messages.
    public static func parse(_ data: Data, file: String) throws -> SiteConfig {
        guard data.count <= 4 << 20 else {
            throw ConfigError(file: file, line: nil, keyPath: "", message: "the file is larger than 4 MiB; is it really a config?")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            let bad = firstInvalidUTF8(data)
            throw ConfigError(file: file, line: bad.line, keyPath: "",
                              message: "not UTF-8 text (invalid byte at line \(bad.line), byte offset \(bad.offset))")
        }
        if let line = YAMLKeyGuard.aliasBuiltKeyLine(in: text) {
            throw ConfigError(file: file, line: line, keyPath: "",
                              message: "a mapping key built from aliases (*name) or a [list]/{mapping} is not allowed: keys are plain words")
        }
        let root: Node?
        // No tag resolution: the reader takes every scalar as text and checks it against the
        // type the key wants, and the default resolver compiles a dozen regexes per run.
        do { root = try Yams.compose(yaml: text, .basic) } catch let error as YamlError {
            throw yamlSyntaxError(error, file: file)
        }
        var config = SiteConfig()
        config.file = file
        var reader = YAMLReader(file: file)
        guard let root else {
            throw ConfigError(file: file, line: nil, keyPath: "animations", message: "the config is empty; at least one animation is required")
        }
        try read(root, into: &config, reader: &reader)
        return config
    }

    /// The config `matsite build` uses when there is no `matsite.yml`: the offline demo.
    public static func demo(directory: URL) -> SiteConfig {
        var config = SiteConfig()
        config.title = "matsite demo"
        config.directory = directory
        config.file = "(embedded demo)"
        config.baseMap = BaseMapConfig(url: nil, attribution: "Demo land and sea: procedural, made by matsite", demo: true)
        config.animations = [AnimationConfig(
            id: "radar", title: "Demo radar loop (procedural)",
            bbox: BoundingBox(west: -95.5, south: 29.0, east: -74.5, north: 43.5), zoom: 6,
            frameDurationMs: 400, lastFrameDurationMs: 1500, crossfadeMs: 250,
            attribution: "Demo radar: procedural, made by matsite",
            source: SourceConfig(kind: .demo("radar")), frames: .count(12))]
        // Times (the two hours before now, every ten minutes) and a legend, so a newcomer sees both.
        let newest = (Date().timeIntervalSince1970 / 600).rounded(.down) * 600
        config.animations[0].frames = .times((0..<12).map { Date(timeIntervalSince1970: newest - Double(11 - $0) * 600) })
        config.animations[0].legend = .init(unit: "dBZ", stops: [
            .init(value: 10, color: "#78c8e6"), .init(value: 20, color: "#1e78cd"), .init(value: 30, color: "#149632"),
            .init(value: 40, color: "#f0e628"), .init(value: 50, color: "#f08c14"), .init(value: 60, color: "#c81414"),
            .init(value: 70, color: "#e628c8")])
        return config
    }
}

// MARK: - Reading

private extension ConfigLoader {
    static let topKeys = ["version", "title", "base_url", "output", "cache", "templates", "leaflet", "base_map",
                          "http", "limits", "embed", "deadline_s", "animations"]

    static func read(_ root: Node, into config: inout SiteConfig, reader r: inout YAMLReader) throws {
        let top = try r.fields(root, "", allowed: topKeys)
        if let node = top["version"] { _ = try r.int(node, "version", in: 1...1) }
        if let node = top["title"] { config.title = try r.string(node, "title") }
        if let node = top["base_url"] { config.baseURL = try r.string(node, "base_url") }
        if let node = top["output"] { config.output = try nonEmpty(r.string(node, "output"), node, "output", r) }
        if let node = top["templates"] { config.templates = try nonEmpty(r.string(node, "templates"), node, "templates", r) }
        if let node = top["leaflet"] { config.leaflet = try nonEmpty(r.string(node, "leaflet"), node, "leaflet", r) }
        if let node = top["deadline_s"] { config.deadlineSeconds = try r.double(node, "deadline_s", in: 1...86400) }
        if let node = top["cache"] { config.cache = try cache(node, &r) }
        if let node = top["base_map"] { config.baseMap = try baseMap(node, &r) }
        if let node = top["http"] { config.http = try http(node, &r) }
        if let node = top["limits"] { config.limits = try limits(node, &r) }
        if let node = top["embed"] { config.embed = try embed(node, &r) }
        guard let list = top["animations"] else {
            throw r.error(root, "animations", "missing: at least one animation is required")
        }
        let items = try r.list(list, "animations")
        guard !items.isEmpty else { throw r.error(list, "animations", "at least one animation is required") }
        var seen: [String: Int] = [:]
        for (index, (node, path)) in items.enumerated() {
            let animation = try self.animation(node, path, config: config, &r)
            if let first = seen[animation.id] {
                throw r.error(node, "\(path).id", "duplicate id \"\(animation.id)\" (also animations[\(first)])")
            }
            seen[animation.id] = index
            config.animations.append(animation)
        }
    }

    static func nonEmpty(_ text: String, _ node: Node, _ path: String, _ r: YAMLReader) throws -> String {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw r.error(node, path, "must not be empty") }
        return text
    }

    static func cache(_ node: Node, _ r: inout YAMLReader) throws -> CacheOptions {
        var options = CacheOptions()
        if case .scalar = node {
            options.path = try nonEmpty(r.string(node, "cache"), node, "cache", r)
            return options
        }
        let f = try r.fields(node, "cache", allowed: ["path", "max_size"])
        if let n = f["path"] { options.path = try nonEmpty(r.string(n, "cache.path"), n, "cache.path", r) }
        if let n = f["max_size"] {
            let text = try r.string(n, "cache.max_size")
            guard let bytes = parseSize(text) else {
                throw r.error(n, "cache.max_size", "expected a size like 500MB or 2GB, found \"\(text)\"")
            }
            options.maxSize = bytes
        }
        return options
    }

    static func parseSize(_ text: String) -> Int64? {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int64)] = [("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            guard let value = Double(t.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), value >= 0 else { return nil }
            return Int64(value * Double(factor))
        }
        return Int64(t)
    }

    static func baseMap(_ node: Node, _ r: inout YAMLReader) throws -> BaseMapConfig? {
        if case .scalar(let scalar) = node, ["none", "null", "~", "false", ""].contains(scalar.string.lowercased()) { return nil }
        let f = try r.fields(node, "base_map", allowed: ["url", "attribution", "max_zoom", "subdomains", "demo"])
        var map = BaseMapConfig()
        if let n = f["demo"] { map.demo = try r.bool(n, "base_map.demo") }
        if let n = f["url"] {
            let text = try r.string(n, "base_map.url")
            let template = try tileTemplate(text, n, "base_map.url", r)
            guard template.addressesTiles else { throw r.error(n, "base_map.url", "must contain {z}, {x} and {y}") }
            guard template.placeholders.isDisjoint(with: [.time, .frame]) else {
                throw r.error(n, "base_map.url", "a base map has no {time} or {frame}")
            }
            map.url = text
        }
        guard map.demo != (map.url != nil) else {
            throw r.error(node, "base_map", "give exactly one of url or demo: true")
        }
        if let n = f["attribution"] { map.attribution = try r.string(n, "base_map.attribution") }
        if let n = f["max_zoom"] { map.maxZoom = try r.int(n, "base_map.max_zoom", in: 0...22) }
        if let n = f["subdomains"] { map.subdomains = try r.strings(n, "base_map.subdomains") }
        if let url = map.url, url.contains("{s}"), map.subdomains.isEmpty {
            throw r.error(f["url"], "base_map.subdomains", "the url uses {s}, so subdomains must be given")
        }
        return map
    }

    static func http(_ node: Node, _ r: inout YAMLReader) throws -> HTTPOptions {
        let f = try r.fields(node, "http", allowed: ["user_agent", "concurrency", "timeout_s", "retries", "retry_delay_ms",
                                                      "max_retry_after_s", "max_tile_bytes", "headers"])
        var options = HTTPOptions()
        if let n = f["user_agent"] { options.userAgent = try nonEmpty(r.string(n, "http.user_agent"), n, "http.user_agent", r) }
        if let n = f["concurrency"] { options.concurrency = try r.int(n, "http.concurrency", in: 1...64) }
        if let n = f["timeout_s"] { options.timeoutSeconds = try r.double(n, "http.timeout_s", in: 0.1...600) }
        if let n = f["retries"] { options.retries = try r.int(n, "http.retries", in: 0...10) }
        if let n = f["retry_delay_ms"] { options.retryDelayMilliseconds = try r.int(n, "http.retry_delay_ms", in: 0...60_000) }
        if let n = f["max_retry_after_s"] { options.maxRetryAfterSeconds = try r.double(n, "http.max_retry_after_s", in: 0...3600) }
        if let n = f["max_tile_bytes"] { options.maxTileBytes = try r.int(n, "http.max_tile_bytes", in: 1024...(256 << 20)) }
        if let n = f["headers"] {
            guard case .mapping(let mapping) = n else { throw r.error(n, "http.headers", "expected a mapping of header names to values") }
            for (key, value) in mapping {
                let name = try r.string(key, "http.headers")
                let path = "http.headers.\(name)"
                let text = try r.string(value, path)
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
                    throw r.error(key, path, "not a valid header name")
                }
                // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
                guard !text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                    throw r.error(value, path, "header values must be one line without control characters")
                }
                options.headers[name] = text
            }
        }
        return options
    }

    static func limits(_ node: Node, _ r: inout YAMLReader) throws -> Limits {
        let f = try r.fields(node, "limits", allowed: ["max_frame_width", "max_frame_height", "max_frames"])
        var limits = Limits()
        if let n = f["max_frame_width"] { limits.maxFrameWidth = try r.int(n, "limits.max_frame_width", in: 1...65535) }
        if let n = f["max_frame_height"] { limits.maxFrameHeight = try r.int(n, "limits.max_frame_height", in: 1...65535) }
        if let n = f["max_frames"] { limits.maxFrames = try r.int(n, "limits.max_frames", in: 1...10_000) }
        return limits
    }

    static func embed(_ node: Node, _ r: inout YAMLReader) throws -> EmbedOptions {
        let f = try r.fields(node, "embed", allowed: ["allowed_origins"])
        var options = EmbedOptions()
        if let n = f["allowed_origins"] {
            let origins = try r.strings(n, "embed.allowed_origins")
            for origin in origins where origin != "*" {
                guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme),
                      url.host != nil, url.path.isEmpty || url.path == "/" else {
                    throw r.error(n, "embed.allowed_origins", "\"\(origin)\" is not an origin like https://example.org")
                }
            }
            options.allowedOrigins = origins.map { $0 == "*" ? $0 : String($0.trimmingSuffix("/")) }
        }
        return options
    }

    static let animationKeys = ["id", "title", "bbox", "zoom", "frame_duration_ms", "last_frame_duration_ms", "crossfade_ms",
                                "loop", "missing", "attribution", "source", "frames", "time_format", "fallback", "compression",
                                "opacity", "legend", "time_zone", "time_label"]

    static func animation(_ node: Node, _ path: String, config: SiteConfig, _ r: inout YAMLReader) throws -> AnimationConfig {
        let f = try r.fields(node, path, allowed: animationKeys)
        func required(_ key: String) throws -> Node {
            guard let value = f[key] else { throw r.error(node, f.path(key), "missing (required for every animation)") }
            return value
        }
        let idNode = try required("id")
        let id = try r.string(idNode, f.path("id"))
        guard isSlug(id) else {
            throw r.error(idNode, f.path("id"), "\"\(id)\" is not a valid id: use lowercase letters, digits and '-', starting with a letter or digit (it becomes a folder name)")
        }
        let bboxNode = try required("bbox")
        let box = try bbox(bboxNode, f.path("bbox"), &r)
        let zoomNode = try required("zoom")
        let zoom = try r.int(zoomNode, f.path("zoom"), in: 0...22)
        let sourceNode = try required("source")
        let framesNode = try required("frames")
        var source = try self.source(sourceNode, f.path("source"), &r)
        var animation = AnimationConfig(id: id, title: id, bbox: box, zoom: zoom, source: source, frames: .count(1))
        animation.line = node.mark?.line
        if let n = f["title"] { animation.title = try r.string(n, f.path("title")) }
        if let n = f["frame_duration_ms"] { animation.frameDurationMs = try r.int(n, f.path("frame_duration_ms"), in: 1...600_000) }
        if let n = f["last_frame_duration_ms"] {
            animation.lastFrameDurationMs = try r.int(n, f.path("last_frame_duration_ms"), in: 1...600_000)
        }
        if let n = f["crossfade_ms"] { animation.crossfadeMs = try r.int(n, f.path("crossfade_ms"), in: 0...60_000) }
        if let n = f["loop"] { animation.loop = try r.bool(n, f.path("loop")) }
        if let n = f["missing"] { animation.missing = try r.choice(n, f.path("missing"), MissingPolicy.self, options: [.fail, .transparent]) }
        if let n = f["attribution"] { animation.attribution = try r.string(n, f.path("attribution")) }
        if let n = f["compression"] { animation.compressionLevel = try r.int(n, f.path("compression"), in: 0...9) }
        if let n = f["time_format"] {
            let text = try r.string(n, f.path("time_format"))
            do { _ = try TimeFormat(text) } catch { throw r.error(n, f.path("time_format"), error.description) }
            animation.timeFormat = text
        }
        if let n = f["fallback"] {
            let ff = try r.fields(n, f.path("fallback"), allowed: ["levels", "source"])
            if let m = ff["levels"] { animation.fallback.levels = try r.int(m, ff.path("levels"), in: 0...4) }
            if let m = ff["source"] { animation.fallback.fromSource = try r.bool(m, ff.path("source")) }
        }
        try player(f, into: &animation, &r)
        animation.frames = try frames(framesNode, f.path("frames"), source: &source, &r)
        animation.source = source
        try checkPlaceholders(animation, sourceNode: sourceNode, framesNode: framesNode, path: path, r)
        try checkSize(animation, config: config, nodes: (bbox: bboxNode, zoom: zoomNode, frames: framesNode), path: path, r)
        return animation
    }

    /// The player's keys: `opacity`, `legend`, `time_zone`, `time_label`.
    static func player(_ f: Fields, into animation: inout AnimationConfig, _ r: inout YAMLReader) throws {
        if let n = f["opacity"] { animation.opacity = try r.double(n, f.path("opacity"), in: 0...1) }
        if let n = f["time_label"] { animation.timeLabel = try r.choice(n, f.path("time_label"), TimeLabel.self, options: TimeLabel.allCases).rawValue }
        if let n = f["time_zone"] {
            let zone = try r.string(n, f.path("time_zone"))
            guard TimeZone(identifier: zone) != nil else {
                throw r.error(n, f.path("time_zone"), "\"\(zone)\" is not an IANA time zone name (for example Europe/Paris or America/Chicago)")
            }
            animation.timeZone = zone
        }
        guard let n = f["legend"] else { return }
        let lf = try r.fields(n, f.path("legend"), allowed: ["unit", "stops"])
        guard let stopsNode = lf["stops"] else { throw r.error(n, lf.path("stops"), "missing (a legend needs its colour stops)") }
        var stops: [AnimationManifest.Legend.Stop] = []
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
        animation.legend = .init(unit: unit, stops: stops)
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

    static let sourceKinds = ["url", "path", "mbtiles", "demo", "wmts", "wms"]

    static func source(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> SourceConfig {
        let f = try r.fields(node, path, allowed: sourceKinds + ["subdomains", "scheme", "max_zoom", "tile_size"])
        let kinds = f.present(sourceKinds)
        guard kinds.count <= 1 else {
            throw r.error(node, path, "give only one of \(sourceKinds.joined(separator: ", ")) (found \(kinds.joined(separator: " and ")))")
        }
        var source = SourceConfig(kind: .perFrame)
        if let n = f["subdomains"] {
            source.subdomains = try r.strings(n, f.path("subdomains"))
            guard !source.subdomains.isEmpty else { throw r.error(n, f.path("subdomains"), "must list at least one subdomain") }
        }
        if let n = f["scheme"] { source.scheme = try r.choice(n, f.path("scheme"), TileScheme.self, options: [.xyz, .tms]) }
        if let n = f["max_zoom"] { source.maxZoom = try r.int(n, f.path("max_zoom"), in: 0...22) }
        if let n = f["tile_size"] {
            source.tileSize = try r.int(n, f.path("tile_size"), in: 64...4096)
            guard source.tileSize & (source.tileSize - 1) == 0 else {
                throw r.error(n, f.path("tile_size"), "must be a power of two (256, 512...)")
            }
        }
        guard let kind = kinds.first, let n = f[kind] else { return source }
        let kindPath = f.path(kind)
        switch kind {
        case "url":
            let text = try r.string(n, kindPath)
            let template = try tileTemplate(text, n, kindPath, r)
            guard text.hasPrefix("http://") || text.hasPrefix("https://") else {
                throw r.error(n, kindPath, "must be an http:// or https:// URL template (use path: for local files)")
            }
            guard template.addressesTiles else { throw r.error(n, kindPath, "must contain {z}, {x} and {y} (or {-y})") }
            source.kind = .url(text)
        case "path":
            let text = try r.string(n, kindPath)
            let template = try tileTemplate(text, n, kindPath, r)
            guard template.addressesTiles else { throw r.error(n, kindPath, "must contain {z}, {x} and {y} (or {-y})") }
            source.kind = .path(text)
        case "mbtiles":
            let text = try r.string(n, kindPath)
            let template = try tileTemplate(text, n, kindPath, r)
            guard template.placeholders.isSubset(of: [.time, .frame]) else {
                throw r.error(n, kindPath, "names an archive file: only {frame} or {time} may appear")
            }
            source.kind = .mbtiles(text)
        case "demo":
            let text = try r.string(n, kindPath)
            guard text == "radar" else { throw r.error(n, kindPath, "the only demo source is \"radar\"") }
            source.kind = .demo(text)
        case "wmts":
            let w = try r.fields(n, kindPath, allowed: ["capabilities", "layer", "style", "tile_matrix_set", "format"])
            guard let cap = w["capabilities"] else { throw r.error(n, w.path("capabilities"), "missing: the capabilities URL") }
            guard let layer = w["layer"] else { throw r.error(n, w.path("layer"), "missing: the layer identifier") }
            var config = WMTSSourceConfig(capabilities: try httpURL(cap, w.path("capabilities"), &r),
                                          layer: try r.string(layer, w.path("layer")))
            if let m = w["style"] { config.style = try r.string(m, w.path("style")) }
            if let m = w["tile_matrix_set"] { config.tileMatrixSet = try r.string(m, w.path("tile_matrix_set")) }
            if let m = w["format"] { config.format = try r.string(m, w.path("format")) }
            source.kind = .wmts(config)
        default:
            let w = try r.fields(n, kindPath, allowed: ["url", "layers", "version", "styles", "format"])
            guard let url = w["url"] else { throw r.error(n, w.path("url"), "missing: the service URL") }
            guard let layers = w["layers"] else { throw r.error(n, w.path("layers"), "missing: the layer name(s)") }
            var config = WMSSourceConfig(url: try httpURL(url, w.path("url"), &r), layers: try r.string(layers, w.path("layers")))
            if let m = w["version"] {
                config.version = try r.string(m, w.path("version"))
                guard ["1.1.1", "1.3.0"].contains(config.version) else { throw r.error(m, w.path("version"), "must be 1.1.1 or 1.3.0") }
            }
            if let m = w["styles"] { config.styles = try r.string(m, w.path("styles")) }
            if let m = w["format"] { config.format = try r.string(m, w.path("format")) }
            source.kind = .wms(config)
        }
        return source
    }

    static func httpURL(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> String {
        let text = try r.string(node, path)
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw r.error(node, path, "must be an http:// or https:// URL, found \"\(text)\"")
        }
        return text
    }

    static func tileTemplate(_ text: String, _ node: Node, _ path: String, _ r: YAMLReader) throws -> TileTemplate {
        do { return try TileTemplate(text) } catch { throw r.error(node, path, error.description) }
    }

    static let frameKinds = ["templates", "times", "count", "latest", "range"]

    static func frames(_ node: Node, _ path: String, source: inout SourceConfig, _ r: inout YAMLReader) throws -> FramesConfig {
        let f = try r.fields(node, path, allowed: frameKinds)
        let kinds = f.present(frameKinds)
        guard kinds.count == 1, let kind = kinds.first, let n = f[kind] else {
            throw r.error(node, path, kinds.isEmpty ? "give one of \(frameKinds.joined(separator: ", "))"
                                                    : "give only one of \(frameKinds.joined(separator: ", ")) (found \(kinds.joined(separator: " and ")))")
        }
        let kindPath = f.path(kind)
        switch kind {
        case "templates":
            let items = try r.list(n, kindPath)
            guard !items.isEmpty else { throw r.error(n, kindPath, "must list at least one template") }
            var templates: [String] = []
            for (item, itemPath) in items {
                let text = try r.string(item, itemPath)
                let template = try tileTemplate(text, item, itemPath, r)
                guard template.addressesTiles else { throw r.error(item, itemPath, "must contain {z}, {x} and {y} (or {-y})") }
                guard template.placeholders.isDisjoint(with: [.time, .frame]) else {
                    throw r.error(item, itemPath, "a per-frame template is already one frame: no {time} or {frame}")
                }
                templates.append(text)
            }
            guard case .perFrame = source.kind else {
                throw r.error(n, kindPath, "with frames.templates, source carries only options (subdomains, scheme, max_zoom, tile_size): remove its url/path/mbtiles/demo/wmts/wms")
            }
            return .templates(templates)
        case "times":
            let items = try r.list(n, kindPath)
            guard !items.isEmpty else { throw r.error(n, kindPath, "must list at least one time") }
            var times: [Date] = []
            for (item, itemPath) in items {
                let text = try r.string(item, itemPath)
                guard let date = TimeFormat.parseISO(text) else {
                    throw r.error(item, itemPath, "\"\(text)\" is not an ISO 8601 time like 2026-11-21T10:00:00Z")
                }
                if let last = times.last, date <= last { throw r.error(item, itemPath, "times must increase (this one is not after the one before)") }
                times.append(date)
            }
            return .times(times)
        case "count":
            return .count(try r.int(n, kindPath, in: 1...100_000))
        case "latest":
            return .latest(try r.int(n, kindPath, in: 1...100_000))
        default:
            let w = try r.fields(n, kindPath, allowed: ["start", "end", "step"])
            func time(_ key: String) throws -> Date {
                guard let m = w[key] else { throw r.error(n, w.path(key), "missing") }
                let text = try r.string(m, w.path(key))
                guard let date = TimeFormat.parseISO(text) else {
                    throw r.error(m, w.path(key), "\"\(text)\" is not an ISO 8601 time like 2026-11-21T10:00:00Z")
                }
                return date
            }
            let start = try time("start"), end = try time("end")
            guard start <= end else { throw r.error(n, kindPath, "start must not be after end") }
            guard let m = w["step"] else { throw r.error(n, w.path("step"), "missing (an ISO 8601 duration like PT10M)") }
            let step = try r.string(m, w.path("step"))
            guard let seconds = stepSeconds(step) else {
                throw r.error(m, w.path("step"), "\"\(step)\" is not an ISO 8601 duration like PT10M or P1D")
            }
            let count = Int((end.timeIntervalSince(start) / seconds).rounded(.down)) + 1
            guard count <= 100_000 else { throw r.error(n, kindPath, "expands to \(count) frames") }
            return .range(start: start, end: end, step: step)
        }
    }

    /// Placeholders must be fillable: `{s}` needs subdomains, `{time}` needs times.
    static func checkPlaceholders(_ a: AnimationConfig, sourceNode: Node, framesNode: Node, path: String, _ r: YAMLReader) throws {
        var templates: [String] = []
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
        case .times, .latest, .range: timed = true
        case .count, .templates: timed = false
        }
        for text in templates {
            guard let template = try? TileTemplate(text) else { continue }
            if template.placeholders.contains(.s), a.source.subdomains.isEmpty {
                throw r.error(sourceNode, "\(path).source.subdomains", "the template uses {s}, so subdomains must be given")
            }
            if template.placeholders.contains(.time), !timed {
                throw r.error(framesNode, "\(path).frames", "the template uses {time}, so frames must be times, latest or range")
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
    static func checkSize(_ a: AnimationConfig, config: SiteConfig, nodes: (bbox: Node, zoom: Node, frames: Node),
                          path: String, _ r: YAMLReader) throws {
        let window = WebMercator.window(of: a.bbox, zoom: a.zoom, tileSize: a.source.tileSize)
        guard window.width >= 1, window.height >= 1 else {
            throw r.error(nodes.bbox, "\(path).bbox", "the box is smaller than one pixel at zoom \(a.zoom); zoom in")
        }
        guard window.width <= config.limits.maxFrameWidth, window.height <= config.limits.maxFrameHeight else {
            throw r.error(nodes.zoom, "\(path).zoom", "frames would be \(window.width)x\(window.height) pixels, over the limit of \(config.limits.maxFrameWidth)x\(config.limits.maxFrameHeight) (limits.max_frame_width / max_frame_height); lower the zoom or shrink the box")
        }
        let count: Int? = switch a.frames {
        case .templates(let list): list.count
        case .times(let list): list.count
        case .count(let n), .latest(let n): n
        case .range(let start, let end, let step): Int((end.timeIntervalSince(start) / (stepSeconds(step) ?? 1)).rounded(.down)) + 1
        }
        if let count, count > config.limits.maxFrames {
            throw r.error(nodes.frames, "\(path).frames", "\(count) frames, over the limit of \(config.limits.maxFrames) (limits.max_frames)")
        }
    }

    /// A duration's length in seconds (months at their Gregorian average), nil if invalid or zero.
    static func stepSeconds(_ text: String) -> Double? {
        guard let duration = try? ISODuration.parse(text), !duration.isZero else { return nil }
        return Double(duration.milliseconds) / 1000 + Double(duration.months) * 2_629_746
    }

    static func yamlSyntaxError(_ error: YamlError, file: String) -> ConfigError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return ConfigError(file: file, line: mark.line, keyPath: "", message: "YAML syntax error: \(detail)")
        case .reader(let problem, let offset, _, let yaml):
            // libyaml's reader (control characters, bad encodings) gives an offset, not a line.
            let line = offset.map { offset in 1 + yaml.utf8.prefix(max(0, offset)).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
            return ConfigError(file: file, line: line, keyPath: "", message: "YAML syntax error: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigError(file: file, line: context.mark.line, keyPath: "",
                               message: "key given twice: \(duplicates.joined(separator: ", "))")
        default:
            return ConfigError(file: file, line: nil, keyPath: "", message: "YAML error: \(error)")
        }
    }

    static func firstInvalidUTF8(_ data: Data) -> (line: Int, offset: Int) {
        var line = 1
        let bytes = [UInt8](data)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let length = b < 0x80 ? 1 : b >> 5 == 0b110 ? 2 : b >> 4 == 0b1110 ? 3 : b >> 3 == 0b11110 ? 4 : 0
            guard length > 0, i + length <= bytes.count,
                  bytes[(i + 1)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 }) else { return (line, i) }
            if b == 0x0A { line += 1 }
            i += length
        }
        return (line, i)
    }

    static func reason(_ error: any Swift.Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : Substring(self)
    }
}

extension ConfigLoader {
    /// A duration's months and seconds, nil if invalid.
    static func durationParts(_ text: String) -> (months: Int, seconds: Double)? {
        guard let duration = try? ISODuration.parse(text), !duration.isZero else { return nil }
        return (duration.months, Double(duration.milliseconds) / 1000)
    }
}

/// Finds mapping keys that could make composing explode.
///
/// Aliases share their anchor's node, so values built from nested aliases (a "billion
/// laughs") stay small. But Yams hashes every mapping's keys to find duplicates, and
/// hashing walks a key in full: one key made of nested aliases costs time exponential in the
/// nesting (the config fuzzer found a 700-byte file taking 10 s). matsite's keys are plain
/// words, so in a document that defines anchors, aliases that are not a whole value
/// (followed by anything but the line's end, a comment or `,` `]` `}`), collection keys and
/// explicit (`? `) keys are refused before Yams sees them. Documents without anchors are not
/// scanned. Quoted scalars and comments are skipped; the check is textual and may refuse an
/// odd plain scalar, never accept an alias-built key.
enum YAMLKeyGuard {
    /// The 1-based line of the first such key, or nil.
    static func aliasBuiltKeyLine(in text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "&")) else { return nil }
        var line = 1
        var i = 0
        var lineStart = true
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        func isName(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
        /// After position j (spaces skipped), is there a ':' that makes a key?
        func colonFollows(_ j: Int) -> Bool {
            var k = j
            while k < bytes.count, isSpace(bytes[k]) { k += 1 }
            guard k < bytes.count, bytes[k] == UInt8(ascii: ":") else { return false }
            return k + 1 == bytes.count || isSpace(bytes[k + 1]) || [0x0A, 0x0D, 0x2C, 0x5D, 0x7D].contains(bytes[k + 1])
        }
        while i < bytes.count {
            let b = bytes[i]
            let previous: UInt8 = i > 0 ? bytes[i - 1] : 0x0A
            switch b {
            case 0x0A:
                line += 1
                lineStart = true
                i += 1
                continue
            case UInt8(ascii: "#") where isSpace(previous) || previous == 0x0A:
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                continue
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                // Skip a quoted scalar (only where one can start, not an apostrophe in a word).
                guard isSpace(previous) || [0x0A, 0x3A, 0x2C, 0x5B, 0x7B, 0x2D, 0x3F].contains(previous) else { break }
                var j = i + 1
                while j < bytes.count, bytes[j] != b {
                    if bytes[j] == 0x0A { line += 1 }
                    if b == UInt8(ascii: "\""), bytes[j] == UInt8(ascii: "\\") { j += 1 }
                    j += 1
                }
                i = j + 1
                lineStart = false
                continue
            case UInt8(ascii: "*") where isSpace(previous) || [0x0A, 0x5B, 0x7B, 0x2C, 0x3F, 0x3A].contains(previous):
                // An alias may only be a whole value: followed by the end of the line, a
                // comment, or the end of its flow entry. libyaml makes `*a text: x` (in flow
                // context) a key starting at the alias, so "not followed by ':'" is not enough.
                var j = i + 1
                while j < bytes.count, isName(bytes[j]) { j += 1 }
                guard j > i + 1 else { break }
                var k = j
                while k < bytes.count, isSpace(bytes[k]) { k += 1 }
                if k < bytes.count, ![0x0A, 0x0D, 0x23, 0x2C, 0x5D, 0x7D].contains(bytes[k]) { return line }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if colonFollows(i + 1) { return line }
            case UInt8(ascii: "?") where lineStart || isSpace(previous) || [0x5B, 0x7B, 0x2C].contains(previous):
                if i + 1 == bytes.count || isSpace(bytes[i + 1]) || bytes[i + 1] == 0x0A { return line }
            default:
                break
            }
            if !isSpace(b) { lineStart = false }
            i += 1
        }
        return nil
    }
}

extension ConfigLoader {
    /// The id rule: `[a-z0-9][a-z0-9-]*`, at most 64 characters (also how a previous
    /// site's manifest is trusted to name a folder).
    static func isSlug(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.count <= 64 else { return false }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789")
        return allowed.contains(first) && id.unicodeScalars.allSatisfy { allowed.contains($0) || $0 == "-" }
    }
}
