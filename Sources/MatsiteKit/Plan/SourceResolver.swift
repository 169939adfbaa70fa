import Foundation
import MatsiteCapabilities

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
        let timeFormat = animation.timeFormat
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
        case .url(let template):
            return ResolvedSource(frames: frames, maxZoom: source.maxZoom, locate: { frame, z, x, y in
                .http(template.expand(z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: frame.timeText, frame: frame.index))
            }, playerTemplate: { frame in template.expandFrame(time: frame.timeText, frame: frame.index) })
        case .path(let template):
            return ResolvedSource(frames: frames, maxZoom: source.maxZoom, locate: { frame, z, x, y in
                .file(resolvePath(template.expand(z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: frame.timeText, frame: frame.index)))
            })
        case .mbtiles(let template):
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
            guard case .templates(let templates) = animation.frames else { return ResolvedSource(frames: [], locate: { _, _, _, _ in .file("") }) }
            return ResolvedSource(frames: frames, maxZoom: source.maxZoom, locate: { frame, z, x, y in
                let template = templates[frame.index]
                let address = template.expand(z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: nil, frame: nil)
                return template.isHTTP ? .http(address) : .file(resolvePath(address))
            }, playerTemplate: { frame in
                let template = templates[frame.index]
                return template.isHTTP ? template.text : ""
            })
        case .wmts, .wms:
            throw BuildError.stage("plan", "unreachable source kind")
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
            let instants = TimeInstant.series(from: TimeInstant(start), through: TimeInstant(end), step: step, limit: 100_000)
            return instants.enumerated().map { SourceFrame(index: $0, time: $1.date, timeText: timeFormat.format($1)) }
        case .latest:
            throw BuildError.stage("plan", "frames.latest needs a WMTS or WMS source")
        }
    }

    func requireFetcher() throws -> HTTPFetcher {
        guard let fetcher else { throw BuildError.stage("plan", "this source needs the network") }
        return fetcher
    }
}
