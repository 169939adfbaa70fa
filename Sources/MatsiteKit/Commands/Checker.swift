import Foundation
import MatsiteCapabilities
import MatsiteDeploy
import MatsiteImaging

/// `matsite check`: validates the config (already done by loading it), plans every
/// animation as a build would (`AnimationPlanning`: the same refusals, with the same exit
/// classes) and probes one tile per frame, writing nothing (no site, no cache). Each line
/// is handed on as soon as it is known, so a slow source is never silence.
public struct Checker: Sendable {
    /// The config to check.
    public let config: SiteConfig
    /// The time taken as now (`--at`), or nil for the clock.
    public let at: TimeInstant?

    /// One line of the report.
    public enum Line: Sendable, Equatable {
        /// An animation's findings start.
        case animation(String)
        /// Another part's findings start (`deploy`).
        case section(String)
        /// What planning and probing found.
        case fact(String)
        /// A problem the build would tolerate (`missing: transparent`): it draws such tiles
        /// empty and publishes, so `check` passes too.
        case note(String)
        /// A problem that would stop a build, with the exit class the build would end with.
        case problem(String, ExitClass)
        /// The model run a build would publish and the newer ones it would pass over.
        case runs(RunReport)

        /// The same line saying what it is about (`layer radar: ...`).
        func about(_ subject: String) -> Line {
            switch self {
            case .animation, .section: self
            case .fact(let text): .fact("\(subject): \(text)")
            case .note(let text): .note("\(subject): \(text)")
            case .problem(let text, let exitClass): .problem("\(subject): \(text)", exitClass)
            case .runs(let report): .runs(report.about(subject))
            }
        }
    }

    /// Creates a checker.
    public init(config: SiteConfig, at: TimeInstant? = nil) {
        self.config = config
        self.at = at
    }

    /// Checks every animation, handing each line to `report` as it comes; returns the exit
    /// class a build would end with (the worst problem's), or nil when there is no problem.
    public func run(report: @Sendable (Line) -> Void) async -> ExitClass? {
        var noCache = config
        noCache.cache.enabled = false
        let fetcher = HTTPFetcher(options: config.http)
        let loader = TileSourceLoader(fetcher: fetcher, exceptions: OGCSources.exceptions)
        let planning = AnimationPlanning(
            config: noCache, fetcher: fetcher, loader: loader, clock: PlanningClock(now: at ?? .now(), fromAt: at != nil))
        var worst: ExitClass?
        for animation in config.animations {
            report(.animation(animation.id))
            do {
                try await check(animation, planning: planning, fetcher: fetcher, loader: loader, noCache: noCache) { line in
                    if case .problem(_, let exitClass) = line { worst = max(worst ?? exitClass, exitClass) }
                    report(line)
                }
            } catch {
                let exitClass = ExitClass.of(error)
                worst = max(worst ?? exitClass, exitClass)
                // A message of several lines stays under its "problem:".
                report(.problem("\(BuildError.stamping(error, with: .plan))".replacingOccurrences(of: "\n", with: "\n  "), exitClass))
            }
        }
        await fetcher.shutdown()
        if let deploy = config.deploy {
            report(.section("deploy"))
            let check = DeployCheck(deploy: deploy).run()
            for line in check.lines { report(.fact(line)) }
            for (problem, exitClass) in check.problems {
                worst = max(worst ?? exitClass, exitClass)
                report(.problem(problem, exitClass))
            }
        }
        return worst
    }
}

private extension Checker {
    func check(
        _ animation: AnimationConfig, planning: AnimationPlanning, fetcher: HTTPFetcher, loader: TileSourceLoader, noCache: SiteConfig,
        report: (Line) -> Void
    ) async throws {
        let planned = try await planning.plan(animation)
        let plan = planned.plan
        // A layered animation: its timeline first, then the animation's own parts, then
        // each layer in order, as a one-source animation is checked, each line saying
        // which layer it is about.
        if !plan.layers.isEmpty, let first = plan.frames.first?.time, let last = plan.frames.last?.time {
            report(.fact("timeline: \(plan.frames.count) times, \(first.manifestText) .. \(last.manifestText)"))
        }
        for skipped in plan.skipped { report(.fact("left out: \(skipped.time): \(skipped.reason)")) }
        for runs in planned.runs { report(.runs(runs)) }
        if let image = try LegendImage.read(animation, config: config) { report(.fact("legend image: \(image.bytes.count) bytes")) }
        // Point data is read and checked as a build would, so a bad row shows here first.
        let points = PointLoader(config: noCache, fetcher: fetcher, observedThrough: plan.observedThrough)
        for layer in animation.points {
            let document = try await points.bytes(of: layer, animation: animation, frameTimes: plan.frames.map(\.time))
            let set = try await PointReader(layer: layer).read(document)
            let skipped = set.skipped > 0 ? ", \(set.skipped) invalid skipped (skip_invalid)" : ""
            report(.fact("points \(layer.id): \(set.count) points\(skipped)"))
        }
        if plan.layers.isEmpty { describe(plan, report: report) }
        for note in planned.notes { report(.fact(note)) }
        if let export = animation.export {
            // The tools were found when the config was loaded: say which will run.
            let ffmpeg = export.formats.contains(.mp4) ? ", ffmpeg \(LoopExportTools.ffmpegPath() ?? "none")" : ""
            report(.fact("export: \(export.formats.map(\.rawValue).joined(separator: ", ")) (font \(LoopExportTools.fontPath())\(ffmpeg))"))
        }
        let prefetched = PrefetchedTiles(base: loader, loaded: planned.prefetched)
        guard !plan.layers.isEmpty else { return await probe(plan, loader: prefetched, report: report) }
        for layer in plan.layers {
            func say(_ line: Line) { report(line.about("layer \(layer.layer?.id ?? plan.config.id)")) }
            for skipped in layer.plan.skipped { say(.fact("left out: \(skipped.time): \(skipped.reason)")) }
            if let image = try LegendImage.read(layer.plan.config, config: config) { say(.fact("legend image: \(image.bytes.count) bytes")) }
            describe(layer.plan, report: say(_:))
            for note in layer.notes { say(.fact(note)) }
            let shown = layer.mapping.filter { $0 != nil }.count
            let age = layer.maxAge.map { "max_age \($0)" } ?? "no max_age"
            say(.fact("shown at \(shown) of \(layer.mapping.count) timeline times (\(age))"))
            await probe(layer.plan, loader: prefetched, report: say(_:))
        }
    }

    /// A plan's frames: how many, their size and tiles, their times.
    func describe(_ plan: AnimationPlan, report: (Line) -> Void) {
        let layout = plan.layout
        report(
            .fact(
                "frames: \(plan.frames.count), \(layout.width)x\(layout.height) px at zoom \(plan.config.zoom), \(layout.tileCount) tiles each (source zoom \(plan.sourceZoom))"
            ))
        if let first = plan.frames.first?.time, let last = plan.frames.last?.time {
            report(.fact("times: \(first.manifestText) .. \(last.manifestText)"))
        }
        let forecasts = plan.frames.filter { $0.kind == .forecast }.compactMap(\.time)
        if let first = forecasts.first, let last = forecasts.last {
            report(.fact("forecast: \(forecasts.count) of the frames, \(first.manifestText) .. \(last.manifestText)"))
        }
    }

    /// One tile per frame, the one nearest the frame's centre, all frames at once (the
    /// fetcher bounds requests per host); reported in frame order.
    func probe(_ plan: AnimationPlan, loader: any TileLoader, report: (Line) -> Void) async {
        let layout = plan.layout
        let centre = (layout.rows.count / 2) * layout.columns.count + layout.columns.count / 2
        let outcomes = await withTaskGroup(of: (Int, TileOutcome).self) { group in
            for (i, frame) in plan.frames.enumerated() { group.addTask { (i, await loader.load(frame.tiles[centre])) } }
            var outcomes = [TileOutcome?](repeating: nil, count: plan.frames.count)
            for await (i, outcome) in group { outcomes[i] = outcome }
            return outcomes
        }
        var ok = 0
        var bad: [FailedTile] = []
        var blank: [String] = []
        for (frame, outcome) in zip(plan.frames, outcomes) {
            let locator = frame.tiles[centre]
            var problem: TileProblem?
            switch outcome {
            case .tile(let bytes, _):
                switch Self.probe(bytes, tileSize: layout.tileSize) {
                case .good(let facts):
                    if ok == 0 { report(.fact("probe: \(locator) -> \(facts)")) }
                    if TileDecoder().isFullyTransparent(bytes) { blank.append(frame.time?.manifestText ?? "frame \(frame.index)") }
                case .bad(let found): problem = found
                }
            case .problem(let found): problem = found
            case nil: problem = .transfer("not probed")
            }
            if let problem {
                bad.append(FailedTile(animation: plan.config.id, frame: frame.index, locator: locator.description, problem: problem))
            } else {
                ok += 1
            }
        }
        report(.fact("probed \(plan.frames.count) tile(s), one per frame: \(ok) ok"))
        if !blank.isEmpty {
            // A source may answer a time it has no data for with empty tiles (MapServer does):
            // a frame of such tiles is published blank (the build says so too).
            report(.note("\(blank.count) of \(plan.frames.count) probed tile(s) blank (every pixel transparent): \(BlankFramesReport.list(blank))"))
        }
        // As a build: missing: transparent draws such tiles empty and publishes, unless not
        // one tile of any frame can be had (the build then refuses to publish an empty
        // loop). When no probe found one, the other tiles decide, as they would in a build.
        var tolerated = plan.config.missing == .transparent
        if tolerated, ok == 0, !bad.isEmpty {
            let found = await Self.anyTile(plan, loader: loader)
            report(.fact(found.map { "probed the frames' other tiles: \($0) has one" } ?? "probed every tile: not one could be had"))
            tolerated = found != nil
        }
        // (Under missing: transparent the hints never advise setting it.)
        for line in TileProblemGroups(bad).checkLines(tolerated: plan.config.missing == .transparent) {
            report(tolerated ? .note(line) : .problem(line, .failed))
        }
        if plan.config.missing == .transparent, !tolerated {
            report(.problem("a build would not publish a loop without a single tile (missing: transparent or not)", .failed))
        }
    }

    /// The first tile found among every frame's tiles, newest frame first (a frame at a
    /// time, its tiles at once), in words; nil when there is none, as a build would find.
    static func anyTile(_ plan: AnimationPlan, loader: any TileLoader) async -> String? {
        for frame in plan.frames.reversed() {
            let found = await withTaskGroup(of: TileLocator?.self) { group in
                for locator in Set(frame.tiles) {
                    group.addTask { if case .tile = await loader.load(locator) { locator } else { nil } }
                }
                for await locator in group where locator != nil {
                    group.cancelAll()
                    return locator
                }
                return nil
            }
            if let found { return "frame \(frame.index) (\(found))" }
        }
        return nil
    }

    /// What a probed tile's bytes are.
    enum Probe {
        /// A usable tile: its facts in words.
        case good(String)
        /// Its format unreadable, or its size not the planned `tile_size`.
        case bad(TileProblem)
    }

    static func probe(_ bytes: [UInt8], tileSize: Int) -> Probe {
        let info: TileInfo
        do throws(ImageError) { info = try TileDecoder().info(of: bytes) } catch { return .bad(.undecodable(error.reason)) }
        guard info.width == tileSize, info.height == tileSize else {
            return .bad(.wrongSize(width: info.width, height: info.height, expected: tileSize))
        }
        return .good("\(info.kind.rawValue), \(bytes.count) bytes, \(info.width)x\(info.height) px")
    }
}
