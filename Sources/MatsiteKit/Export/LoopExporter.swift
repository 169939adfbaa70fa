import Foundation
import MatsiteCapabilities
import MatsiteImaging

/// Writes an animation's loop as MP4, GIF and/or animated WebP (`export:`) beside its
/// frames, from the frames just staged.
///
/// Each exported frame is composed once (background, the frame at the animation's opacity,
/// the time and attribution labels) and handed to every encoder that needs it. A file's
/// name carries the hash of everything it is made from (frames, durations, labels, size,
/// background, font, encoder settings): when the previous site has that name, it is
/// hard-linked and nothing is decoded or encoded.
struct LoopExporter: Sendable {
    let animation: AnimationConfig
    let settings: ExportConfig
    let layout: FrameLayout
    /// True when the site's base map is the demo: it is drawn under the frames.
    let demoBaseMap: Bool
    /// The `export_background` tile source's tiles, fetched before the build publishes.
    var backgroundTiles: ExportBackgroundTiles? = nil
    let writer: SiteWriter

    /// Bumped when the composition or an encoder's settings change, so old files are not kept.
    static let version = "matsite-loop-2"

    /// What was exported: the manifest's URLs and each format's cost.
    struct Result: Sendable {
        var exports = AnimationManifest.Exports()
        var report: ExportReport
    }

    /// One frame of the loop: what it shows, bottom to top, for how long.
    struct Frame: Sendable {
        var index: Int
        var time: TimeInstant?
        var durationMs: Int
        /// The pictures drawn over the background, bottom to top.
        var pictures: [LayerStack.Picture]

        /// Names the pictures in the export's key: a frame's hash, or each layer's with its
        /// opacity (`-` for a layer showing nothing).
        var key: String

        /// A one-source animation's frame, drawn at the animation's opacity.
        init(_ frame: PublishedFrame, opacity: Double) {
            index = frame.index
            time = frame.time
            durationMs = frame.durationMs
            pictures = [.init(file: frame.file, sha256: frame.sha256, opacity: opacity)]
            key = frame.sha256
        }

        /// A layered animation's timeline entry, its layers composed.
        init(_ entry: PublishedFrame, stack pictures: [LayerStack.Picture]) {
            index = entry.index
            time = entry.time
            durationMs = entry.durationMs
            self.pictures = pictures
            key = pictures.isEmpty ? "-" : pictures.map { "\($0.sha256)@\($0.opacity)" }.joined(separator: "+")
        }
    }

    /// Exports `frames` (their files staged below `<animation>/`).
    func export(_ frames: [Frame]) throws -> Result {
        let size = Self.size(of: layout, width: settings.width)
        let labels = frames.map { label(for: $0, count: frames.count) }
        let credit = Self.plainText(animation.attribution)
        var result = Result(report: ExportReport(animation: animation.id))
        var pending: [ExportConfig.Format: String] = [:]
        for format in settings.formats {
            let name = "loop-\(key(format, size: size, frames: frames, labels: labels, credit: credit).prefix(16)).\(format.ext)"
            let relative = "\(animation.id)/\(name)"
            result.exports[format] = name
            if try writer.link(relative) {
                let bytes = writer.previous.regularFile(relative)?.size ?? 0
                result.report.files.append(.init(format: format, bytes: bytes, work: .kept))
            } else {
                pending[format] = name
            }
        }
        guard !pending.isEmpty else { return result }
        let encoded = try encode(frames, labels: labels, credit: credit, size: size, into: pending)
        result.report.files += encoded.files
        result.report.composeSeconds = encoded.composeSeconds
        return result
    }

    /// The exported loop's size: `width` (or the frame's) with the frame's aspect ratio,
    /// both edges even for H.264's 4:2:0 chroma.
    static func size(of layout: FrameLayout, width: Int?) -> (width: Int, height: Int) {
        // The frame's own width, or one less: the frame is cut to even edges, not scaled.
        guard let width, width & ~1 != layout.width & ~1 else { return (max(2, layout.width & ~1), max(2, layout.height & ~1)) }
        let height = Int((Double(width) * Double(layout.height) / Double(layout.width)).rounded())
        return (max(2, width & ~1), max(2, height & ~1))
    }

    /// Attribution as plain text: its links' labels kept, the tags dropped.
    static func plainText(_ attribution: String) -> String {
        attribution.replacing(/<a\s[^>]*>/.ignoresCase(), with: "").replacing(/<\/a>/.ignoresCase(), with: "")
    }
}

private extension LoopExporter {
    /// The frame's time as the label shows it: in the animation's time zone, else UTC.
    func label(for frame: Frame, count: Int) -> String {
        guard let date = frame.time?.date else { return "Frame \(frame.index + 1) of \(count)" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        if let zone = animation.timeZone.flatMap(TimeZone.init(identifier:)) {
            formatter.timeZone = zone
            formatter.dateFormat = "yyyy-MM-dd HH:mm zzz"
            return formatter.string(from: date)
        }
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date) + " UTC"
    }

    func key(
        _ format: ExportConfig.Format, size: (width: Int, height: Int), frames: [Frame], labels: [String], credit: String
    )
        -> String
    {
        var text = "\(Self.version)\n\(format.rawValue)\n\(size.width)x\(size.height)\n\(background.description)\n"
        if let legend = animation.legend {
            text += "legend \(legend.unit) " + legend.stops.map { "\($0.value) \($0.color) \($0.label ?? "")" }.joined(separator: "; ") + "\n"
        }
        text += "opacity \(animation.opacity ?? 1)\ncredit \(credit)\nfont \(LoopExportTools.fontPath()) \(fontSize)\n"
        if format == .webp { text += "quality \(settings.webpQuality)\n" }
        for (frame, label) in zip(frames, labels) { text += "\(frame.key) \(frame.durationMs) \(label)\n" }
        return SHA256.hex(of: text)
    }

    /// What lies under the frames.
    enum Background: CustomStringConvertible {
        case color(RGB)
        case demo
        case tiles(ExportBackgroundTiles)

        var description: String {
            switch self {
            case .color(let c): "colour \(c.hex)"
            case .demo: "demo \(DemoBaseMap.version)"
            case .tiles(let t): "tiles \(t.digest)"
            }
        }
    }

    var background: Background {
        if let backgroundTiles { return .tiles(backgroundTiles) }
        if let color = settings.background { return .color(color) }
        return demoBaseMap ? .demo : .color(ExportConfig.defaultBackground)
    }

    /// File sizes are recorded in the key: a changed font file makes new exports.
    var fontSize: Int {
        ((try? FileManager.default.attributesOfItem(atPath: LoopExportTools.fontPath()))?[.size] as? Int) ?? 0
    }

    /// Encodes the formats in `pending` (format -> file name) in one pass over the frames.
    func encode(
        _ frames: [Frame], labels: [String], credit: String, size: (width: Int, height: Int),
        into pending: [ExportConfig.Format: String]
    ) throws -> (files: [ExportReport.File], composeSeconds: Double) {
        let folder = writer.root.appendingPathComponent(animation.id)
        let font = try LabelFont(path: LoopExportTools.fontPath())
        let base = try backgroundPixels(size)
        let decoder = TileDecoder(maxWidth: 1 << 15, maxHeight: 1 << 15)
        // In config order, so that the progress lines are too.
        var sinks: [(format: ExportConfig.Format, name: String, sink: any LoopSink)] = []
        for format in settings.formats {
            guard let name = pending[format] else { continue }
            sinks.append((format, name, try sink(format, size: size, durations: frames.map(\.durationMs), output: folder.appendingPathComponent(name))))
        }
        var seconds: [ExportConfig.Format: Double] = [:]
        var compose = 0.0
        func timed(_ format: ExportConfig.Format, _ body: () throws -> Void) rethrows {
            let start = ContinuousClock.now
            try body()
            seconds[format, default: 0] += Self.seconds(start.duration(to: .now))
        }
        for (frame, label) in zip(frames, labels) {
            try Task.checkCancellation()
            let start = ContinuousClock.now
            var canvas = LoopCanvas(width: size.width, height: size.height, background: base)
            for picture in frame.pictures {
                let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(picture.file)))
                canvas.draw(try decoder.decode(bytes, keepIndices: false), opacity: picture.opacity)
            }
            try drawLabels(on: &canvas, time: label, credit: credit, font: font)
            compose += Self.seconds(start.duration(to: .now))
            // The encoders take the frame side by side (ffmpeg works in its own process
            // meanwhile): the export's wall time is nearer the slowest encoder's than the sum.
            let spent = LockedBox<[(format: ExportConfig.Format, seconds: Double, error: (any Error)?)]>([])
            let encoders = sinks.map { SinkBox(format: $0.format, sink: $0.sink) }
            let shown = canvas
            let duration = frame.durationMs
            DispatchQueue.concurrentPerform(iterations: encoders.count) { i in
                let start = ContinuousClock.now
                var failure: (any Error)?
                do { try encoders[i].sink.add(shown, durationMs: duration) } catch { failure = error }
                let elapsed = Self.seconds(start.duration(to: .now))
                spent.withLock { $0.append((encoders[i].format, elapsed, failure)) }
            }
            for entry in spent.withLock({ $0 }) {
                if let error = entry.error { throw error }
                seconds[entry.format, default: 0] += entry.seconds
            }
        }
        var files: [ExportReport.File] = []
        func line(_ format: ExportConfig.Format, _ name: String) {
            let bytes = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            files.append(
                .init(format: format, bytes: bytes, work: .encoded(width: size.width, height: size.height, frames: frames.count, seconds: seconds[format] ?? 0))
            )
        }
        for (format, name, sink) in sinks {
            var out: [UInt8]?
            try timed(format) { out = try sink.finishLoop() }
            if let out { try writer.put(out, at: "\(animation.id)/\(name)") }
            line(format, name)
        }
        // Ends the encoders now (ffmpeg's log file goes with its encoder).
        sinks.removeAll()
        return (files, compose)
    }

    /// The encoder writing `format` to `output` (ffmpeg writes it; the others hand back bytes).
    func sink(_ format: ExportConfig.Format, size: (width: Int, height: Int), durations: [Int], output: URL) throws -> any LoopSink {
        switch format {
        case .gif:
            return try GIFLoopEncoder(width: size.width, height: size.height)
        case .webp:
            let quality = settings.webpQuality
            return try WebPLoopEncoder(width: size.width, height: size.height, lossless: quality == 100, quality: quality, effort: 3)
        case .mp4:
            guard let ffmpeg = LoopExportTools.ffmpegPath() else {
                throw ExportError.ffmpegMissing(keyPath: animation.keyPath)
            }
            return try FFmpegLoopEncoder(
                ffmpeg: ffmpeg, width: size.width, height: size.height, durations: durations.isEmpty ? [1] : durations, output: output,
                timeLimit: .seconds(settings.timeoutSeconds))
        }
    }

    /// The time at the top left and the attribution at the bottom right, each on a dark
    /// band so that it reads on any map.
    func drawLabels(on canvas: inout LoopCanvas, time: String, credit: String, font: LabelFont) throws {
        let px = max(11, min(40, canvas.height / 28))
        let white = RGB(255, 255, 255)
        let dark = RGB(0, 0, 0)
        let pad = max(3, px / 3)
        let t = try font.measure(time, px: px)
        canvas.shade(x: 0, y: 0, width: t.width + 2 * pad, height: t.ascent + t.descent + 2 * pad, color: dark, alpha: 160)
        try canvas.text(time, font: font, px: px, x: pad, baseline: pad + t.ascent, color: white)
        let small = max(10, px * 3 / 4)
        if let legend = animation.legend {
            try drawLegend(legend, on: &canvas, font: font, px: small, pad: pad, below: (t.width + 2 * pad, t.ascent + t.descent + 2 * pad))
        }
        guard !credit.isEmpty else { return }
        let c = try font.measure(credit, px: small)
        let bandWidth = min(canvas.width, c.width + 2 * pad)
        let bandHeight = c.ascent + c.descent + 2 * pad
        canvas.shade(x: canvas.width - bandWidth, y: canvas.height - bandHeight, width: bandWidth, height: bandHeight, color: dark, alpha: 160)
        try canvas.text(
            credit, font: font, px: small, x: canvas.width - bandWidth + pad, baseline: canvas.height - pad - c.descent, color: white)
    }

    /// The legend's stops at the top right: a swatch of each colour with its label (or
    /// value), then the unit; on a second row when it would cover the time.
    func drawLegend(
        _ legend: LegendConfig, on canvas: inout LoopCanvas, font: LabelFont, px: Int, pad: Int, below time: (width: Int, height: Int)
    ) throws {
        let items = legend.stops.map { stop in
            (color: RGB(hex: String(stop.color.prefix(7))) ?? RGB(hex: stop.color) ?? RGB(0, 0, 0), text: stop.label ?? Self.number(stop.value))
        }
        let metrics = try font.measure("0", px: px)
        let swatch = metrics.ascent
        var width = pad
        var widths: [Int] = []
        for item in items {
            let w = try font.measure(item.text, px: px).width
            widths.append(w)
            width += swatch + pad / 2 + w + pad
        }
        let unit = legend.unit.isEmpty ? 0 : try font.measure(legend.unit, px: px).width + pad
        width += unit
        let height = metrics.ascent + metrics.descent + 2 * pad
        let x0 = max(0, canvas.width - width)
        let y0 = x0 < time.width ? time.height : 0
        canvas.shade(x: x0, y: y0, width: width, height: height, color: RGB(0, 0, 0), alpha: 160)
        let baseline = y0 + pad + metrics.ascent
        var x = x0 + pad
        for (item, w) in zip(items, widths) {
            canvas.shade(x: x, y: baseline - swatch, width: swatch, height: swatch, color: item.color, alpha: 255)
            x += swatch + pad / 2
            try canvas.text(item.text, font: font, px: px, x: x, baseline: baseline, color: RGB(255, 255, 255))
            x += w + pad
        }
        if unit > 0 { try canvas.text(legend.unit, font: font, px: px, x: x, baseline: baseline, color: RGB(255, 255, 255)) }
    }

    /// A stop's value as the legend writes it: whole numbers without a decimal point.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%g", value)
    }

    /// The background's pixels at the loop's size.
    func backgroundPixels(_ size: (width: Int, height: Int)) throws -> [UInt8] {
        switch background {
        case .color(let color):
            return LoopCanvas(width: size.width, height: size.height, color: color).rgb
        case .demo:
            return try demoMap(size)
        case .tiles(let background):
            return try tileMap(size, zoom: background.zoom) { _, x, y in background.tiles[y * (1 << background.zoom) + x] }
        }
    }

    /// The demo base map under the frame, as the player shows it: its tiles at the frame's
    /// zoom (drawn up to the map's deepest zoom, scaled up beyond), nearest neighbour.
    func demoMap(_ size: (width: Int, height: Int)) throws -> [UInt8] {
        let decoder = PNGDecoder(maxWidth: 256, maxHeight: 256)
        return try tileMap(size, zoom: min(animation.zoom, DemoBaseMap.maxZoom)) { z, x, y in
            try decoder.decode(DemoBaseMap.tile(z: z, x: x, y: y), keepIndices: false)
        }
    }

    /// 256-px tiles of `zoom` under the frame, nearest neighbour, scaled up when the frames
    /// are deeper; where `tile` has none, the default background colour.
    func tileMap(
        _ size: (width: Int, height: Int), zoom z: Int, tile: (_ z: Int, _ x: Int, _ y: Int) throws -> DecodedImage?
    ) throws -> [UInt8] {
        let shift = animation.zoom - z
        let tileSize = 256
        let world = tileSize << z
        var tiles: [Int: DecodedImage?] = [:]
        var out = LoopCanvas(width: size.width, height: size.height, color: ExportConfig.defaultBackground).rgb
        let columns = (0..<size.width).map { LoopCanvas.source($0, count: size.width, sourceCount: layout.width) }
        for y in 0..<size.height {
            let gy = min(world - 1, max(0, (layout.originY + LoopCanvas.source(y, count: size.height, sourceCount: layout.height)) >> shift))
            for x in 0..<size.width {
                let gx = (((layout.originX + columns[x]) >> shift) % world + world) % world
                let (tx, ty) = (gx / tileSize, gy / tileSize)
                let id = ty * (1 << z) + tx
                if tiles[id] == nil { tiles[id] = .some(try tile(z, tx, ty)) }
                guard let found = tiles[id], let image = found, image.width == tileSize, image.height == tileSize else { continue }
                let s = ((gy % tileSize) * tileSize + gx % tileSize) * 4
                let p = (y * size.width + x) * 3
                // A tile's transparent pixels show the default colour under them.
                let a = Int(image.pixels[s + 3])
                for c in 0..<3 { out[p + c] = UInt8((Int(image.pixels[s + c]) * a + Int(out[p + c]) * (255 - a) + 127) / 255) }
            }
        }
        return out
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// One encoder handed to a worker thread: each is used by one thread at a time (the
/// exporter waits for every worker before the next frame), so it crosses threads safely.
final class SinkBox: @unchecked Sendable {
    let format: ExportConfig.Format
    let sink: any LoopSink

    init(format: ExportConfig.Format, sink: any LoopSink) {
        self.format = format
        self.sink = sink
    }
}

/// An exported loop's encoder, as the exporter drives it.
protocol LoopSink: AnyObject {
    /// Adds a frame shown for `durationMs`.
    func add(_ canvas: LoopCanvas, durationMs: Int) throws
    /// Ends the loop: the file's bytes, or nil when the encoder wrote the file itself.
    func finishLoop() throws -> [UInt8]?
}

extension GIFLoopEncoder: LoopSink {
    func finishLoop() throws -> [UInt8]? { try finish() }
}

extension WebPLoopEncoder: LoopSink {
    func finishLoop() throws -> [UInt8]? { try finish() }
}

extension FFmpegLoopEncoder: LoopSink {
    func finishLoop() throws -> [UInt8]? {
        try finish()
        return nil
    }
}
