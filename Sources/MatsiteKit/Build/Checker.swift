import Foundation

/// `matsite check`: validates the config (already done by loading it), resolves every
/// source and probes one tile per frame, writing nothing (no site, no cache).
public struct Checker: Sendable {
    /// The config to check.
    public let config: SiteConfig
    /// The time taken as now (`--at`).
    public let now: Date

    /// One animation's findings.
    public struct Finding: Sendable {
        public var id: String
        public var lines: [String] = []
        public var problems: [String] = []
    }

    /// Creates a checker.
    public init(config: SiteConfig, now: Date = Date()) {
        self.config = config
        self.now = now
    }

    /// Probes every animation. A source that cannot be resolved becomes a problem, not a throw.
    public func run() async -> [Finding] {
        var noCache = config
        noCache.cache.enabled = false
        let fetcher = HTTPFetcher(options: config.http)
        let resolver = SourceResolver(config: noCache, fetcher: fetcher, now: now)
        let loader = TileSourceLoader(fetcher: fetcher, exceptionMessage: OGCSources.exceptionMessage)
        var findings: [Finding] = []
        for animation in config.animations {
            var finding = Finding(id: animation.id)
            do {
                // As a build would: a live feed's newest frames not published yet are left out.
                let trimmed = await UnpublishedFrames.trim(try await resolver.resolve(animation), animation: animation, loader: loader)
                let source = trimmed.source
                let plan = Planner.plan(animation, source: source)
                finding.lines += trimmed.skipped.map { "left out: \($0.time): \($0.reason)" }
                try plan.checkLimits(config.limits, file: config.file)
                if let image = try LegendImage.read(animation, config: config) { finding.lines.append("legend image: \(image.bytes.count) bytes") }
                let layout = plan.layout
                finding.lines.append(
                    "frames: \(plan.frames.count), \(layout.width)x\(layout.height) px at zoom \(animation.zoom), \(layout.tileCount) tiles each (source zoom \(plan.sourceZoom))"
                )
                if let first = plan.frames.first?.time, let last = plan.frames.last?.time {
                    finding.lines.append("times: \(TimeFormat.iso(first)) .. \(TimeFormat.iso(last))")
                }
                finding.lines += source.notes
                // One tile per frame: the one nearest the frame's centre.
                let centre = (layout.rows.count / 2) * layout.columns.count + layout.columns.count / 2
                var ok = 0
                for frame in plan.frames {
                    let locator = frame.tiles[centre]
                    switch await loader.load(locator) {
                    case .tile(let bytes, _):
                        ok += 1
                        if frame.index == 0 { finding.lines.append("probe: \(locator) -> PNG, \(bytes.count) bytes") }
                    case .absent(let reason):
                        finding.problems.append("frame \(frame.index): \(locator): \(reason)")
                    case .failed(let reason):
                        finding.problems.append("frame \(frame.index): \(locator): \(reason)")
                    }
                }
                finding.lines.append("probed \(plan.frames.count) tile(s), one per frame: \(ok) ok")
            } catch {
                finding.problems.append("\(BuildError.stamping(error, with: .plan))")
            }
            findings.append(finding)
        }
        await fetcher.shutdown()
        return findings
    }
}
