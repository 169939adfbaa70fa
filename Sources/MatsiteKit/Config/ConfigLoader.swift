import Foundation
import MatsiteCapabilities
import Yams

/// Reads `matsite.yml` into a `SiteConfig`, checking every key, type and range before
/// anything is fetched or written.
public enum ConfigLoader {
    /// Reads and validates a config file.
    public static func load(file url: URL) throws -> SiteConfig {
        let name = url.path
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ConfigError(file: name, line: nil, keyPath: "", message: "cannot read the file (\(Self.reason(error)))")
        }
        var config = try parse(data, file: name)
        config.directory = url.deletingLastPathComponent()
        try checkExportTools(config)
        return config
    }

    /// Parses config text. `file` names it in messages.
    public static func parse(_ data: Data, file: String) throws -> SiteConfig {
        guard data.count <= 4 << 20 else {
            throw ConfigError(file: file, line: nil, keyPath: "", message: "the file is larger than 4 MiB; is it really a config?")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            let bad = YAMLDiagnostics.firstInvalidUTF8(data)
            throw ConfigError(
                file: file, line: bad.line, keyPath: "",
                message: "not UTF-8 text (invalid byte at line \(bad.line), byte offset \(bad.offset))")
        }
        if let line = YAMLKeyGuard.aliasBuiltKeyLine(in: text) {
            throw ConfigError(
                file: file, line: line, keyPath: "",
                message: "a mapping key built from aliases (*name) or a [list]/{mapping} is not allowed: keys are plain words")
        }
        let root: Node?
        // No tag resolution: the reader takes every scalar as text and checks it against the
        // type the key wants, and the default resolver compiles a dozen regexes per run.
        do { root = try Yams.compose(yaml: text, .basic) } catch let error as YamlError {
            throw YAMLDiagnostics.syntaxError(error, file: file)
        }
        var config = SiteConfig()
        config.file = file
        var reader = YAMLReader(file: file)
        guard let root else {
            throw ConfigError(file: file, line: nil, keyPath: "animations", message: "the config is empty; at least one animation is required")
        }
        try read(root, into: &config, reader: &reader)
        return config
    }

    /// The config `matsite build` uses when there is no `matsite.yml`: the offline demo,
    /// showing what a site can have. Its loop is the last two hours of the demo weather,
    /// every ten minutes, so it moves with the clock (and with `--at`) as a live feed's
    /// does, then a nowcast: the same weather carried on for the next half hour, forecast
    /// frames after now (so the first screen has a now); a point layer of storm reports made from the same weather; a legend with
    /// words; relative times; and the loop exported as the machine can (MP4 with ffmpeg,
    /// GIF with the label font: `leftOut` says what this machine cannot make, and why).
    static func demo(
        directory: URL, environment: [String: String] = LoopExportTools.processEnvironment
    ) -> (config: SiteConfig, leftOut: [DemoLeftOut]) {
        var demoWindow = RollingWindow(last: ISODuration(milliseconds: 6_600_000), step: ISODuration(milliseconds: 600_000))
        demoWindow.next = ISODuration(milliseconds: 1_800_000)
        var config = SiteConfig()
        config.title = "matsite demo"
        config.directory = directory
        config.file = "(embedded demo)"
        config.isEmbeddedDemo = true
        config.baseMap = BaseMapConfig(url: nil, attribution: "Demo land and sea: procedural, made by matsite", demo: true)
        var radar = AnimationConfig(
            id: "radar", title: "Demo radar loop (procedural)",
            bbox: BoundingBox(west: -95.5, south: 29.0, east: -74.5, north: 43.5), zoom: 6,
            frameDurationMs: 400, lastFrameDurationMs: 1500, crossfadeMs: 250,
            attribution: "Demo radar: procedural, made by matsite",
            source: SourceConfig(kind: .demo("radar")),
            frames: .rolling(demoWindow))
        // Drawn locally, the demo's fallback tiles cost no request: it shows the feature.
        radar.fallback.levels = 1
        radar.legend = DemoRadar.legend
        radar.timeLabel = "both"
        radar.opacity = 0.85
        var reports = PointLayerConfig(id: "reports", source: .demo("reports"))
        reports.title = "Storm reports"
        reports.time = "time"
        reports.window = ISODuration(milliseconds: 1_800_000)
        reports.label = "type"
        reports.popup = ["type", "magnitude", "time", "remarks"]
        reports.keyPath = "animations[0].points[0]"
        radar.points = [reports]
        var leftOut: [DemoLeftOut] = []
        var formats: [ExportConfig.Format] = []
        if let problem = LoopExportTools.fontProblem(environment) {
            leftOut.append(.exports(problem: problem))
        } else {
            if let problem = LoopExportTools.ffmpegProblem(environment) {
                leftOut.append(.mp4(problem: problem))
            } else {
                formats.append(.mp4)
            }
            formats.append(.gif)
        }
        if !formats.isEmpty { radar.export = ExportConfig(formats: formats) }
        config.animations = [radar]
        return (config, leftOut)
    }
}

// MARK: - The document's top level

extension ConfigLoader {
    static let topKeys = [
        "version", "title", "base_url", "output", "cache", "templates", "leaflet", "base_map",
        "http", "limits", "embed", "deadline_s", "animations", "deploy",
    ]

    static func read(_ root: Node, into config: inout SiteConfig, reader r: inout YAMLReader) throws {
        let top = try r.fields(root, "", allowed: topKeys)
        if let node = top["version"] { _ = try r.int(node, "version", in: 1...1) }
        if let node = top["title"] { config.title = try r.string(node, "title") }
        if let node = top["base_url"] {
            config.baseURL = try r.string(node, "base_url")
            config.baseURLLine = node.mark?.line
        }
        if let node = top["output"] { config.output = try nonEmpty(r.string(node, "output"), node, "output", r) }
        if let node = top["templates"] { config.templates = try nonEmpty(r.string(node, "templates"), node, "templates", r) }
        if let node = top["leaflet"] { config.leaflet = try nonEmpty(r.string(node, "leaflet"), node, "leaflet", r) }
        if let node = top["deadline_s"] { config.deadlineSeconds = try r.double(node, "deadline_s", in: 1...86400) }
        if let node = top["cache"] { config.cache = try cache(node, &r) }
        if let node = top["base_map"] { config.baseMap = try baseMap(node, &r) }
        if let node = top["http"] { config.http = try http(node, &r) }
        if let node = top["limits"] { config.limits = try limits(node, &r) }
        if let node = top["embed"] { config.embed = try embed(node, &r) }
        if let node = top["deploy"] { config.deploy = try deploy(node, &r) }
        guard let list = top["animations"] else {
            throw r.error(root, "animations", "missing: at least one animation is required")
        }
        let items = try r.list(list, "animations")
        guard !items.isEmpty else { throw r.error(list, "animations", "at least one animation is required") }
        var seen: [String: Int] = [:]
        for (index, (node, path)) in items.enumerated() {
            var animation = try self.animation(node, path, config: config, &r)
            animation.position = index
            if let first = seen[animation.id] {
                throw r.error(node, "\(path).id", "duplicate id \"\(animation.id)\" (also animations[\(first)])")
            }
            seen[animation.id] = index
            config.animations.append(animation)
        }
    }

    static func nonEmpty(_ text: String, _ node: Node, _ path: String, _ r: YAMLReader) throws -> String {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw r.error(node, path, "must not be empty") }
        return text
    }

    static func reason(_ error: any Swift.Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : Substring(self)
    }
}

extension ConfigLoader {
    /// The id rule: `[a-z0-9][a-z0-9-]*`, at most 64 characters (also how a previous
    /// site's manifest is trusted to name a folder).
    static func isSlug(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.count <= 64 else { return false }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789")
        return allowed.contains(first) && id.unicodeScalars.allSatisfy { allowed.contains($0) || $0 == "-" }
    }
}
