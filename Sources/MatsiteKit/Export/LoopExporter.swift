import Foundation
import MatsiteImaging

/// Writes an animation's loop as MP4, GIF and/or animated WebP (`export:`) beside its
/// frames, from the frames just staged.
///
/// Each exported frame is composed once (`LoopComposer`: background, the frame at the
/// animation's opacity, the labels) and handed to every encoder that needs it. A file's
/// name carries the hash of everything it is made from (`LoopExportNames`): when the
/// previous site has that name, it is hard-linked and nothing is decoded or encoded.
///
/// The rooms: the names and links here and in `LoopExportNames`; what lies under the frames
/// in `LoopBackground`; the labels and legend in `LoopLabels`; composing in `LoopComposer`;
/// the encoding in `LoopExporter+Encode` (its passes over the frames in `LoopEncodingPass`,
/// WebP's effort in `LoopEncoding+WebPEffort`), its costs in `LoopExportTimings`.
struct LoopExporter: Sendable {
    let animation: AnimationConfig
    let settings: ExportConfig
    let layout: FrameLayout
    /// True when the site's base map is the demo: it is drawn under the frames.
    let demoBaseMap: Bool
    /// The `export_background` tile source's tiles, fetched before the build publishes.
    var backgroundTiles: ExportBackgroundTiles? = nil
    let writer: SiteWriter
    /// The build's cache folder (nil with `--no-cache`): encoded frames are kept there.
    var cacheFolder: URL? = nil

    /// Bumped when the composition or an encoder's settings change, so old files are not kept.
    static let version = "matsite-loop-3"

    /// What was exported: each format's file name (relative to the animation's folder) and
    /// cost.
    struct Result: Sendable {
        var files: [ExportConfig.Format: String] = [:]
        var report: ExportReport
    }

    /// Exports `frames` (staged below `<animation>/`): links each format whose file the
    /// previous site has, and encodes the others.
    func export(_ frames: [Frame]) async throws -> Result {
        let names = self.names(frames)
        var result = Result(report: ExportReport(animation: animation.id))
        var pending: [ExportConfig.Format: String] = [:]
        for format in settings.formats {
            let name = names.fileName(format, frames: frames)
            let relative = "\(animation.id)/\(name)"
            result.files[format] = name
            if try writer.link(relative) {
                let bytes = writer.previous.regularFile(relative)?.size ?? 0
                result.report.files.append(.init(format: format, bytes: bytes, work: .kept))
            } else {
                pending[format] = name
            }
        }
        guard !pending.isEmpty else { return result }
        try await encode(frames, names: names, into: pending, report: &result.report)
        return result
    }

    /// What the names of this export's files and pictures follow from.
    func names(_ frames: [Frame]) -> LoopExportNames {
        let size = LoopExportNames.size(of: layout, width: settings.width)
        let labels = LoopLabels(legend: animation.legend, credit: LoopExportNames.plainText(animation.attribution))
        return LoopExportNames(
            animation: animation, settings: settings, size: size, labels: labels, background: background,
            times: frames.map { LoopExportNames.timeLabel(for: $0, count: frames.count, timeZone: animation.timeZone) })
    }

    /// What lies under the frames: the tile source's tiles, else the colour, else the demo
    /// base map in a demo site, else the default colour.
    var background: LoopBackground {
        if let backgroundTiles { return .tiles(backgroundTiles) }
        if let color = settings.background { return .color(color) }
        return demoBaseMap ? .demo : .color(ExportConfig.defaultBackground)
    }
}
