import Foundation
import MatsiteImaging
import Yams

/// The export keys of an animation: `export`, `export_width`, `export_background`,
/// `export_quality`, `export_timeout_s`.
extension ConfigLoader {
    static let exportKeys = ["export", "export_width", "export_background", "export_quality", "export_timeout_s"]

    static func export(_ f: Fields, into animation: inout AnimationConfig, _ r: inout YAMLReader) throws {
        guard let node = f["export"] else {
            if let extra = f.present(Array(exportKeys.dropFirst())).first {
                throw r.error(f[extra], f.path(extra), "given without export: (list the formats, e.g. export: [mp4, gif, webp])")
            }
            return
        }
        var formats: [ExportConfig.Format] = []
        for (item, path) in try r.list(node, f.path("export")) {
            let format = try r.choice(item, path, ExportConfig.Format.self, options: ExportConfig.Format.allCases)
            guard !formats.contains(format) else { throw r.error(item, path, "\(format.rawValue) is listed twice") }
            formats.append(format)
        }
        guard !formats.isEmpty else {
            throw r.error(node, f.path("export"), "lists no format: give some of mp4, gif, webp, or remove the key")
        }
        var export = ExportConfig(formats: formats)
        export.line = node.mark?.line
        if let n = f["export_width"] { export.width = try r.int(n, f.path("export_width"), in: 16...8192) }
        if let n = f["export_background"] {
            let text = try r.string(n, f.path("export_background"))
            if HTTPURL.host(ofTemplate: text) != nil {
                if let problem = backgroundTemplateProblem(text) { throw r.error(n, f.path("export_background"), problem) }
                export.backgroundTiles = text
            } else {
                guard let color = RGB(hex: text) else {
                    throw r.error(
                        n, f.path("export_background"), "\"\(text)\" is not a colour (#rgb or #rrggbb) or a tile URL (https://.../{z}/{x}/{y}.png)")
                }
                export.background = color
            }
        }
        if let n = f["export_quality"] { export.webpQuality = try r.int(n, f.path("export_quality"), in: 1...100) }
        if let n = f["export_timeout_s"] { export.timeoutSeconds = Int(try r.double(n, f.path("export_timeout_s"), in: 1...86_400).rounded(.up)) }
        animation.export = export
    }

    /// What is wrong with an `export_background` tile template, if anything. Exporting
    /// fetches every tile under the box in bulk, which OpenStreetMap's tile policy forbids.
    static func backgroundTemplateProblem(_ template: String) -> String? {
        guard let url = URL(string: template.replacingOccurrences(of: "{", with: "%7B").replacingOccurrences(of: "}", with: "%7D")),
            let host = url.host, !host.isEmpty
        else { return "\"\(template)\" is not a URL" }
        for needed in ["{z}", "{x}", "{y}"] where !template.contains(needed) {
            return "the tile URL has no \(needed): give an XYZ template such as https://tiles.example.org/{z}/{x}/{y}.png"
        }
        let rest = template.replacingOccurrences(of: "{z}", with: "").replacingOccurrences(of: "{x}", with: "")
            .replacingOccurrences(of: "{y}", with: "")
        if rest.contains("{") { return "only {z}, {x} and {y} are filled in a background tile URL" }
        if host == "openstreetmap.org" || host.hasSuffix(".openstreetmap.org") {
            return "OpenStreetMap's tile policy forbids bulk downloads, which an export background is: use a provider that allows them, or tiles you host"
        }
        return nil
    }

    /// The tools the config's exports need are on this machine: `ffmpeg` with libx264 for
    /// mp4 and the label font for any. Checked when a config file is loaded (so by both
    /// `check` and `build`), not by `parse`, which reads text alone.
    static func checkExportTools(_ config: SiteConfig, environment: [String: String] = LoopExportTools.processEnvironment) throws {
        for animation in config.animations {
            guard let export = animation.export else { continue }
            let path = "\(animation.keyPath).export"
            if let tiles = export.backgroundTiles, tiles == config.baseMap?.url {
                throw ConfigError(
                    file: config.file, line: export.line, keyPath: "\(animation.keyPath).export_background",
                    message:
                        "is base_map.url: the player fetches those tiles a viewer at a time, an export fetches them in bulk, which most providers forbid; name tiles whose provider allows bulk use (or that you host)"
                )
            }
            if let problem = LoopExportTools.fontProblem(environment) {
                throw ConfigError(file: config.file, line: export.line, keyPath: path, message: problem)
            }
            if export.formats.contains(.mp4), let problem = LoopExportTools.ffmpegProblem(environment) {
                throw ConfigError(file: config.file, line: export.line, keyPath: path, message: problem)
            }
        }
    }
}
