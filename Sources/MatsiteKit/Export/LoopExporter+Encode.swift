import Foundation
import MatsiteImaging

extension LoopExporter {
    /// Encodes the formats in `pending` (format -> file name): the GIF and WebP frames in
    /// two passes (`LoopEncoding`), MP4 fed by the first, then each file assembled in
    /// config order, its cost in `report`.
    func encode(
        _ frames: [Frame], names: LoopExportNames, into pending: [ExportConfig.Format: String], report: inout ExportReport
    ) async throws {
        let started = ContinuousClock.now
        let folder = writer.root.appendingPathComponent(animation.id)
        let composer = LoopComposer(
            fontPath: try LabelFont(path: LoopExportTools.fontPath()).path,
            background: try names.background.pixels(names.size, layout: layout, zoom: animation.zoom), size: names.size, folder: folder,
            labels: names.labels, times: names.times)
        let encoding = LoopEncoding(
            frames: frames, names: names, composer: composer, cache: LoopFrameCache(cache: cacheFolder, animation: animation.id))
        let webp = pending[.webp] == nil ? nil : try await encoding.webpSettings(quality: settings.webpQuality)
        let mp4 = try pending[.mp4].map { name in
            SinkBox(try ffmpeg(size: names.size, durations: frames.map(\.durationMs), output: folder.appendingPathComponent(name)))
        }
        var made = try await encoding.firstPass(webp: webp, colours: pending[.gif] != nil, mp4: mp4)
        if pending[.gif] != nil { try await encoding.gifPass(&made) }
        encoding.cache.keepOnly(made.kept)
        for format in settings.formats {
            guard let name = pending[format] else { continue }
            let file = try await write(format, name: name, made: made, mp4: mp4, size: names.size, frames: frames, timing: encoding.timing)
            report.files.append(file)
        }
        let times = encoding.timing.withLock { $0 }
        report.composeSeconds = times.compose
        report.pictures = times.pictures
        report.seconds = LoopExportTimings.seconds(since: started)
    }

    /// Assembles the file of `format` from what the passes made (ffmpeg finishes its own)
    /// and says what it cost.
    func write(
        _ format: ExportConfig.Format, name: String, made: LoopEncoding.Made, mp4: SinkBox?, size: (width: Int, height: Int),
        frames: [Frame], timing: LoopExportClock
    ) async throws -> ExportReport.File {
        let assembling = ContinuousClock.now
        let relative = "\(animation.id)/\(name)"
        switch format {
        case .gif:
            guard let palette = made.palette else { throw ExportError.notEncoded(animation: animation.id, format: .gif, frame: 0) }
            let pieces = try zip(made.gif, frames).map { piece, frame in
                guard let piece else { throw ExportError.notEncoded(animation: animation.id, format: .gif, frame: frame.index) }
                return piece
            }
            try writer.put(try GIFLoopEncoder.assemble(width: size.width, height: size.height, palette: palette, frames: pieces), at: relative)
        case .webp:
            guard let s = made.webpSettings else { throw ExportError.notEncoded(animation: animation.id, format: .webp, frame: 0) }
            let loop = try WebPLoopEncoder(width: size.width, height: size.height, lossless: s.lossless, quality: s.quality, effort: s.effort)
            for (piece, frame) in zip(made.webp, frames) {
                guard let piece else { throw ExportError.notEncoded(animation: animation.id, format: .webp, frame: frame.index) }
                try loop.add(encoded: piece, durationMs: frame.durationMs)
            }
            try writer.put(try loop.finish(), at: relative)
        case .mp4:
            if let mp4 { try await LoopEncodingPass.finish(mp4) }
        }
        timing.add(format, since: assembling)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: writer.root.appendingPathComponent(relative).path)[.size] as? Int) ?? 0
        let seconds = timing.withLock { $0[format: format] }
        return .init(
            format: format, bytes: bytes, work: .encoded(width: size.width, height: size.height, frames: frames.count, seconds: seconds),
            cachedFrames: made.reused[format] ?? 0)
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
}
