import Foundation
import MatsiteCapabilities
import Yams

/// An animation's `frames`.
extension ConfigLoader {
    static let frameKinds = ["templates", "times", "count", "latest", "range", "last", "index"]

    static func frames(_ node: Node, _ path: String, source: inout SourceConfig, _ r: inout YAMLReader) throws -> FramesConfig {
        let f = try r.fields(node, path, allowed: frameKinds + ["step", "delay", "next"])
        // `last` is the one kind that takes companions: step, delay, next, and latest (WMTS/WMS).
        if f["last"] != nil { return .rolling(try rolling(f, path, source: source, &r)) }
        if let n = f["next"] {
            throw r.error(n, f.path("next"), "goes with last: (a rolling window reaching past now), e.g. { last: PT2H, next: PT1H, step: PT10M }")
        }
        for key in ["step", "delay"] where f[key] != nil {
            throw r.error(f[key], f.path(key), "goes with last: (a rolling window), e.g. { last: PT2H, step: PT5M }")
        }
        let kinds = f.present(frameKinds)
        guard kinds.count == 1, let kind = kinds.first, let n = f[kind] else {
            throw r.error(
                node, path,
                kinds.isEmpty
                    ? "give one of \(frameKinds.joined(separator: ", "))"
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
                throw r.error(
                    n, kindPath,
                    "with frames.templates, source carries only options (subdomains, scheme, max_zoom, tile_size): remove its url/path/mbtiles/demo/wmts/wms")
            }
            return .templates(templates)
        case "times":
            let items = try r.list(n, kindPath)
            guard !items.isEmpty else { throw r.error(n, kindPath, "must list at least one time") }
            var times: [TimeInstant] = []
            for (item, itemPath) in items {
                let text = try r.string(item, itemPath)
                guard let date = TimeFormat.instant(text) else {
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
        case "index":
            return .index(try index(n, kindPath, &r))
        default:
            let w = try r.fields(n, kindPath, allowed: ["start", "end", "step"])
            func time(_ key: String) throws -> TimeInstant {
                guard let m = w[key] else { throw r.error(n, w.path(key), "missing") }
                let text = try r.string(m, w.path(key))
                guard let date = TimeFormat.instant(text) else {
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

    /// `last` with `step` and `delay` (any source with `{time}`), or `last` alone or with
    /// `latest` (a WMTS/WMS source: its advertised times within the window).
    static func rolling(_ f: Fields, _ path: String, source: SourceConfig, _ r: inout YAMLReader) throws -> RollingWindow {
        guard let lastNode = f["last"] else { throw r.error(f.node, f.path("last"), "missing") }
        var window = RollingWindow(last: try duration(lastNode, f.path("last"), r: &r))
        for kind in ["templates", "times", "count", "range", "index"] where f[kind] != nil {
            throw r.error(f[kind], f.path(kind), "give either last: (a rolling window) or \(kind):, not both")
        }
        if let n = f["delay"] { window.delay = try duration(n, f.path("delay"), r: &r, zero: true) }
        let advertises: Bool =
            switch source.kind {
            case .wmts, .wms: true
            default: false
            }
        if let n = f["latest"] {
            guard advertises else {
                throw r.error(
                    n, f.path("latest"), "latest: with last: needs a source that advertises its times (wmts or wms); for a {time} template give step:")
            }
            window.latest = try r.int(n, f.path("latest"), in: 1...100_000)
        }
        if let n = f["step"] {
            guard !advertises else {
                throw r.error(n, f.path("step"), "a WMTS/WMS source advertises its own times: leave out step (last: keeps those within the window)")
            }
            let step = try duration(n, f.path("step"), r: &r)
            guard step.isFixed else {
                throw r.error(
                    n, f.path("step"),
                    "must be a fixed length (weeks, days, hours, minutes, seconds): the window's times are multiples of it counted from 1970-01-01T00:00:00Z")
            }
            window.step = step
            guard window.last.isFixed else {
                throw r.error(lastNode, f.path("last"), "must be a fixed length (weeks, days, hours, minutes, seconds)")
            }
            let count = window.last.milliseconds / step.milliseconds + 1
            guard count <= 100_000 else { throw r.error(lastNode, f.path("last"), "holds \(count) steps of \(step)") }
        } else if let n = f["next"], !advertises {
            throw r.error(
                n, f.path("step"),
                "missing: next: reaches past now on the step grid, so a {time} source needs step: too (e.g. { last: PT2H, next: PT1H, step: PT10M })")
        } else if !advertises {
            throw r.error(lastNode, f.path("step"), "missing: a rolling window needs step: (e.g. { last: PT2H, step: PT5M })")
        }
        if let n = f["next"] {
            let next = try duration(n, f.path("next"), r: &r)
            guard next.isFixed else { throw r.error(n, f.path("next"), "must be a fixed length (weeks, days, hours, minutes, seconds)") }
            if let step = window.step {
                let count = (window.last.milliseconds + next.milliseconds) / step.milliseconds + 1
                guard count <= 100_000 else { throw r.error(n, f.path("next"), "with last: holds \(count) steps of \(step)") }
            }
            window.next = next
        }
        return window
    }

    static let indexKeys = ["url", "file", "items", "time", "fields", "globals", "latest"]

    /// `frames.index`: where the JSON document is and how to read it.
    static func index(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> FrameIndexConfig {
        let f = try r.fields(node, path, allowed: indexKeys)
        let location: FrameIndexConfig.Location
        switch (f["url"], f["file"]) {
        case (let n?, nil):
            let text = try r.string(n, f.path("url"))
            guard let url = HTTPURL(text) else {
                throw r.error(n, f.path("url"), "must be an http:// or https:// URL, found \"\(text)\" (use file: for a local document)")
            }
            location = .url(url)
        case (nil, let n?):
            location = .file(try nonEmpty(r.string(n, f.path("file")), n, f.path("file"), r))
        case (nil, nil):
            throw r.error(node, f.path("url"), "missing: give url: (fetched) or file: (read)")
        default:
            throw r.error(f["file"], path, "give only one of url and file")
        }
        var index = FrameIndexConfig(location: location)
        if let n = f["items"] {
            if case .mapping = n {
                // `items: { observed: radar.past, forecast: radar.nowcast }`: the lists by kind.
                let kinds = try r.fields(n, f.path("items"), allowed: ["observed", "forecast"])
                guard let observed = kinds["observed"], let forecast = kinds["forecast"] else {
                    throw r.error(
                        n, kinds.path(kinds["observed"] == nil ? "observed" : "forecast"),
                        "missing: items by kind names both lists, e.g. { observed: radar.past, forecast: radar.nowcast } (or give one list as items: radar.past)"
                    )
                }
                index.items = try dottedPath(observed, kinds.path("observed"), &r)
                index.forecastItems = try dottedPath(forecast, kinds.path("forecast"), &r)
            } else {
                index.items = try dottedPath(n, f.path("items"), &r)
            }
        }
        if let n = f["time"] { index.time = try dottedPath(n, f.path("time"), &r) }
        for key in ["fields", "globals"] {
            guard let n = f[key] else { continue }
            guard case .mapping(let mapping) = n else {
                throw r.error(n, f.path(key), "expected a mapping of placeholder names to document fields, e.g. { path: path }")
            }
            var names: [String: String] = [:]
            for (keyNode, valueNode) in mapping {
                let name = try r.string(keyNode, f.path(key))
                let namePath = "\(f.path(key)).\(name)"
                guard isPlaceholderName(name) else {
                    throw r.error(keyNode, namePath, "a placeholder name is letters, digits and _ (starting with a letter)")
                }
                guard TileTemplate.Placeholder(rawValue: name) == nil, !runFields.contains(name) else {
                    throw r.error(keyNode, namePath, "{\(name)} is matsite's own placeholder; choose another name")
                }
                guard index.fields[name] == nil, names[name] == nil else { throw r.error(keyNode, namePath, "named twice in fields and globals") }
                let field = try dottedPath(valueNode, namePath, &r)
                guard !field.isEmpty else { throw r.error(valueNode, namePath, "must name a field") }
                names[name] = field
            }
            if key == "fields" { index.fields = names } else { index.globals = names }
        }
        if let n = f["latest"] { index.latest = try r.int(n, f.path("latest"), in: 1...100_000) }
        return index
    }

    /// A dotted path (`radar.past`), or empty for "this value itself".
    static func dottedPath(_ node: Node, _ path: String, _ r: inout YAMLReader) throws -> String {
        let text = try r.string(node, path)
        guard text.isEmpty || text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty }) else {
            throw r.error(node, path, "\"\(text)\" is not a dotted path like radar.past (or empty for the value itself)")
        }
        return text
    }

    static func isPlaceholderName(_ name: String) -> Bool {
        func isLetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        guard let first = name.unicodeScalars.first, isLetter(first), name.count <= 64 else { return false }
        return name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// The placeholder names a `frames.index` fills, read before the source's template is
    /// parsed (the template may use them); empty for other kinds.
    static func indexFieldNames(_ framesNode: Node) -> Set<String> {
        guard case .mapping(let frames) = framesNode,
            let index = frames.first(where: { $0.key.string == "index" })?.value,
            case .mapping(let mapping) = index
        else { return [] }
        var names: Set<String> = []
        for key in ["fields", "globals"] {
            if let value = mapping.first(where: { $0.key.string == key })?.value, case .mapping(let fields) = value {
                for (name, _) in fields { if let text = name.string { names.insert(text) } }
            }
        }
        return names
    }

    /// An ISO 8601 duration, parsed once here; zero is refused (it would never advance).
    static func duration(_ node: Node, _ path: String, r: inout YAMLReader, zero: Bool = false) throws -> ISODuration {
        let text = try r.string(node, path)
        guard let duration = try? ISODuration.parse(text), zero || !duration.isZero, duration.months >= 0, duration.milliseconds >= 0 else {
            throw r.error(node, path, "\"\(text)\" is not an ISO 8601 duration like PT10M or P1D")
        }
        return duration
    }

    /// How many instants a range holds: the count the planner will step through.
    static func rangeCount(start: TimeInstant, end: TimeInstant, step: ISODuration) -> Int {
        TimeInstant.series(from: start, through: end, step: step, limit: 100_001).count
    }
}
