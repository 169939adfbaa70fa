import Foundation
import MatsiteImaging
import Yams

/// The export keys of an animation: `export`, `export_width`, `export_background`,
/// `export_quality`.
extension ConfigLoader {
    static let exportKeys = ["export", "export_width", "export_background", "export_quality"]

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
            guard let color = RGB(hex: text) else {
                throw r.error(n, f.path("export_background"), "\"\(text)\" is not a colour: use #rgb or #rrggbb")
            }
            export.background = color
        }
        if let n = f["export_quality"] { export.webpQuality = try r.int(n, f.path("export_quality"), in: 1...100) }
        animation.export = export
    }

    /// The tools the config's exports need are on this machine: `ffmpeg` with libx264 for
    /// mp4 and the label font for any. Checked when a config file is loaded (so by both
    /// `check` and `build`), not by `parse`, which reads text alone.
    static func checkExportTools(_ config: SiteConfig, environment: [String: String] = LoopExportTools.processEnvironment) throws {
        for animation in config.animations {
            guard let export = animation.export else { continue }
            let path = "\(animation.keyPath).export"
            if let problem = LoopExportTools.fontProblem(environment) {
                throw ConfigError(file: config.file, line: export.line, keyPath: path, message: problem)
            }
            if export.formats.contains(.mp4), let problem = LoopExportTools.ffmpegProblem(environment) {
                throw ConfigError(file: config.file, line: export.line, keyPath: path, message: problem)
            }
        }
    }
}
