import Foundation
import Yams

/// The site-wide sections: `base_map` and `embed`.
extension ConfigLoader {
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

    static func embed(_ node: Node, _ r: inout YAMLReader) throws -> EmbedOptions {
        let f = try r.fields(node, "embed", allowed: ["allowed_origins"])
        var options = EmbedOptions()
        if let n = f["allowed_origins"] {
            let origins = try r.strings(n, "embed.allowed_origins")
            for origin in origins where origin != "*" {
                guard let url = HTTPURL(origin)?.url, url.path.isEmpty || url.path == "/" else {
                    throw r.error(n, "embed.allowed_origins", "\"\(origin)\" is not an origin like https://example.org")
                }
            }
            options.allowedOrigins = origins.map { $0 == "*" ? $0 : String($0.trimmingSuffix("/")) }
        }
        return options
    }
}
