import Foundation
import MatsiteImaging

/// The encoding of an export's GIF and WebP frames, in two passes over the pictures
/// (`LoopEncodingPass`). The first feeds MP4, encodes the WebP frames and counts each
/// picture's colours; the second encodes the GIF's frames in the table made from those
/// colours (the table needs every picture first). Each encoded frame and colour count is
/// kept in the cache folder under the SHA-256 of what it follows from (the encoder and its
/// settings, the picture's composed identity and its predecessor's), so what the cache
/// holds is neither composed nor encoded again.
struct LoopEncoding: Sendable {
    let frames: [LoopExporter.Frame]
    let composer: LoopComposer
    let cache: LoopFrameCache
    /// What every picture's composition follows from (`LoopExportNames.composition`).
    let composition: String
    /// Each picture's composed identity.
    let composed: [String]
    /// The identity of each picture's predecessor (`first` for the first).
    let previous: [String]
    let timing = LoopExportClock(LoopExportTimings())

    init(frames: [LoopExporter.Frame], names: LoopExportNames, composer: LoopComposer, cache: LoopFrameCache) {
        self.frames = frames
        self.composer = composer
        self.cache = cache
        composition = names.composition
        let keys = names.composedKeys(frames)
        composed = keys
        previous = keys.indices.map { $0 > 0 ? keys[$0 - 1] : "first" }
    }

    /// What the passes made, for the files to be assembled from.
    struct Made {
        /// The WebP frames (empty when WebP is not encoded) and their settings.
        var webp: [WebPLoopEncoder.Frame?] = []
        var webpSettings: WebPLoopEncoder.Settings?
        /// The pictures' colours (empty when GIF is not encoded).
        var histograms: [ColorHistogram?] = []
        /// The GIF frames and their table (empty and nil when GIF is not encoded).
        var gif: [[UInt8]?] = []
        var palette: GIFPalette?
        /// Frames taken from the cache, by format.
        var reused: [ExportConfig.Format: Int] = [:]
        /// The cache entries of this loop: the cache keeps these only.
        var kept: Set<String> = []
    }

    /// The cache keys of the WebP frames encoded with `settings`.
    func webpKeys(_ settings: WebPLoopEncoder.Settings) -> [String] {
        frames.indices.map { SHA256.hex(of: "webp \(LoopExporter.version) \(settings) \(previous[$0]) \(composed[$0])") }
    }

    /// The cache keys of the pictures' colours.
    var histogramKeys: [String] {
        frames.indices.map { SHA256.hex(of: "colours \(LoopExporter.version) \(composed[$0])") }
    }

    /// The cache keys of the GIF frames in `table`.
    func gifKeys(_ table: GIFPalette) -> [String] {
        let tableKey = SHA256.hex(of: table.rgb)
        return frames.indices.map {
            SHA256.hex(of: "gif \(LoopExporter.version) \(tableKey) \(frames[$0].durationMs) \(previous[$0]) \(composed[$0])")
        }
    }
}

extension LoopEncoding {
    /// Pass 1: feeds `mp4` every picture, encodes the WebP frames the cache lacks with
    /// `webp`'s settings (its `first` frame, when choosing the effort encoded it) and counts
    /// the colours the cache lacks when `colours`.
    func firstPass(
        webp: (settings: WebPLoopEncoder.Settings, first: WebPLoopEncoder.Frame?)?, colours: Bool, mp4: SinkBox?
    ) async throws -> Made {
        var made = Made(webpSettings: webp?.settings)
        let settings = webp?.settings
        let webpKeys = settings.map(webpKeys) ?? [], histogramKeys = histogramKeys
        if webp != nil { made.webp = webpKeys.map { cache.bytes($0).flatMap(LoopFrameCache.webpFrame) } }
        let first = webp?.first
        if let first {
            made.webp[0] = first
            cache.store(LoopFrameCache.encode(first), as: webpKeys[0])
        }
        if colours { made.histograms = histogramKeys.map { cache.bytes($0).flatMap(LoopFrameCache.histogram) } }
        made.reused[.webp] = made.webp.compactMap { $0 }.count - (first == nil ? 0 : 1)
        let (webpFrames, histograms) = (made.webp, made.histograms)
        try await LoopEncodingPass(frames: frames, composer: composer, timing: timing, mp4: mp4).run(
            needs: { i in .init(pair: !webpFrames.isEmpty && webpFrames[i] == nil, single: !histograms.isEmpty && histograms[i] == nil) },
            work: { [timing] _, previous, current, own in
                var out: [LoopPiece] = []
                if own.pair, let settings {
                    out.append(.webp(try await timing.timed(.webp) { try WebPLoopEncoder.encodeFrame(previous: previous, current, settings: settings) }))
                }
                if own.single { out.append(.histogram(try await timing.timed(.gif) { ColorHistogram(current) })) }
                return out
            },
            take: { i, piece in
                switch piece {
                case .webp(let frame):
                    made.webp[i] = frame
                    cache.store(LoopFrameCache.encode(frame), as: webpKeys[i])
                case .histogram(let histogram):
                    made.histograms[i] = histogram
                    cache.store(LoopFrameCache.encode(histogram), as: histogramKeys[i])
                case .gif: break
                }
            })
        if webp != nil { made.kept.formUnion(webpKeys + [LoopEncoding.webpEffortKey(composition: composition)]) }
        return made
    }

    /// Pass 2: the GIF's frames the cache lacks, in the table made from every picture's colours.
    func gifPass(_ made: inout Made) async throws {
        let table = GIFPalette(made.histograms.compactMap { $0 })
        made.palette = table
        let gifKeys = gifKeys(table)
        var gif = gifKeys.map { cache.bytes($0) }
        made.reused[.gif] = gif.compactMap { $0 }.count
        let needed = gif.map { $0 == nil }
        try await LoopEncodingPass(frames: frames, composer: composer, timing: timing).run(
            needs: { i in .init(pair: needed[i]) },
            work: { [timing, frames] i, previous, current, _ in
                let duration = frames[i].durationMs
                let bytes = try await timing.timed(.gif) {
                    try GIFLoopEncoder.encodeFrame(previous: previous, current, durationMs: duration, palette: table)
                }
                return [.gif(bytes)]
            },
            take: { i, piece in
                guard case .gif(let bytes) = piece else { return }
                gif[i] = bytes
                cache.store(bytes, as: gifKeys[i])
            })
        made.gif = gif
        made.kept.formUnion(gifKeys)
        made.kept.formUnion(histogramKeys)
    }
}
