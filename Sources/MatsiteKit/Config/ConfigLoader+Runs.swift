import Foundation
import MatsiteCapabilities
import Yams

/// `runs:` and `run_format`: a template whose frames belong to model runs, and the
/// combinations that cannot work, each refused where it is written with its fix.
extension ConfigLoader {
    /// The placeholders a template with runs fills: the run, and the hours from it.
    static let runFields: Set<String> = ["run", "lead"]

    /// The feed's runs (nil without `runs:`), checked against its source and frames.
    static func runs(_ f: Fields, feed: FeedConfig, sourceNode: Node, framesNode: Node, _ r: inout YAMLReader) throws -> RunsConfig? {
        let template: TileTemplate? =
            switch feed.source.kind {
            case .url(let t), .path(let t), .mbtiles(let t): t
            default: nil
            }
        let named = template.map { $0.fieldNames.intersection(runFields) } ?? []
        if case .rolling(let window) = feed.frames, window.next != nil, let template, !template.placeholders.contains(.time), named.isEmpty {
            throw r.error(
                framesNode, f.path("frames.next"),
                "the template has no {time}, so every time would show the same tiles and next: no future: name the valid time {time} (or a model run's {run} with {time} or {lead}), or remove next:"
            )
        }
        guard let node = f["runs"] else {
            if let n = f["run_format"] {
                throw r.error(n, f.path("run_format"), "goes with runs: (a template naming {run}), e.g. runs: { every: PT1H, delay: PT50M }")
            }
            if let name = named.sorted().last {
                throw r.error(
                    sourceNode, f.path("source"),
                    "the template uses {\(name)}, which counts from a model run: add runs: { every: PT1H, delay: PT50M } (how often a run starts and how long after it is out)"
                )
            }
            return nil
        }
        let path = f.path("runs")
        guard let template, named.contains("run") else {
            let fix =
                switch feed.source.kind {
                case .wmts, .wms: "a WMS/WMTS source names its runs in its capabilities (reference_time): remove runs:"
                default: "name the run in source.url (or path) as {run}, e.g. /hrrr/{run}/f{lead}/{z}/{x}/{y}.png, or remove runs:"
                }
            throw r.error(node, path, "runs: goes with a template naming {run}: \(fix)")
        }
        guard case .rolling(let window) = feed.frames, let step = window.step, window.next != nil else {
            throw r.error(
                framesNode, f.path("frames"),
                "a source with runs: draws forecasts: give a window reaching past now, e.g. frames: { last: PT1H, next: PT6H, step: PT1H }")
        }
        guard template.placeholders.contains(.time) || named.contains("lead") else {
            throw r.error(
                sourceNode, f.path("source"), "with {run}, the template must say which time of the run: the valid time {time} or the lead time {lead}")
        }
        if named.contains("lead"), step.milliseconds % 3_600_000 != 0 {
            throw r.error(framesNode, f.path("frames.step"), "{lead} counts whole hours from the run: step must be whole hours (e.g. PT1H)")
        }
        let w = try r.fields(node, path, allowed: ["every", "delay"])
        guard let everyNode = w["every"] else {
            throw r.error(node, w.path("every"), "missing: how often a run starts, e.g. runs: { every: PT1H, delay: PT50M }")
        }
        let every = try duration(everyNode, w.path("every"), r: &r)
        guard every.isFixed else { throw r.error(everyNode, w.path("every"), "must be a fixed length (weeks, days, hours, minutes, seconds)") }
        var runs = RunsConfig(every: every)
        if let n = w["delay"] {
            runs.delay = try duration(n, w.path("delay"), r: &r, zero: true)
            guard runs.delay.isFixed else { throw r.error(n, w.path("delay"), "must be a fixed length (weeks, days, hours, minutes, seconds)") }
        }
        if let n = f["run_format"] {
            let text = try r.string(n, f.path("run_format"))
            do { runs.format = try TimeFormat(text) } catch { throw r.error(n, f.path("run_format"), error.description) }
        }
        return runs
    }
}
