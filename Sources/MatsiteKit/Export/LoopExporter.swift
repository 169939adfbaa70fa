import Foundation
import MatsiteImaging

/// Writes an animation's loop as MP4, GIF and/or animated WebP (`export:`) beside its
/// frames, from the frames just staged.
///
/// Each exported frame is composed once (background, the frame at the animation's opacity,
/// the time and attribution labels) and handed to every encoder that needs it. A file's
/// name carries the hash of everything it is made from (frames, durations, labels, size,
/// background, font, encoder settings): when the previous site has that name, it is
/// hard-linked and nothing is decoded or encoded.
///
/// GIF and WebP frames depend only on their picture and the previous one: the frames are
/// composed and encoded a few at a time side by side on the CPU pool, while ffmpeg takes
/// them in order for MP4, and each encoded frame is kept in the cache folder
/// (`LoopFrameCache`), so a moved window composes and encodes only its new frames (and
/// MP4, whose frames depend on all the others, takes every picture again).
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

    /// GIF and WebP frames composed and encoded side by side, then the next as many: a few
    /// per core keeps both busy while holding only that many pictures.
    static let batch = 2 * ProcessInfo.processInfo.activeProcessorCount

    /// What was exported: the manifest's URLs and each format's cost.
    struct Result: Sendable {
        var exports = AnimationManifest.Exports()
        var report: ExportReport
    }

    /// Exports `frames` (staged below `<animation>/`).
    func export(_ frames: [Frame]) async throws -> Result {
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
        try await encode(frames, labels: labels, credit: credit, size: size, into: pending, report: &result.report)
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
        var text = "\(Self.version)\n\(format.rawValue)\n" + composition(size: size, credit: credit)
        if format == .webp { text += "quality \(settings.webpQuality)\n" }
        for (frame, label) in zip(frames, labels) { text += "\(frame.key) \(frame.durationMs) \(label)\n" }
        return SHA256.hex(of: text)
    }

    /// Everything but the frame and its label that a composed picture follows from.
    func composition(size: (width: Int, height: Int), credit: String) -> String {
        var text = "\(size.width)x\(size.height)\n\(background.description)\n"
        if let legend = animation.legend {
            text += "legend \(legend.unit) " + legend.stops.map { "\($0.value) \($0.color) \($0.label ?? "")" }.joined(separator: "; ") + "\n"
        }
        return text + "opacity \(animation.opacity ?? 1)\ncredit \(credit)\nfont \(LoopExportTools.fontPath()) \(fontSize)\n"
    }

    /// A composed picture's identity: the composition, the frame's bytes and its label.
    static func composedKey(composition: String, frame: Frame, label: String) -> String {
        SHA256.hex(of: "\(version)\n\(composition)frame \(frame.key)\nlabel \(label)\n")
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

    /// Encodes the formats in `pending` (format -> file name). A first pass over the frames
    /// feeds MP4, encodes the WebP frames and counts the GIF's colours; a second encodes the
    /// GIF's frames in the table made from them (the table needs every picture first). Each
    /// pass takes the frames a batch at a time, composes the pictures an encoder needs (in
    /// parallel on the CPU pool) and encodes the GIF and WebP frames side by side, while
    /// ffmpeg takes MP4's pictures in order. What the cache holds is neither composed nor
    /// encoded again.
    func encode(
        _ frames: [Frame], labels: [String], credit: String, size: (width: Int, height: Int),
        into pending: [ExportConfig.Format: String], report: inout ExportReport
    ) async throws {
        let started = ContinuousClock.now
        let folder = writer.root.appendingPathComponent(animation.id)
        let composer = Composer(
            exporter: self, font: try LabelFont(path: LoopExportTools.fontPath()), background: try backgroundPixels(size), size: size,
            credit: credit, folder: folder, labels: labels)
        let cache = LoopFrameCache(cache: cacheFolder, animation: animation.id)
        let composition = composition(size: size, credit: credit)
        let composed = zip(frames, labels).map { Self.composedKey(composition: composition, frame: $0, label: $1) }
        let previousKey = frames.indices.map { $0 > 0 ? composed[$0 - 1] : "first" }
        let timing = LockedBox<[String: Double]>([:])
        let lossless = settings.webpQuality == 100
        var webpSettings = WebPLoopEncoder.Settings(lossless: lossless, quality: settings.webpQuality, effort: lossless ? 3 : 4)
        var webpFirst: WebPLoopEncoder.Frame?
        if pending[.webp] != nil && lossless {
            (webpSettings.effort, webpFirst) = try await webpEffort(frames, composer: composer, cache: cache, composition: composition, timing: timing)
        }
        let webpChosen = webpSettings
        var kept: Set<String> = []

        // Pass 1: MP4, WebP frames, the GIF's colours.
        let mp4 = try pending[.mp4].map { name in
            SinkBox(format: .mp4, sink: try ffmpeg(size: size, durations: frames.map(\.durationMs), output: folder.appendingPathComponent(name)))
        }
        let webpKeys = frames.indices.map { SHA256.hex(of: "webp \(Self.version) \(webpSettings) \(previousKey[$0]) \(composed[$0])") }
        var webp: [WebPLoopEncoder.Frame?] = pending[.webp] == nil ? [] : webpKeys.map { cache.bytes($0).flatMap(LoopFrameCache.webpFrame) }
        if let webpFirst {
            webp[0] = webpFirst
            cache.store(LoopFrameCache.encode(webpFirst), as: webpKeys[0])
        }
        let histogramKeys = frames.indices.map { SHA256.hex(of: "colours \(Self.version) \(composed[$0])") }
        var histograms: [ColorHistogram?] = pending[.gif] == nil ? [] : histogramKeys.map { cache.bytes($0).flatMap(LoopFrameCache.histogram) }
        let reusedWebP = webp.compactMap { $0 }.count - (webpFirst == nil ? 0 : 1)
        try await pass(
            frames, composer: composer, timing: timing, mp4: mp4,
            needs: { i in (!webp.isEmpty && webp[i] == nil, !histograms.isEmpty && histograms[i] == nil) },
            work: { i, previous, current, own in
                var out: [LoopPiece] = []
                if own.pair {
                    out.append(
                        .webp(try await Self.timed("webp", timing) { try WebPLoopEncoder.encodeFrame(previous: previous, current, settings: webpChosen) }))
                }
                if own.single {
                    out.append(.histogram(try await Self.timed("gif", timing) { ColorHistogram(current) }))
                }
                return out
            },
            take: { i, piece in
                switch piece {
                case .webp(let frame):
                    webp[i] = frame
                    cache.store(LoopFrameCache.encode(frame), as: webpKeys[i])
                case .histogram(let histogram):
                    histograms[i] = histogram
                    cache.store(LoopFrameCache.encode(histogram), as: histogramKeys[i])
                case .gif: break
                }
            })
        if !webp.isEmpty { kept.formUnion(webpKeys + [Self.webpEffortKey(composition: composition)]) }

        // Pass 2: the GIF's frames, in the loop's table.
        var gif: [[UInt8]?] = []
        var reusedGIF = 0
        var palette: GIFPalette?
        if pending[.gif] != nil {
            let table = GIFPalette(histograms.compactMap { $0 })
            palette = table
            let tableKey = SHA256.hex(of: table.rgb)
            let gifKeys = frames.indices.map {
                SHA256.hex(of: "gif \(Self.version) \(tableKey) \(frames[$0].durationMs) \(previousKey[$0]) \(composed[$0])")
            }
            gif = gifKeys.map { cache.bytes($0) }
            reusedGIF = gif.compactMap { $0 }.count
            try await pass(
                frames, composer: composer, timing: timing, mp4: nil, needs: { i in (gif[i] == nil, false) },
                work: { i, previous, current, _ in
                    let duration = frames[i].durationMs
                    return [
                        .gif(
                            try await Self.timed("gif", timing) {
                                try GIFLoopEncoder.encodeFrame(previous: previous, current, durationMs: duration, palette: table)
                            })
                    ]
                },
                take: { i, piece in
                    guard case .gif(let bytes) = piece else { return }
                    gif[i] = bytes
                    cache.store(bytes, as: gifKeys[i])
                })
            kept.formUnion(gifKeys)
            kept.formUnion(histogramKeys)
        }
        cache.keepOnly(kept)

        // The files, in config order.
        for format in settings.formats {
            guard let name = pending[format] else { continue }
            let assembling = ContinuousClock.now
            switch format {
            case .gif:
                guard let palette else { continue }
                let pieces = try zip(gif, frames).map { piece, frame in
                    guard let piece else { throw ExportError.notEncoded(animation: animation.id, format: .gif, frame: frame.index) }
                    return piece
                }
                try writer.put(
                    try GIFLoopEncoder.assemble(width: size.width, height: size.height, palette: palette, frames: pieces), at: "\(animation.id)/\(name)")
            case .webp:
                let loop = try WebPLoopEncoder(
                    width: size.width, height: size.height, lossless: webpSettings.lossless, quality: webpSettings.quality, effort: webpSettings.effort)
                for (piece, frame) in zip(webp, frames) {
                    guard let piece else { throw ExportError.notEncoded(animation: animation.id, format: .webp, frame: frame.index) }
                    try loop.add(encoded: piece, durationMs: frame.durationMs)
                }
                try writer.put(try loop.finish(), at: "\(animation.id)/\(name)")
            case .mp4:
                _ = try mp4?.sink.finishLoop()
            }
            timing.withLock { $0[format.rawValue, default: 0] += Self.seconds(assembling.duration(to: .now)) }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            let cached = format == .gif ? reusedGIF : format == .webp ? reusedWebP : 0
            let seconds = timing.withLock { $0[format.rawValue] ?? 0 }
            report.files.append(
                .init(
                    format: format, bytes: bytes, work: .encoded(width: size.width, height: size.height, frames: frames.count, seconds: seconds),
                    cachedFrames: cached))
        }
        let times = timing.withLock { $0 }
        report.composeSeconds = times["compose"] ?? 0
        report.pictures = Int(times["pictures"] ?? 0)
        report.seconds = Self.seconds(started.duration(to: .now))
    }

    /// One pass over the frames, a batch at a time: composes the pictures the pass needs
    /// (frame i's when `needs(i)` says it has work of its own on the pair (i - 1, i) or on i
    /// alone, or the next frame has work on its pair, or MP4 takes every picture), runs `work`
    /// on each frame with work side by side, hands its pieces to `take` in the caller's
    /// task, and feeds MP4 the pictures in order meanwhile.
    func pass(
        _ frames: [Frame], composer: Composer, timing: LockedBox<[String: Double]>, mp4: SinkBox?,
        needs: (Int) -> (pair: Bool, single: Bool),
        work: @escaping @Sendable (Int, LoopCanvas?, LoopCanvas, (pair: Bool, single: Bool)) async throws -> [LoopPiece],
        take: (Int, LoopPiece) -> Void
    ) async throws {
        let own = frames.indices.map(needs)
        let needed = frames.indices.map { i in
            mp4 != nil || own[i].pair || own[i].single || (i + 1 < frames.count && own[i + 1].pair)
        }
        var last: (index: Int, canvas: LoopCanvas)?
        for batch in Swift.stride(from: 0, to: frames.count, by: Self.batch) {
            try Task.checkCancellation()
            let indices = Array(batch..<min(frames.count, batch + Self.batch))
            let canvases = try await composer.compose(frames, indices: indices.filter { needed[$0] }, timing: timing)
            func canvas(_ i: Int) -> LoopCanvas? { canvases[i] ?? (last?.index == i ? last?.canvas : nil) }
            // MP4 takes the batch in order on its own thread (ffmpeg encodes in its own process).
            let shown = mp4 == nil ? [] : indices.compactMap { i in canvas(i).map { ($0, frames[i].durationMs) } }
            async let fed: Void = {
                guard let mp4 else { return }
                for (picture, duration) in shown { try await Self.feed(mp4, picture, durationMs: duration, timing: timing) }
            }()
            try await withThrowingTaskGroup(of: (Int, [LoopPiece]).self) { group in
                for i in indices where own[i].pair || own[i].single {
                    guard let current = canvas(i) else { continue }
                    let previous = i > 0 ? canvas(i - 1) : nil
                    let mine = own[i]
                    group.addTask { (i, try await work(i, previous, current, mine)) }
                }
                for try await (i, pieces) in group {
                    for piece in pieces { take(i, piece) }
                }
            }
            try await fed
            if let end = indices.last, let picture = canvas(end) { last = (end, picture) }
        }
    }

    /// libwebp's lossless efforts (its preset levels) a loop's first frame is encoded at:
    /// the loop takes the one that made it smaller. Neither wins everywhere: on noisy radar
    /// over a plain background the higher one saves about 4%, over the demo's shaded base
    /// map the lower one about 4% (bench/export.sh).
    static let webpEfforts = (low: 3, high: 7)

    /// The cache entry holding the effort chosen for the loop's pictures.
    static func webpEffortKey(composition: String) -> String { SHA256.hex(of: "webp effort \(version) \(webpEfforts) \(composition)") }

    /// The lossless effort of the loop: the one chosen before for pictures composed the same
    /// way (a moved window keeps it, and with it the frames it already encoded), else the
    /// one that made the first frame smaller, tried at both side by side (that frame is
    /// returned too).
    func webpEffort(
        _ frames: [Frame], composer: Composer, cache: LoopFrameCache, composition: String, timing: LockedBox<[String: Double]>
    ) async throws -> (Int, WebPLoopEncoder.Frame?) {
        let key = Self.webpEffortKey(composition: composition)
        if let known = cache.bytes(key), known.count == 1 { return (Int(known[0]), nil) }
        guard let picture = try await composer.compose(frames, indices: [0], timing: timing)[0] else { return (Self.webpEfforts.low, nil) }
        let quality = settings.webpQuality
        async let low = Self.timed("webp", timing) {
            try WebPLoopEncoder.encodeFrame(previous: nil, picture, settings: .init(lossless: true, quality: quality, effort: Self.webpEfforts.low))
        }
        async let high = Self.timed("webp", timing) {
            try WebPLoopEncoder.encodeFrame(previous: nil, picture, settings: .init(lossless: true, quality: quality, effort: Self.webpEfforts.high))
        }
        let (a, b) = try await (low, high)
        let chosen = b.bytes.count < a.bytes.count ? (Self.webpEfforts.high, b) : (Self.webpEfforts.low, a)
        cache.store([UInt8(chosen.0)], as: key)
        return chosen
    }

    /// Sends a picture to ffmpeg on a thread of its own: the write waits while ffmpeg
    /// encodes, and must not hold a slot of the CPU pool meanwhile.
    static func feed(_ box: SinkBox, _ canvas: LoopCanvas, durationMs: Int, timing: LockedBox<[String: Double]>) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            feeder.async {
                let start = ContinuousClock.now
                do {
                    try box.sink.add(canvas, durationMs: durationMs)
                    timing.withLock { $0[ExportConfig.Format.mp4.rawValue, default: 0] += seconds(start.duration(to: .now)) }
                    continuation.resume()
                } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// The thread pictures go to ffmpeg on.
    static let feeder = DispatchQueue(label: "matsite.export.ffmpeg")

    /// Runs `work` on the CPU pool, adding its time to `format`'s.
    static func timed<T: Sendable>(
        _ what: String, _ timing: LockedBox<[String: Double]>, _ work: @escaping @Sendable () throws -> T
    )
        async throws -> T
    {
        try await CPUPool.shared.run {
            let start = ContinuousClock.now
            defer { timing.withLock { $0[what, default: 0] += seconds(start.duration(to: .now)) } }
            return try work()
        }
    }

    /// ffmpeg writing the MP4 to `output`.
    func ffmpeg(size: (width: Int, height: Int), durations: [Int], output: URL) throws -> FFmpegLoopEncoder {
        guard let ffmpeg = LoopExportTools.ffmpegPath() else {
            throw ExportError.ffmpegMissing(keyPath: animation.keyPath)
        }
        return try FFmpegLoopEncoder(
            ffmpeg: ffmpeg, width: size.width, height: size.height, durations: durations.isEmpty ? [1] : durations, output: output,
            timeLimit: .seconds(settings.timeoutSeconds))
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
        return try tileMap(size, zoom: min(animation.zoom, DemoBaseMap.deepestDetailZoom)) { z, x, y in
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

/// Composes the pictures of an export (`LoopCanvas`) side by side on the CPU pool, each
/// job with its own font (FreeType faces are not thread-safe).
struct Composer: Sendable {
    let exporter: LoopExporter
    let fontPath: String
    let background: [UInt8]
    let size: (width: Int, height: Int)
    let credit: String
    let folder: URL
    let labels: [String]

    init(exporter: LoopExporter, font: LabelFont, background: [UInt8], size: (width: Int, height: Int), credit: String, folder: URL, labels: [String]) {
        self.exporter = exporter
        fontPath = font.path
        self.background = background
        self.size = size
        self.credit = credit
        self.folder = folder
        self.labels = labels
    }

    /// The pictures of frames `indices`, by index.
    func compose(_ frames: [LoopExporter.Frame], indices: [Int], timing: LockedBox<[String: Double]>) async throws -> [Int: LoopCanvas] {
        try await withThrowingTaskGroup(of: (Int, LoopCanvas).self) { group in
            for i in indices {
                let frame = frames[i]
                group.addTask {
                    try await CPUPool.shared.run {
                        let start = ContinuousClock.now
                        defer {
                            timing.withLock {
                                $0["compose", default: 0] += LoopExporter.seconds(start.duration(to: .now))
                                $0["pictures", default: 0] += 1
                            }
                        }
                        return (i, try picture(frame, label: labels[i]))
                    }
                }
            }
            var out: [Int: LoopCanvas] = [:]
            for try await (i, canvas) in group { out[i] = canvas }
            return out
        }
    }

    /// One frame's picture: the background, the frame at its opacity (a layered
    /// animation's layers bottom to top, each at its own), the labels.
    func picture(_ frame: LoopExporter.Frame, label: String) throws -> LoopCanvas {
        var canvas = LoopCanvas(width: size.width, height: size.height, background: background)
        for picture in frame.pictures {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(picture.file)))
            canvas.draw(try TileDecoder(maxWidth: 1 << 15, maxHeight: 1 << 15).decode(bytes, keepIndices: false), opacity: picture.opacity)
        }
        try exporter.drawLabels(on: &canvas, time: label, credit: credit, font: try LabelFont(path: fontPath))
        return canvas
    }
}

/// What an export's pass made of one frame.
enum LoopPiece: Sendable {
    /// A GIF frame.
    case gif([UInt8])
    /// A WebP frame.
    case webp(WebPLoopEncoder.Frame)
    /// The picture's colours, for the GIF's table.
    case histogram(ColorHistogram)
}

/// The MP4 encoder handed to the thread that feeds ffmpeg: used by one thread at a time
/// (each picture is handed over after the previous one was taken), so it crosses threads
/// safely.
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

extension FFmpegLoopEncoder: LoopSink {
    func finishLoop() throws -> [UInt8]? {
        try finish()
        return nil
    }
}
