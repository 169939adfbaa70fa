import Foundation
import MatsiteImaging

/// What the encoders made of each composed frame of an exported loop, kept between builds
/// in the cache folder (`<cache>/.loop-frames/<animation>/`), so that a moved window
/// composes and encodes only the frames it has not seen: a GIF or WebP frame depends on its
/// own picture and the one before it and nothing else.
///
/// An entry is named for the SHA-256 of everything its bytes follow from: the encoder and
/// its settings, and the composed identities (`LoopExportNames.composedKey`) of the frame and
/// of the one before it. Each file carries its bytes' SHA-256, so a damaged one is encoded
/// again; it is written under a temporary name and renamed. After an export the folder
/// keeps the current loop's entries only (the cache's `max_size` does not count them: a
/// loop's worth, about its files' size).
struct LoopFrameCache: Sendable {
    /// The animation's folder, or nil when the build uses no cache (`--no-cache`, `cache.enabled: false`).
    let folder: URL?

    /// The cache of `animation` under the cache folder `cache`.
    init(cache: URL?, animation: String) {
        folder = cache?.appendingPathComponent(".loop-frames", isDirectory: true).appendingPathComponent(animation, isDirectory: true)
    }

    /// The bytes stored under `key`, when present and intact.
    func bytes(_ key: String) -> [UInt8]? {
        guard let folder, let data = FileManager.default.contents(atPath: folder.appendingPathComponent(key).path), data.count >= 32 else {
            return nil
        }
        let bytes = [UInt8](data)
        let payload = Array(bytes[32...])
        var hash = SHA256()
        hash.update(payload)
        return hash.finalize() == Array(bytes[..<32]) ? payload : nil
    }

    /// Stores `payload` under `key` (a failure to write only loses the reuse).
    func store(_ payload: [UInt8], as key: String) {
        guard let folder else { return }
        var hash = SHA256()
        hash.update(payload)
        let temporary = folder.appendingPathComponent(".tmp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileWrite.write(hash.finalize() + payload, to: temporary)
            if rename(temporary.path, folder.appendingPathComponent(key).path) != 0 { try? FileManager.default.removeItem(at: temporary) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    /// Removes every entry but `keys` (and temporary files an interrupted build left).
    func keepOnly(_ keys: Set<String>) {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where !keys.contains(name) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// A WebP frame as stored: its rectangle and blending, then the still WebP's bytes.
    static func encode(_ frame: WebPLoopEncoder.Frame) -> [UInt8] {
        var out: [UInt8] = []
        for value in [frame.x, frame.y, frame.width, frame.height, frame.blend ? 1 : 0] {
            out += withUnsafeBytes(of: UInt32(value).littleEndian, Array.init)
        }
        return out + frame.bytes
    }

    /// A picture's colours as stored: each colour and its count, 4 bytes each.
    static func encode(_ histogram: ColorHistogram) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(histogram.colors.count * 8)
        for (color, count) in zip(histogram.colors, histogram.counts) {
            out += withUnsafeBytes(of: color.littleEndian, Array.init)
            out += withUnsafeBytes(of: UInt32(clamping: count).littleEndian, Array.init)
        }
        return out
    }

    /// The histogram of `bytes` from `encode`, or nil when they are not one.
    static func histogram(_ bytes: [UInt8]) -> ColorHistogram? {
        guard bytes.count % 8 == 0 else { return nil }
        func word(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
        let colors = Swift.stride(from: 0, to: bytes.count, by: 8).map { word($0) }
        guard zip(colors, colors.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        return ColorHistogram(colors: colors, counts: Swift.stride(from: 4, to: bytes.count, by: 8).map { Int(word($0)) })
    }

    /// The WebP frame of `bytes` from `encode`, or nil when they are not one.
    static func webpFrame(_ bytes: [UInt8]) -> WebPLoopEncoder.Frame? {
        guard bytes.count > 20 else { return nil }
        let fields = (0..<5).map { i in (0..<4).reduce(0) { $0 | Int(bytes[i * 4 + $1]) << (8 * $1) } }
        return WebPLoopEncoder.Frame(
            bytes: Array(bytes[20...]), x: fields[0], y: fields[1], width: fields[2], height: fields[3], blend: fields[4] != 0)
    }
}
