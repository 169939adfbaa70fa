import Foundation
import MatsiteImaging

extension LoopEncoding {
    /// libwebp's lossless efforts (its preset levels) a loop's first frame is encoded at:
    /// the loop takes the one that made it smaller. Neither wins everywhere: on noisy radar
    /// over a plain background the higher one saves about 4%, over the demo's shaded base
    /// map the lower one about 4% (bench/export.sh).
    static let webpEfforts = (low: 3, high: 7)

    /// The cache entry holding the effort chosen for the loop's pictures.
    static func webpEffortKey(composition: String) -> String {
        SHA256.hex(of: "webp effort \(LoopExporter.version) \(webpEfforts) \(composition)")
    }

    /// The WebP settings of an export at `quality`: lossy at effort 4 below 100, else
    /// lossless at the effort `webpEffort` chooses (and the first frame, when it was
    /// encoded to choose it).
    func webpSettings(quality: Int) async throws -> (WebPLoopEncoder.Settings, WebPLoopEncoder.Frame?) {
        guard quality == 100 else { return (.init(lossless: false, quality: quality, effort: 4), nil) }
        let (effort, first) = try await webpEffort(quality: quality)
        return (.init(lossless: true, quality: quality, effort: effort), first)
    }

    /// The lossless effort of the loop: the one chosen before for pictures composed the same
    /// way (a moved window keeps it, and with it the frames it already encoded), else the
    /// one that made the first frame smaller, tried at both side by side (that frame is
    /// returned too).
    func webpEffort(quality: Int) async throws -> (Int, WebPLoopEncoder.Frame?) {
        let key = Self.webpEffortKey(composition: composition)
        if let known = cache.bytes(key), known.count == 1 { return (Int(known[0]), nil) }
        guard let picture = try await composer.compose(frames, indices: [0], timing: timing)[0] else { return (Self.webpEfforts.low, nil) }
        async let low = timing.timed(.webp) {
            try WebPLoopEncoder.encodeFrame(previous: nil, picture, settings: .init(lossless: true, quality: quality, effort: Self.webpEfforts.low))
        }
        async let high = timing.timed(.webp) {
            try WebPLoopEncoder.encodeFrame(previous: nil, picture, settings: .init(lossless: true, quality: quality, effort: Self.webpEfforts.high))
        }
        let (a, b) = try await (low, high)
        let chosen = b.bytes.count < a.bytes.count ? (Self.webpEfforts.high, b) : (Self.webpEfforts.low, a)
        cache.store([UInt8(chosen.0)], as: key)
        return chosen
    }
}
