import Foundation
import MatsiteImaging

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
                // Point data is read and checked as a build would, so a bad row shows here first.
                let points = PointLoader(config: noCache, fetcher: fetcher)
                for layer in animation.points {
                    let set = try PointReader(layer: layer).read(try await points.bytes(of: layer))
                    let skipped = set.skipped > 0 ? ", \(set.skipped) invalid skipped (skip_invalid)" : ""
                    finding.lines.append("points \(layer.id): \(set.count) points\(skipped)")
                }
                let layout = plan.layout
                finding.lines.append(
                    "frames: \(plan.frames.count), \(layout.width)x\(layout.height) px at zoom \(animation.zoom), \(layout.tileCount) tiles each (source zoom \(plan.sourceZoom))"
                )
                if let first = plan.frames.first?.time, let last = plan.frames.last?.time {
                    finding.lines.append("times: \(first.manifestText) .. \(last.manifestText)")
                }
                finding.lines += source.notes
                if let export = animation.export {
                    // The tools were found when the config was loaded: say which will run.
                    let ffmpeg = export.formats.contains(.mp4) ? ", ffmpeg \(LoopExportTools.ffmpegPath() ?? "none")" : ""
                    finding.lines.append(
                        "export: \(export.formats.map(\.rawValue).joined(separator: ", ")) (font \(LoopExportTools.fontPath())\(ffmpeg))")
                }
                // One tile per frame: the one nearest the frame's centre.
                let centre = (layout.rows.count / 2) * layout.columns.count + layout.columns.count / 2
                var ok = 0
                var bad: [FailedTile] = []
                var described = false
                for frame in plan.frames {
                    let locator = frame.tiles[centre]
                    let problem: String?
                    switch await loader.load(locator) {
                    case .tile(let bytes, _):
                        problem = Self.probe(bytes, tileSize: layout.tileSize) { facts in
                            if !described { finding.lines.append("probe: \(locator) -> \(facts)") }
                            described = true
                        }
                    case .absent(let reason), .failed(let reason):
                        problem = reason
                    }
                    if let problem {
                        bad.append(FailedTile(animation: animation.id, frame: frame.index, locator: locator.description, reason: problem))
                    } else {
                        ok += 1
                    }
                }
                finding.lines.append("probed \(plan.frames.count) tile(s), one per frame: \(ok) ok")
                finding.problems += TileProblemGroups(bad).checkLines(tolerated: animation.missing == .transparent)
            } catch {
                finding.problems.append("\(BuildError.stamping(error, with: .plan))")
            }
            findings.append(finding)
        }
        await fetcher.shutdown()
        return findings
    }
}

private extension Checker {
    /// What is wrong with a probed tile (its format unreadable, its size not the planned
    /// `tile_size`), or nil; a good tile's facts go to `describe`.
    static func probe(_ bytes: [UInt8], tileSize: Int, describe: (String) -> Void) -> String? {
        let info: TileInfo
        do throws(ImageError) { info = try TileDecoder().info(of: bytes) } catch { return error.reason }
        // Worded as the stitcher words it, so that the grouped message gives the same hint.
        guard info.width == tileSize, info.height == tileSize else {
            return "tile is \(info.width)x\(info.height) pixels, expected \(tileSize)x\(tileSize)"
        }
        describe("\(info.kind.rawValue), \(bytes.count) bytes, \(info.width)x\(info.height) px")
        return nil
    }
}
