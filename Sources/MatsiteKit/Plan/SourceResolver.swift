import Foundation

/// Resolves each animation's source: which frames exist and where their tiles live.
/// Template, file, archive and demo sources resolve offline; WMTS and WMS read the
/// service's capabilities first.
public struct SourceResolver: Sendable {
    let config: SiteConfig
    let fetcher: HTTPFetcher?

    /// A resolver; `fetcher` is needed only for capabilities.
    public init(config: SiteConfig, fetcher: HTTPFetcher?) {
        self.config = config
        self.fetcher = fetcher
    }

    /// Resolves one animation.
    public func resolve(_ animation: AnimationConfig) async throws -> ResolvedSource {
        let source = animation.source
        let timeFormat = (try? TimeFormat(animation.timeFormat)) ?? TimeFormat.isoPattern
        switch source.kind {
        case .wmts(let wmts):
            return try await OGCSources.resolveWMTS(wmts, animation: animation, file: config.file, fetcher: requireFetcher())
        case .wms(let wms):
            return try await OGCSources.resolveWMS(wms, animation: animation, file: config.file, fetcher: requireFetcher())
        default:
            break
        }
        let frames = try Self.frames(animation.frames, timeFormat: timeFormat)
        let subdomains = source.subdomains
        let scheme = source.scheme
        let directory = config.directory
        @Sendable func row(_ z: Int, _ y: Int) -> Int { scheme == .tms ? (1 << z) - 1 - y : y }
        @Sendable func subdomain(_ x: Int, _ y: Int) -> String? { subdomains.isEmpty ? nil : subdomains[(x + y) % subdomains.count] }
        @Sendable func resolvePath(_ path: String) -> String { path.hasPrefix("/") ? path : directory.appendingPathComponent(path).path }

        switch source.kind {
        case .url(let text):
            let template = try TileTemplate(text)
            return ResolvedSource(frames: frames, maxZoom: source.maxZoom, locate: { frame, z, x, y in
                .http(template.expand(z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: frame.timeText, frame: frame.index))
            }, playerTemplate: { frame in template.expandFrame(time: frame.timeText, frame: frame.index) })
        case .path(let text):
            let template = try TileTemplate(text)
            return ResolvedSource(frames: frames, maxZoom: source.maxZoom, locate: { frame, z, x, y in
                .file(resolvePath(template.expand(z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: frame.timeText, frame: frame.index)))
            })
        case .mbtiles(let text):
            let template = try TileTemplate(text)
            return ResolvedSource(frames: frames, maxZoom: source.maxZoom, locate: { frame, z, x, y in
                let file = resolvePath(template.expand(z: z, x: x, y: y, subdomain: nil, time: frame.timeText, frame: frame.index))
                // MBTiles rows are TMS whatever the scheme key says.
                return .mbtiles(path: file, z: z, x: x, tmsY: (1 << z) - 1 - y)
            })
        case .demo(let layer):
            let count = frames.count
            return ResolvedSource(frames: frames, maxZoom: source.maxZoom, locate: { frame, z, x, y in
                .demo(DemoTile(layer: layer, frame: frame.index, frameCount: count, z: z, x: x, y: y))
            })
        case .perFrame:
            guard case .templates(let texts) = animation.frames else { return ResolvedSource(frames: [], locate: { _, _, _, _ in .file("") }) }
            let templates = try texts.map { try TileTemplate($0) }
            return ResolvedSource(frames: frames, maxZoom: source.maxZoom, locate: { frame, z, x, y in
                let url = templates[frame.index].expand(z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: nil, frame: nil)
                return url.hasPrefix("http://") || url.hasPrefix("https://") ? .http(url) : .file(resolvePath(url))
            }, playerTemplate: { frame in
                let text = templates[frame.index].text
                return text.hasPrefix("http") ? text : ""
            })
        case .wmts, .wms:
            throw StepFailure("unreachable source kind")
        }
    }

    /// The frames a non-OGC frames setting lists.
    static func frames(_ frames: FramesConfig, timeFormat: TimeFormat) throws -> [SourceFrame] {
        switch frames {
        case .count(let n):
            return (0..<n).map { SourceFrame(index: $0, time: nil, timeText: nil) }
        case .templates(let list):
            return list.indices.map { SourceFrame(index: $0, time: nil, timeText: nil) }
        case .times(let times):
            return times.enumerated().map { SourceFrame(index: $0, time: $1, timeText: timeFormat.format($1)) }
        case .range(let start, let end, let step):
            return try expand(start: start, end: end, step: step).enumerated().map {
                SourceFrame(index: $0, time: $1, timeText: timeFormat.format($1))
            }
        case .latest:
            throw StepFailure("frames.latest needs a WMTS or WMS source")
        }
    }

    /// Instants from start to end (inclusive) by an ISO 8601 duration, calendar-aware for months and years.
    static func expand(start: Date, end: Date, step: String) throws -> [Date] {
        let components = try StepComponents(step)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var out: [Date] = []
        var k = 0
        while true {
            guard let next = calendar.date(byAdding: components.scaled(k), to: start), next <= end else { break }
            out.append(next)
            k += 1
            if out.count > 100_000 { break }
        }
        return out
    }

    func requireFetcher() throws -> HTTPFetcher {
        guard let fetcher else { throw StepFailure("this source needs the network") }
        return fetcher
    }
}

/// An ISO 8601 duration as calendar components.
struct StepComponents {
    var months = 0
    var seconds = 0.0

    init(_ text: String) throws {
        guard let seconds = ConfigLoader.durationParts(text) else {
            throw StepFailure("\"\(text)\" is not an ISO 8601 duration")
        }
        months = seconds.months
        self.seconds = seconds.seconds
    }

    func scaled(_ k: Int) -> DateComponents {
        var c = DateComponents()
        c.month = months * k
        c.nanosecond = 0
        c.second = Int(seconds * Double(k))
        return c
    }
}
