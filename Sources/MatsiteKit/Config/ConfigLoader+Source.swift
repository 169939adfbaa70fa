import Foundation
import Yams

/// An animation's `source`.
extension ConfigLoader {
    static let sourceKinds = ["url", "path", "mbtiles", "demo", "wmts", "wms"]

    static func source(_ node: Node, _ path: String, fields: Set<String> = [], _ r: inout YAMLReader) throws -> SourceConfig {
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
            let template = try tileTemplate(text, n, kindPath, r, fields: fields)
            // A template may start with an index field ({host}); the resolver checks what it becomes.
            guard template.isHTTP || (text.hasPrefix("{") && !template.fieldNames.isEmpty) else {
                throw r.error(n, kindPath, "must be an http:// or https:// URL template (use path: for local files)")
            }
            guard template.addressesTiles else { throw r.error(n, kindPath, "must contain {z}, {x} and {y} (or {-y})") }
            source.kind = .url(template)
        case "path":
            let text = try r.string(n, kindPath)
            let template = try tileTemplate(text, n, kindPath, r, fields: fields)
            guard template.addressesTiles else { throw r.error(n, kindPath, "must contain {z}, {x} and {y} (or {-y})") }
            source.kind = .path(template)
        case "mbtiles":
            let text = try r.string(n, kindPath)
            let template = try tileTemplate(text, n, kindPath, r)
            guard template.placeholders.isSubset(of: [.time, .frame]) else {
                throw r.error(n, kindPath, "names an archive file: only {frame} or {time} may appear")
            }
            source.kind = .mbtiles(template)
        case "demo":
            let text = try r.string(n, kindPath)
            guard text == "radar" else { throw r.error(n, kindPath, "the only demo source is \"radar\"") }
            source.kind = .demo(text)
        case "wmts":
            let w = try r.fields(n, kindPath, allowed: ["capabilities", "layer", "style", "tile_matrix_set", "format"])
            guard let cap = w["capabilities"] else { throw r.error(n, w.path("capabilities"), "missing: the capabilities URL") }
            guard let layer = w["layer"] else { throw r.error(n, w.path("layer"), "missing: the layer identifier") }
            var config = WMTSSourceConfig(
                capabilities: try httpURL(cap, w.path("capabilities"), &r),
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

    static func httpURL(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> HTTPURL {
        let text = try r.string(node, path)
        guard let url = HTTPURL(text) else {
            throw r.error(node, path, "must be an http:// or https:// URL, found \"\(text)\"")
        }
        return url
    }

    static func tileTemplate(_ text: String, _ node: Node, _ path: String, _ r: YAMLReader, fields: Set<String> = []) throws -> TileTemplate {
        do { return try TileTemplate(text, fields: fields) } catch { throw r.error(node, path, error.description) }
    }
}
