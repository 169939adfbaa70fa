/// Whether a build needs the network, asked of the parsed config: each part of an
/// animation's config says whether it fetches over HTTP. Without the network, no HTTP
/// client is made (an offline build opens no connection pool).
extension SiteConfig {
    /// True when some animation fetches something over HTTP.
    var needsNetwork: Bool {
        animations.contains(where: \.needsNetwork)
    }
}

extension AnimationConfig {
    /// True when its tiles, its frame list, a point layer or its export fetch over HTTP.
    var needsNetwork: Bool {
        feed.source.kind.needsNetwork || feed.frames.needsNetwork || points.contains(where: \.source.isFetched)
            || export?.needsNetwork == true || layers.contains { $0.feed.source.kind.needsNetwork || $0.feed.frames.needsNetwork }
    }
}

extension SourceKind {
    /// True for tile URL templates and OGC services (per-frame templates say for themselves).
    var needsNetwork: Bool {
        switch self {
        case .url, .wmts, .wms: true
        case .path, .mbtiles, .demo, .perFrame: false
        }
    }
}

extension FramesConfig {
    /// True for an index fetched over HTTP and for per-frame templates with an http(s) one.
    var needsNetwork: Bool {
        switch self {
        case .index(let index):
            if case .url = index.location { true } else { false }
        case .templates(let list):
            list.contains(where: \.isHTTP)
        case .times, .count, .latest, .range, .rolling:
            false
        }
    }
}
