import Foundation
import MatsiteCapabilities
import Yams

/// An animation's `frames`.
extension ConfigLoader {
    static let frameKinds = ["templates", "times", "count", "latest", "range"]

    static func frames(_ node: Node, _ path: String, source: inout SourceConfig, _ r: inout YAMLReader) throws -> FramesConfig {
        let f = try r.fields(node, path, allowed: frameKinds)
        let kinds = f.present(frameKinds)
        guard kinds.count == 1, let kind = kinds.first, let n = f[kind] else {
            throw r.error(node, path, kinds.isEmpty ? "give one of \(frameKinds.joined(separator: ", "))"
                                                    : "give only one of \(frameKinds.joined(separator: ", ")) (found \(kinds.joined(separator: " and ")))")
        }
        let kindPath = f.path(kind)
        switch kind {
        case "templates":
            let items = try r.list(n, kindPath)
            guard !items.isEmpty else { throw r.error(n, kindPath, "must list at least one template") }
            var templates: [TileTemplate] = []
            for (item, itemPath) in items {
                let text = try r.string(item, itemPath)
                let template = try tileTemplate(text, item, itemPath, r)
                guard template.addressesTiles else { throw r.error(item, itemPath, "must contain {z}, {x} and {y} (or {-y})") }
                guard template.placeholders.isDisjoint(with: [.time, .frame]) else {
                    throw r.error(item, itemPath, "a per-frame template is already one frame: no {time} or {frame}")
                }
                templates.append(template)
            }
            guard case .perFrame = source.kind else {
                throw r.error(n, kindPath, "with frames.templates, source carries only options (subdomains, scheme, max_zoom, tile_size): remove its url/path/mbtiles/demo/wmts/wms")
            }
            return .templates(templates)
        case "times":
            let items = try r.list(n, kindPath)
            guard !items.isEmpty else { throw r.error(n, kindPath, "must list at least one time") }
            var times: [Date] = []
            for (item, itemPath) in items {
                let text = try r.string(item, itemPath)
                guard let date = TimeFormat.parseISO(text) else {
                    throw r.error(item, itemPath, "\"\(text)\" is not an ISO 8601 time like 2026-11-21T10:00:00Z")
                }
                if let last = times.last, date <= last { throw r.error(item, itemPath, "times must increase (this one is not after the one before)") }
                times.append(date)
            }
            return .times(times)
        case "count":
            return .count(try r.int(n, kindPath, in: 1...100_000))
        case "latest":
            return .latest(try r.int(n, kindPath, in: 1...100_000))
        default:
            let w = try r.fields(n, kindPath, allowed: ["start", "end", "step"])
            func time(_ key: String) throws -> Date {
                guard let m = w[key] else { throw r.error(n, w.path(key), "missing") }
                let text = try r.string(m, w.path(key))
                guard let date = TimeFormat.parseISO(text) else {
                    throw r.error(m, w.path(key), "\"\(text)\" is not an ISO 8601 time like 2026-11-21T10:00:00Z")
                }
                return date
            }
            let start = try time("start"), end = try time("end")
            guard start <= end else { throw r.error(n, kindPath, "start must not be after end") }
            guard let m = w["step"] else { throw r.error(n, w.path("step"), "missing (an ISO 8601 duration like PT10M)") }
            let step = try duration(m, w.path("step"), r: &r)
            let count = rangeCount(start: start, end: end, step: step)
            guard count <= 100_000 else { throw r.error(n, kindPath, "expands to \(count) frames") }
            return .range(start: start, end: end, step: step)
        }
    }

    /// An ISO 8601 duration, parsed once here; zero is refused (it would never advance).
    static func duration(_ node: Node, _ path: String, r: inout YAMLReader) throws -> ISODuration {
        let text = try r.string(node, path)
        guard let duration = try? ISODuration.parse(text), !duration.isZero, duration.months >= 0, duration.milliseconds >= 0 else {
            throw r.error(node, path, "\"\(text)\" is not an ISO 8601 duration like PT10M or P1D")
        }
        return duration
    }

    /// How many instants a range holds: the count the planner will step through.
    static func rangeCount(start: Date, end: Date, step: ISODuration) -> Int {
        TimeInstant.series(from: TimeInstant(start), through: TimeInstant(end), step: step, limit: 100_001).count
    }
}
