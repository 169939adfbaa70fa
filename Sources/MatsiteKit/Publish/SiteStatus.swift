import Foundation
import MatsiteCapabilities

/// `status.json` at the top of the output: per animation, what the builds did to it, for a
/// monitoring check to read (docs/operations.md has a Prometheus textfile example).
///
/// It is written with every build that publishes (inside the swapped-in site). A build
/// that finds nothing to change leaves it as it is, unless something in it besides the
/// clocks changed (then it is replaced in place, atomically): an unchanged rebuild touches
/// nothing. A build that publishes nothing at all leaves the site, this file included, as
/// it was. It is not compared when a build decides whether the site changed.
public struct SiteStatus: Codable, Sendable, Equatable {
    /// Its name in the output.
    public static let file = "status.json"

    /// What one animation's builds came to.
    public struct Loop: Codable, Sendable, Equatable {
        /// The animation's id.
        public var id: String
        /// `ok`: this build published it; `stale`: this build failed it and the site keeps
        /// its last version; `unpublished`: failed, and never published.
        public var state: State
        /// The clock of the last build that published it (ISO 8601, UTC).
        public var lastGoodBuild: String?
        /// The newest frame's time in its published manifest.
        public var newestTime: String?
        /// Frames in its published manifest.
        public var frames: Int?
        /// What failed it, when it is not `ok`.
        public var error: String?
        /// The clock of the first build of the failures in a row.
        public var failingSince: String?
        /// Builds in a row that failed it.
        public var failedBuilds: Int?
        /// Alerts of the last build that built it: a window older than the published one,
        /// a feed that publishes no new time.
        public var alerts: [String]?

        /// The states.
        public enum State: String, Codable, Sendable {
            case ok, stale, unpublished
        }
    }

    /// The file's format.
    public var version = 1
    /// `matsite` and its version.
    public var generator = "matsite \(Matsite.version)"
    /// The clock of the build that wrote it (`--at` when given).
    public var built: String
    /// In config order.
    public var animations: [Loop]

    /// The status a build writes: `previous` moved on by what this build did.
    static func next(
        after previous: SiteStatus?, config: SiteConfig, built: [AnimationManifest], kept manifests: [AnimationManifest],
        failed: LoopFailures, alerts: [String: [String]], now: TimeInstant
    ) -> SiteStatus {
        let clock = TimeFormat.iso(now)
        let old = Dictionary((previous?.animations ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let made = Dictionary(built.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let published = Dictionary(manifests.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let loops = config.animations.compactMap { animation -> Loop? in
            let id = animation.id
            if let manifest = made[id] {
                var loop = Loop(id: id, state: .ok, lastGoodBuild: clock)
                loop.describe(manifest)
                loop.alerts = alerts[id].flatMap { $0.isEmpty ? nil : $0 }
                return loop
            }
            if let error = failed.error(of: id) {
                var loop = old[id] ?? Loop(id: id, state: .unpublished)
                loop.state = published[id] == nil ? .unpublished : .stale
                if let manifest = published[id] { loop.describe(manifest) }
                loop.error = String(describing: error)
                loop.failingSince = loop.failingSince ?? clock
                loop.failedBuilds = (loop.failedBuilds ?? 0) + 1
                loop.alerts = alerts[id].flatMap { $0.isEmpty ? nil : $0 }
                return loop
            }
            // Not built by this shard: as the last build that built it left it.
            if let loop = old[id] { return loop }
            guard let manifest = published[id] else { return nil }
            var loop = Loop(id: id, state: .ok)
            loop.describe(manifest)
            return loop
        }
        return SiteStatus(built: clock, animations: loops)
    }

    /// True when `other` says the same but for the clocks of builds that published (`built`,
    /// and `last_good_build` of loops this build published): an unchanged rebuild need not
    /// rewrite it.
    func sameApartFromClocks(_ other: SiteStatus?) -> Bool {
        guard let other else { return false }
        func plain(_ status: SiteStatus) -> SiteStatus {
            var status = status
            status.built = ""
            for i in status.animations.indices where status.animations[i].state == .ok { status.animations[i].lastGoodBuild = nil }
            return status
        }
        return plain(self) == plain(other)
    }

    /// The status file of the site in `output`, if it has a readable one.
    static func read(output: URL) -> SiteStatus? {
        guard let data = FileManager.default.contents(atPath: output.appendingPathComponent(file).path) else { return nil }
        return try? JSONDecoder.manifest.decode(SiteStatus.self, from: data)
    }

    /// Writes it into `folder` (a staged site, or the output itself), atomically.
    func write(into folder: URL) throws {
        let data = try JSONEncoder.manifest.encode(self) + Data("\n".utf8)
        try FileWrite.write(data, to: folder.appendingPathComponent(Self.file))
    }

    /// The animations this build failed, as the summary reports them.
    func staleLoops(failed: LoopFailures) -> [StaleLoop] {
        failed.failures.map { failure in
            let loop = animations.first { $0.id == failure.id }
            return StaleLoop(
                id: failure.id, error: failure.error, kept: loop?.state == .stale, lastGoodBuild: loop?.lastGoodBuild,
                failingSince: loop?.failingSince, failedBuilds: loop?.failedBuilds ?? 1)
        }
    }
}

extension SiteStatus.Loop {
    /// A loop with no history yet.
    init(id: String, state: State, lastGoodBuild: String? = nil) {
        self.id = id
        self.state = state
        self.lastGoodBuild = lastGoodBuild
    }

    /// Its newest time and frame count, from its published manifest.
    mutating func describe(_ manifest: AnimationManifest) {
        newestTime = manifest.frames.last?.time?.manifestText
        frames = manifest.frames.count
    }
}

/// An animation this build could not make; the others were published.
public struct StaleLoop: Sendable {
    /// The animation's id.
    public var id: String
    /// What failed it.
    public var error: any Error
    /// True when the site keeps its last published version; false when it never had one
    /// (it is not in the site index).
    public var kept: Bool
    /// The clock of the last build that published it (ISO 8601), if one did.
    public var lastGoodBuild: String?
    /// The clock of the first of the failed builds in a row.
    public var failingSince: String?
    /// Builds in a row that failed it, this one included.
    public var failedBuilds: Int
}
