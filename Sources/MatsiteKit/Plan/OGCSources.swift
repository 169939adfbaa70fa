import Foundation
import MatsiteCapabilities

/// WMTS and WMS sources: the capabilities document is read (through the same fetcher,
/// cache and retries as tiles), then frames and tile URLs follow from it.
enum OGCSources {
    /// The exceptions of an OGC exception document sent instead of an image, if it is one.
    static let exceptions: @Sendable ([UInt8]) -> [ServiceException]? = { body in ServiceException.parse(body) }

    static func resolveWMTS(
        _ config: WMTSSourceConfig, animation: AnimationConfig, file: String, fetcher: HTTPFetcher,
        now: TimeInstant
    ) async throws -> ResolvedSource {
        let path = "\(animation.keyPath).source.wmts"
        let body = try await capabilities(config.capabilities.text, fetcher: fetcher, kvp: "SERVICE=WMTS&REQUEST=GetCapabilities")
        let source: WMTSTileSource
        do {
            let document = try WMTSCapabilities.parse(body, url: config.capabilities.text)
            source = try document.tileSource(
                layer: config.layer, style: config.style, format: config.format,
                tileMatrixSet: config.tileMatrixSet)
        } catch {
            throw sourceError(error, animation: animation, path: path, file: file)
        }
        guard animation.zoom >= source.minZoom else {
            throw ConfigError(
                file: file, line: animation.line, keyPath: "\(animation.keyPath).zoom",
                message: "the WMTS tile matrix set \(source.tileMatrixSet) starts at zoom \(source.minZoom)")
        }
        let timed = try frames(
            animation, time: source.time, runs: source.referenceTime, layer: config.layer, file: file, now: now)
        var notes = [
            "WMTS layer \(source.layer), style \(source.style), \(source.format), tile matrix set \(source.tileMatrixSet) (zoom \(source.minZoom)-\(source.maxZoom), \(source.tileSize) px tiles)"
        ]
        if let time = source.time { notes.append("time dimension: \(summary(time))") }
        notes += timed.notes
        let runs = source.referenceTime
        var resolved = ResolvedSource(
            frames: timed.frames, maxZoom: source.maxZoom, tileSize: source.tileSize,
            locate: { frame, z, x, y in
                .http(source.tileURL(z: z, x: x, y: y, time: frame.timeText, run: frame.run.flatMap { runs?.format($0) }) ?? "")
            }, notes: notes)
        resolved.runCandidates = timed.candidates
        return resolved
    }

    static func resolveWMS(
        _ config: WMSSourceConfig, animation: AnimationConfig, file: String, fetcher: HTTPFetcher,
        now: TimeInstant
    ) async throws -> ResolvedSource {
        let path = "\(animation.keyPath).source.wms"
        let body = try await capabilities(config.url.text, fetcher: fetcher, kvp: "SERVICE=WMS&REQUEST=GetCapabilities&VERSION=\(config.version)")
        let source: WMSMapSource
        do {
            let document = try WMSCapabilities.parse(body, url: config.url.text)
            source = try document.mapSource(layers: config.layers, styles: config.styles, format: config.format, version: config.version)
        } catch {
            throw sourceError(error, animation: animation, path: path, file: file)
        }
        let timed = try frames(
            animation, time: source.time, runs: source.referenceTime, layer: config.layers, file: file, now: now)
        let tileSize = animation.source.tileSize
        var notes = ["WMS \(source.version) layers \(source.layers) in \(source.crs), GetMap \(source.getMapURL)"]
        if let time = source.time { notes.append("time dimension: \(summary(time))") }
        notes += timed.notes
        let runs = source.referenceTime
        var resolved = ResolvedSource(
            frames: timed.frames, maxZoom: animation.source.maxZoom,
            locate: { frame, z, x, y in
                .http(source.mapURL(z: z, x: x, y: y, tileSize: tileSize, time: frame.timeText, run: frame.run.flatMap { runs?.format($0) }))
            }, notes: notes)
        resolved.runCandidates = timed.candidates
        return resolved
    }
}

private extension OGCSources {
    /// Fetches a capabilities document: the URL as given when it already asks for one,
    /// else with the KVP GetCapabilities query added.
    static func capabilities(_ url: String, fetcher: HTTPFetcher, kvp: String) async throws -> [UInt8] {
        var target = url
        let lowered = url.lowercased()
        if !lowered.contains("request=getcapabilities") && !lowered.hasSuffix(".xml") {
            target += (url.contains("?") ? (url.hasSuffix("?") || url.hasSuffix("&") ? "" : "&") : "?") + kvp
        }
        let response: HTTPResponseData
        do {
            response = try await fetcher.get(target, accept: "application/xml,text/xml;q=0.9,*/*;q=0.1", maxBytes: 16 << 20)
        } catch {
            throw CapabilitiesFetchError(url: target, problem: error.problem, attempts: error.attempts)
        }
        guard response.status == 200 else {
            throw CapabilitiesFetchError(
                url: target, problem: .refused(status: response.status, excerpt: TileProblem.excerpt(response.body)), attempts: response.attempts)
        }
        return response.body
    }

    /// What a layer's dimensions give a window: frames of no run, the run candidates of a
    /// layer with model runs, and what `check` says of them.
    struct Timed {
        var frames: [SourceFrame]
        var candidates: [RunCandidate] = []
        var notes: [String] = []
    }

    /// The animation's frames from the layer's time dimension; with model runs
    /// (`reference_time`), one candidate per run, newest first.
    static func frames(
        _ animation: AnimationConfig, time: TimeDimension?, runs: ReferenceTime?, layer: String, file: String, now: TimeInstant
    ) throws -> Timed {
        if let runs {
            return try runFrames(animation, time: time, runs: runs, layer: layer, file: file, now: now)
        }
        return Timed(frames: try frames(animation, time: time, layer: layer, file: file, now: now))
    }

    /// A layer with model runs: its times are a run's forecasts, so only a window reaching
    /// past now can have them (the newest complete run, `RunChoice`). Each of the newest
    /// runs (`RunsConfig.candidates`) is asked for the same valid times: the window's step
    /// grid (`step:`, else the advertised period) from `last` before now to `next` after it,
    /// none before the run.
    static func runFrames(
        _ animation: AnimationConfig, time: TimeDimension?, runs: ReferenceTime, layer: String, file: String, now: TimeInstant
    ) throws -> Timed {
        let framesPath = "\(animation.keyPath).frames"
        let advertised = runs.runs.summary
        let said = "layer \(layer) advertises model runs (reference_time: \(advertised))"
        guard case .rolling(var window) = animation.frames, window.next != nil else {
            if case .count = animation.frames { return Timed(frames: try frames(animation, time: time, layer: layer, file: file, now: now)) }
            throw ConfigError(
                file: file, line: animation.line, keyPath: framesPath,
                message:
                    "\(said), so its times are a run's forecasts: give a window reaching past now, e.g. frames: { last: PT1H, next: PT12H }, and the newest complete run is published"
            )
        }
        guard let time else {
            throw ConfigError(
                file: file, line: animation.line, keyPath: framesPath,
                message: "\(said) but no time dimension: its valid times cannot be asked for; use another layer")
        }
        if window.step == nil {
            guard let period = time.summary.period.flatMap({ try? ISODuration.parse($0) }), period.isFixed, !period.isZero else {
                throw ConfigError(
                    file: file, line: animation.line, keyPath: "\(framesPath).step",
                    message:
                        "missing: \(said) at irregular times (\(summary(time))): give the valid times' spacing, e.g. frames: { last: PT1H, next: PT12H, step: PT1H }"
                )
            }
            window.step = period
        }
        let newest: [TimeInstant]
        do {
            newest = try runs.newest(RunsConfig.candidates + 8).filter { $0 <= now }.prefix(RunsConfig.candidates).map { $0 }
        } catch {
            throw ConfigError(file: file, line: animation.line, keyPath: framesPath, message: "layer \(layer): its model runs (reference_time): \(error)")
        }
        let valid = window.times(now: now) + window.forecastTimes(now: now)
        let candidates = newest.compactMap { run -> RunCandidate? in
            let own = valid.filter { $0 >= run }.enumerated().map { index, instant in
                SourceFrame(index: index, time: instant, timeText: time.format(instant), kind: .forecast, run: run)
            }
            return own.isEmpty ? nil : RunCandidate(run: run, frames: own)
        }
        guard !candidates.isEmpty else {
            throw ConfigError(
                file: file, line: animation.line, keyPath: framesPath,
                message: "\(said): no run out by \(now.iso8601) has a valid time in the window; widen last: or next:")
        }
        let note = "model runs (reference_time): \(advertised); newest first: " + candidates.map { runs.format($0.run) }.joined(separator: ", ")
        return Timed(frames: [], candidates: candidates, notes: [note])
    }

    /// The animation's frames from the layer's time dimension (a layer without runs): with
    /// `next:`, the advertised times after now up to `next` after it are forecasts.
    static func frames(
        _ animation: AnimationConfig, time: TimeDimension?, layer: String, file: String, now: TimeInstant
    ) throws -> [SourceFrame] {
        func requireTime() throws -> TimeDimension {
            guard let time else {
                throw ConfigError(
                    file: file, line: animation.line, keyPath: "\(animation.keyPath).frames",
                    message: "layer \(layer) has no time dimension; use frames: { count: N } or another layer")
            }
            return time
        }
        func frame(_ index: Int, _ instant: TimeInstant, _ time: TimeDimension) -> SourceFrame {
            SourceFrame(index: index, time: instant, timeText: time.format(instant))
        }
        do {
            switch animation.frames {
            case .latest(let n):
                let time = try requireTime()
                return try time.latest(n).enumerated().map { frame($0, $1, time) }
            case .range(let start, let end, let step):
                let time = try requireTime()
                let instants = try time.inRange(start: start, end: end, step: step)
                return instants.enumerated().map { frame($0, $1, time) }
            case .times(let instants):
                let time = try requireTime()
                try time.requireAdvertised(instants)
                return instants.enumerated().map { frame($0, $1, time) }
            case .rolling(let window):
                let time = try requireTime()
                let end = window.end(now: now)
                guard let newest = time.nearest(to: end).before else {
                    throw ConfigError(
                        file: file, line: animation.line, keyPath: "\(animation.keyPath).frames.last",
                        message: "layer \(layer) advertises no time at or before \(end.iso8601) (\(summary(time)))")
                }
                var instants = try time.advertised(from: newest.adding(window.last, times: -1), through: newest)
                if let latest = window.latest { instants = Array(instants.suffix(latest)) }
                var frames = instants.enumerated().map { frame($0, $1, time) }
                if let next = window.next, let after = time.nearest(to: now.adding(ISODuration(milliseconds: 1))).after, after <= now.adding(next) {
                    for instant in try time.advertised(from: after, through: now.adding(next)) {
                        var forecast = frame(frames.count, instant, time)
                        forecast.kind = .forecast
                        frames.append(forecast)
                    }
                }
                return frames
            case .index:
                throw ConfigError(
                    file: file, line: animation.line, keyPath: "\(animation.keyPath).frames.index",
                    message: "a frame index does not go with a WMTS or WMS source (they advertise their own times)")
            case .count(let n):
                return (0..<n).map { SourceFrame(index: $0, time: nil, timeText: nil) }
            case .templates:
                throw ConfigError(
                    file: file, line: animation.line, keyPath: "\(animation.keyPath).frames.templates",
                    message: "per-frame templates do not go with a WMTS or WMS source")
            }
        } catch let error as TimeDimensionError {
            throw ConfigError(
                file: file, line: animation.line, keyPath: "\(animation.keyPath).frames",
                message: "layer \(layer): \(error)")
        }
    }

    static func summary(_ time: TimeDimension) -> String {
        let first = time.first.map(\.iso8601) ?? "?", last = time.last.map(\.iso8601) ?? "?"
        let count = time.count.map { "\($0) instants" } ?? "continuous"
        return "\(first) .. \(last), \(count)" + (time.defaultValue.map { ", default \($0)" } ?? "")
    }

    /// A capabilities problem the user fixes in the config (unknown layer, no Web Mercator
    /// set...) becomes a config error naming the key; a broken document is a build error.
    static func sourceError(_ error: any Swift.Error, animation: AnimationConfig, path: String, file: String) -> any Swift.Error {
        guard let error = error as? CapabilitiesError else { return error }
        let key: String?
        switch error.reason {
        case .unknownLayer, .noWebMercatorCRS, .noWebMercatorSet, .noTimeDimension, .referenceTime: key = "layer"
        case .unknownStyle: key = "style"
        case .unknownFormat: key = "format"
        case .unknownTileMatrixSet, .tileMatrixSetNotWebMercator: key = "tile_matrix_set"
        default: key = nil
        }
        guard let key else { return error }
        let field = path.hasSuffix("wms") && key == "layer" ? "layers" : key
        return ConfigError(file: file, line: animation.line, keyPath: "\(path).\(field)", message: error.description)
    }
}

/// A capabilities document that could not be fetched, with why and what to do.
struct CapabilitiesFetchError: Swift.Error, CustomStringConvertible, Equatable {
    let url: String
    let problem: TileProblem
    let attempts: Int

    var description: String {
        let tries = attempts > 1 ? " (after \(attempts) attempts)" : ""
        let hint = problem.hint(tolerated: false)
        return "capabilities: \(url): \(problem)\(tries)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }
}
