import Foundation
import MatsiteCapabilities

/// Resolves each animation's source: which frames exist and where their tiles live.
/// Template, file, archive and demo sources resolve offline; WMTS and WMS read the
/// service's capabilities first.
struct SourceResolver: Sendable {
    let config: SiteConfig
    let fetcher: HTTPFetcher?
    /// The build's clock: rolling windows end here, index times after it are not frames yet.
    let now: TimeInstant

    /// A resolver; `fetcher` is needed for capabilities and fetched frame indexes. `now`
    /// is `--at`, else the clock.
    init(config: SiteConfig, fetcher: HTTPFetcher?, now: TimeInstant = .now()) {
        self.config = config
        self.fetcher = fetcher
        self.now = now
    }

    /// Resolves one animation; with `runs:`, its frames as run candidates.
    func resolve(_ animation: AnimationConfig) async throws -> ResolvedSource {
        var resolved = try await resolveFrames(animation)
        if let runs = animation.runs, resolved.runCandidates.isEmpty {
            resolved.runCandidates = RunCandidate.candidates(of: resolved.frames, runs: runs, now: now)
            resolved.frames = []
        }
        return resolved
    }

    /// Resolves one animation's frames and where their tiles are.
    func resolveFrames(_ animation: AnimationConfig) async throws -> ResolvedSource {
        let source = animation.source
        let timeFormat = animation.timeFormat
        switch source.kind {
        case .wmts(let wmts):
            return try await OGCSources.resolveWMTS(wmts, animation: animation, file: config.file, fetcher: requireFetcher(), now: now)
        case .wms(let wms):
            return try await OGCSources.resolveWMS(wms, animation: animation, file: config.file, fetcher: requireFetcher(), now: now)
        default:
            break
        }
        let frames: [SourceFrame]
        if case .index(let index) = animation.frames {
            frames = try await indexFrames(index, animation: animation)
        } else {
            frames = try Self.frames(animation.frames, timeFormat: timeFormat, now: now)
        }
        let subdomains = source.subdomains
        let scheme = source.scheme
        let directory = config.directory
        @Sendable func row(_ z: Int, _ y: Int) -> Int { scheme == .tms ? (1 << z) - 1 - y : y }
        @Sendable func subdomain(_ x: Int, _ y: Int) -> String? { subdomains.isEmpty ? nil : subdomains[(x + y) % subdomains.count] }
        @Sendable func resolvePath(_ path: String) -> String { path.hasPrefix("/") ? path : directory.appendingPathComponent(path).path }

        switch source.kind {
        case .url(let template):
            return ResolvedSource(
                frames: frames, maxZoom: source.maxZoom,
                locate: { frame, z, x, y in
                    .http(template.expand(z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: frame.timeText, frame: frame.index, fields: frame.fields))
                }, playerTemplate: { frame in template.expandFrame(time: frame.timeText, frame: frame.index, fields: frame.fields) })
        case .path(let template):
            return ResolvedSource(
                frames: frames, maxZoom: source.maxZoom,
                locate: { frame, z, x, y in
                    .file(
                        resolvePath(
                            template.expand(
                                z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: frame.timeText, frame: frame.index, fields: frame.fields)))
                })
        case .mbtiles(let template):
            let archives = try mbtilesArchives(template, frames: frames, animation: animation, resolvePath: resolvePath)
            return ResolvedSource(
                frames: frames, maxZoom: source.maxZoom ?? archives.maxZoom,
                locate: { frame, z, x, y in
                    let file = resolvePath(template.expand(z: z, x: x, y: y, subdomain: nil, time: frame.timeText, frame: frame.index, fields: frame.fields))
                    // MBTiles rows are TMS whatever the scheme key says.
                    return .mbtiles(path: file, z: z, x: x, tmsY: (1 << z) - 1 - y)
                }, notes: archives.notes)
        case .demo(let layer):
            return ResolvedSource(
                frames: frames, maxZoom: source.maxZoom,
                locate: { frame, z, x, y in
                    .demo(DemoTile(layer: layer, time: DemoRadar.time(of: frame), z: z, x: x, y: y))
                })
        case .perFrame:
            guard case .templates(let templates) = animation.frames else { return ResolvedSource(frames: [], locate: { _, _, _, _ in .file("") }) }
            return ResolvedSource(
                frames: frames, maxZoom: source.maxZoom,
                locate: { frame, z, x, y in
                    let template = templates[frame.index]
                    let address = template.expand(z: z, x: x, y: row(z, y), subdomain: subdomain(x, y), time: nil, frame: nil)
                    return template.isHTTP ? .http(address) : .file(resolvePath(address))
                },
                playerTemplate: { frame in
                    let template = templates[frame.index]
                    return template.isHTTP ? template.text : ""
                })
        case .wmts, .wms:
            throw SourceResolutionError.resolvedElsewhere("a WMTS or WMS source")
        }
    }

    /// Reads each frame's archive's metadata (once per file): a format that is not raster, a
    /// zoom the archive lacks or a box wholly outside it is a config error at
    /// `source.mbtiles`; the archives' deepest zoom stands in for `max_zoom` when that is
    /// not set (deeper zooms are then scaled up from it, not 27 missing rows).
    func mbtilesArchives(
        _ template: TileTemplate, frames: [SourceFrame], animation: AnimationConfig, resolvePath: (String) -> String
    ) throws -> (maxZoom: Int?, notes: [String]) {
        var paths: [String] = []
        for frame in frames {
            let path = resolvePath(template.expand(z: 0, x: 0, y: 0, subdomain: nil, time: frame.timeText, frame: frame.index, fields: frame.fields))
            // One archive per tile ({z}/{x}/{y} in the file name) is not an archive per frame: no metadata to trust.
            let other = resolvePath(template.expand(z: 1, x: 1, y: 1, subdomain: nil, time: frame.timeText, frame: frame.index, fields: frame.fields))
            guard path == other else { return (nil, []) }
            if !paths.contains(path) { paths.append(path) }
        }
        let keyPath = "\(animation.keyPath).source.mbtiles"
        var found: [(path: String, metadata: MBTilesMetadata)] = []
        for path in paths {
            let metadata: MBTilesMetadata?
            do { metadata = try MBTilesMetadata.read(path) } catch {
                throw ConfigError(file: config.file, line: animation.line, keyPath: keyPath, message: "\(path) is not an MBTiles archive: \(error)")
            }
            if let metadata { found.append((path, metadata)) }
        }
        let deepest = found.compactMap(\.metadata.maxZoom).min()
        let sourceZoom = min(animation.zoom, animation.source.maxZoom ?? deepest ?? animation.zoom)
        for (path, metadata) in found {
            if let problem = metadata.problem(sourceZoom: sourceZoom, box: animation.bbox) {
                throw ConfigError(file: config.file, line: animation.line, keyPath: keyPath, message: "the archive \(path) \(problem)")
            }
        }
        guard let first = found.first?.metadata else { return (nil, []) }
        var note = "MBTiles: \(found.count) archive(s) with metadata, format \(first.format ?? "unstated")"
        if let min = first.minZoom, let max = first.maxZoom { note += ", zoom \(min)-\(max)" }
        if animation.source.maxZoom == nil, let deepest, deepest < animation.zoom {
            note += "; zoom \(animation.zoom) is drawn from zoom \(deepest) tiles, scaled up"
        }
        return (deepest, [note])
    }

    /// The frames a non-OGC frames setting lists.
    static func frames(_ frames: FramesConfig, timeFormat: TimeFormat, now: TimeInstant) throws -> [SourceFrame] {
        switch frames {
        case .count(let n):
            return (0..<n).map { SourceFrame(index: $0, time: nil, timeText: nil) }
        case .templates(let list):
            return list.indices.map { SourceFrame(index: $0, time: nil, timeText: nil) }
        case .times(let times):
            return times.enumerated().map { SourceFrame(index: $0, time: $1, timeText: timeFormat.format($1)) }
        case .range(let start, let end, let step):
            let instants = TimeInstant.series(from: start, through: end, step: step, limit: 100_000)
            return instants.enumerated().map { SourceFrame(index: $0, time: $1, timeText: timeFormat.format($1)) }
        case .rolling(let window):
            let observed = window.times(now: now).map { (time: $0, kind: FrameKind.observed) }
            let forecast = window.forecastTimes(now: now).map { (time: $0, kind: FrameKind.forecast) }
            return (observed + forecast).enumerated().map { SourceFrame(index: $0, time: $1.time, timeText: timeFormat.format($1.time), kind: $1.kind) }
        case .latest:
            throw SourceResolutionError.latestNeedsOGC
        case .index:
            throw SourceResolutionError.resolvedElsewhere("frames.index")
        }
    }

    /// Reads a frame index (fetched through the tile fetcher and cache, or from a file) and
    /// checks that each frame's tile URL is still http(s) once its fields are filled in.
    func indexFrames(_ index: FrameIndexConfig, animation: AnimationConfig) async throws -> [SourceFrame] {
        let bytes: [UInt8]
        switch index.location {
        case .url(let url):
            let response: HTTPResponseData
            do {
                response = try await requireFetcher().get(url.text, accept: "application/json,*/*;q=0.1", maxBytes: FrameIndex.maxBytes)
            } catch let failure as FetchError {
                let hint = failure.problem.hint(tolerated: false).map { "\n  hint: \($0)" } ?? ""
                throw FrameIndexError(document: url.text, path: "", message: "cannot be fetched: \(failure.problem)\(hint)")
            }
            guard response.status == 200 else {
                throw FrameIndexError(document: url.text, path: "", message: "HTTP \(response.status) (expected 200 and a JSON document)")
            }
            bytes = response.body
        case .file(let path):
            let file = config.resolve(path)
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            guard size <= FrameIndex.maxBytes else {
                throw FrameIndexError(document: path, path: "", message: "the file is \(size) bytes, over the \(FrameIndex.maxBytes >> 20) MiB limit")
            }
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw FrameIndexError(document: path, path: "", message: "cannot read \(file.path)")
            }
            bytes = [UInt8](data)
        }
        let frames = try FrameIndex.frames(
            from: bytes, config: index, maxItems: config.limits.maxFrames, now: now,
            timeFormat: animation.timeFormat)
        if case .url(let template) = animation.source.kind, !template.isHTTP {
            // The template starts with an index field ({host}): what it gives must be a URL.
            for frame in frames {
                let address = template.expand(z: 0, x: 0, y: 0, subdomain: nil, time: frame.timeText, frame: frame.index, fields: frame.fields)
                guard HTTPURL.host(ofTemplate: address) != nil else {
                    throw FrameIndexError(
                        document: index.name, path: "\(index.items)[time \(frame.timeText ?? "")]",
                        message: "the tile URL becomes \"\(address.prefix(80))\", not an http(s) URL: check globals/fields")
                }
            }
        }
        return frames
    }

    func requireFetcher() throws -> HTTPFetcher {
        guard let fetcher else { throw SourceResolutionError.needsNetwork }
        return fetcher
    }
}

/// A source that cannot be resolved for a reason the config loader already rules out; kept
/// typed so that a slip between the two says where it happened.
enum SourceResolutionError: ClassifiedError, CustomStringConvertible, Equatable {
    /// The source reads capabilities or an index, and this run has no HTTP client.
    case needsNetwork
    /// `frames: { latest: N }` without a WMTS or WMS source.
    case latestNeedsOGC
    /// Asked of the wrong resolver function (what it was).
    case resolvedElsewhere(String)

    var exitClass: ExitClass {
        self == .latestNeedsOGC ? .config : .failed
    }

    var description: String {
        switch self {
        case .needsNetwork: "this source needs the network, and this run has no HTTP client"
        case .latestNeedsOGC: "frames.latest needs a WMTS or WMS source (they advertise their times)"
        case .resolvedElsewhere(let what): "\(what) is not resolved here (a matsite bug: please report it)"
        }
    }
}
