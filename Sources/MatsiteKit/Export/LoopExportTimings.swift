import Foundation

/// What an export's encoding cost, added up from the jobs running side by side: the
/// pictures composed and the CPU seconds of composing and of each format's encoding.
struct LoopExportTimings: Sendable, Equatable {
    /// Seconds composing pictures.
    var compose: Double = 0
    /// Pictures composed (none for what the cache held).
    var pictures = 0
    /// Seconds encoding MP4: handing pictures to ffmpeg, then waiting for its file.
    var mp4: Double = 0
    /// Seconds encoding GIF: counting colours, encoding frames, assembling the file.
    var gif: Double = 0
    /// Seconds encoding WebP: choosing the effort, encoding frames, assembling the file.
    var webp: Double = 0

    /// The seconds of `format`.
    subscript(format format: ExportConfig.Format) -> Double {
        get {
            switch format {
            case .mp4: mp4
            case .gif: gif
            case .webp: webp
            }
        }
        set {
            switch format {
            case .mp4: mp4 = newValue
            case .gif: gif = newValue
            case .webp: webp = newValue
            }
        }
    }

    /// Seconds between `start` and now.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let duration = start.duration(to: .now)
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The timings of one export, added to by the jobs running side by side.
typealias LoopExportClock = LockedBox<LoopExportTimings>

extension LockedBox where Value == LoopExportTimings {
    /// Adds the seconds since `start` to `format`'s.
    func add(_ format: ExportConfig.Format, since start: ContinuousClock.Instant) {
        let seconds = LoopExportTimings.seconds(since: start)
        withLock { $0[format: format] += seconds }
    }

    /// Runs `work` on the CPU pool, adding its time to `format`'s.
    func timed<T: Sendable>(_ format: ExportConfig.Format, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await CPUPool.shared.run {
            let start = ContinuousClock.now
            defer { self.add(format, since: start) }
            return try work()
        }
    }
}
