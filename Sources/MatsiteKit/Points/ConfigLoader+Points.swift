import Foundation
import MatsiteCapabilities
import Yams

/// An animation's `points:` list: point layers clustered at build time.
extension ConfigLoader {
    static let pointKeys = [
        "id", "title", "geojson", "csv", "url", "demo", "format", "time", "window", "label", "popup", "lat", "lon",
        "cluster", "skip_invalid", "max_points",
    ]

    static func points(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> [PointLayerConfig] {
        var layers: [PointLayerConfig] = []
        var seen: [String: String] = [:]
        for (item, itemPath) in try r.list(node, path) {
            let layer = try pointLayer(item, itemPath, &r)
            if let first = seen[layer.id] { throw r.error(item, "\(itemPath).id", "duplicate point layer id \"\(layer.id)\" (also \(first))") }
            seen[layer.id] = itemPath
            layers.append(layer)
        }
        return layers
    }

    static func pointLayer(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> PointLayerConfig {
        let f = try r.fields(node, path, allowed: pointKeys)
        guard let idNode = f["id"] else { throw r.error(node, f.path("id"), "missing (every point layer needs an id)") }
        let id = try r.string(idNode, f.path("id"))
        guard isSlug(id) else {
            throw r.error(idNode, f.path("id"), "\"\(id)\" is not a valid id: use lowercase letters, digits and '-' (it becomes a folder name)")
        }
        let kinds = f.present(["geojson", "csv", "url", "demo"])
        guard kinds.count == 1, let kind = kinds.first, let kindNode = f[kind] else {
            throw r.error(
                node, path,
                "give exactly one of geojson: FILE, csv: FILE, url: URL or demo: reports (found \(kinds.isEmpty ? "none" : kinds.joined(separator: ", ")))"
            )
        }
        let location = try nonEmpty(r.string(kindNode, f.path(kind)), kindNode, f.path(kind), r)
        let source: PointLayerConfig.Source
        switch kind {
        case "geojson": source = .geojson(location)
        case "csv": source = .csv(location)
        case "demo":
            guard location == "reports" else {
                throw r.error(kindNode, f.path("demo"), "\"\(location)\" is not a demo point layer: the one there is is reports")
            }
            source = .demo(location)
        default:
            guard let url = HTTPURL(location) else {
                throw r.error(kindNode, f.path("url"), "\"\(location)\" is not an http(s) URL")
            }
            var format = PointLayerConfig.Format.geojson
            if let n = f["format"] {
                format = try r.choice(n, f.path("format"), PointLayerConfig.Format.self, options: PointLayerConfig.Format.allCases)
            } else if url.url.path.lowercased().hasSuffix(".csv") {
                format = .csv
            }
            source = .url(url, format: format)
        }
        if kind != "url", let n = f["format"] { throw r.error(n, f.path("format"), "only for url: (a file's format is its key)") }
        var layer = PointLayerConfig(id: id, source: source)
        layer.keyPath = path
        if let n = f["title"] { layer.title = try r.string(n, f.path("title")) }
        if let n = f["time"] { layer.time = try nonEmpty(r.string(n, f.path("time")), n, f.path("time"), r) }
        if let n = f["window"] {
            let window = try duration(n, f.path("window"), r: &r)
            guard window.isFixed else { throw r.error(n, f.path("window"), "must be a fixed span (days, hours, minutes, seconds), not months or years") }
            guard layer.time != nil else { throw r.error(n, f.path("window"), "needs time: (the property holding each point's time)") }
            layer.window = window
        }
        if let n = f["label"] { layer.label = try nonEmpty(r.string(n, f.path("label")), n, f.path("label"), r) }
        if let n = f["popup"] { layer.popup = try r.strings(n, f.path("popup")) }
        for key in ["lat", "lon"] {
            guard let n = f[key] else { continue }
            guard source.format == .csv else { throw r.error(n, f.path(key), "only for CSV points (GeoJSON carries coordinates)") }
            let column = try nonEmpty(r.string(n, f.path(key)), n, f.path(key), r)
            if key == "lat" { layer.latColumn = column } else { layer.lonColumn = column }
        }
        if let n = f["skip_invalid"] { layer.skipInvalid = try r.bool(n, f.path("skip_invalid")) }
        if let n = f["max_points"] { layer.maxPoints = try r.int(n, f.path("max_points"), in: 1...20_000_000) }
        if let n = f["cluster"] {
            let cf = try r.fields(n, f.path("cluster"), allowed: ["radius_px", "max_zoom", "min_zoom", "tile_above_bytes"])
            if let m = cf["radius_px"] { layer.radiusPx = try r.int(m, cf.path("radius_px"), in: 1...400) }
            if let m = cf["max_zoom"] { layer.maxZoom = try r.int(m, cf.path("max_zoom"), in: 0...21) }
            if let m = cf["min_zoom"] { layer.minZoom = try r.int(m, cf.path("min_zoom"), in: 0...21) }
            if let m = cf["tile_above_bytes"] { layer.tileAboveBytes = try r.int(m, cf.path("tile_above_bytes"), in: 1024...1 << 30) }
            guard layer.minZoom <= layer.maxZoom else {
                throw r.error(n, cf.path("min_zoom"), "min_zoom (\(layer.minZoom)) must not be deeper than max_zoom (\(layer.maxZoom))")
            }
        }
        return layer
    }
}
