import MatsiteCapabilities

/// Receives what a build (and a watching preview) does, as typed events: the
/// library says what happened, the command line words it. Implementations must be
/// thread-safe: tiles finish on many tasks at once.
public protocol BuildReporter: Sendable {
    /// One event.
    func report(_ event: BuildEvent)
}

/// What a build reports while it runs.
public enum BuildEvent: Sendable {
    /// An animation's work is known.
    case planned(animation: String, frames: Int, tiles: Int)
    /// A tile was loaded (`bytes` of it; 0 when it could not be had).
    case tileLoaded(bytes: Int)
    /// A frame was written or reused.
    case frameDone(animation: String, index: Int, reused: Bool)
    /// Something the user should know; the build goes on.
    case warning(BuildWarning)
    /// What an operator must see even under `--quiet`: a loop that went back in time, a
    /// feed that stopped publishing new times. Also in `status.json`.
    case alert(LoopAlert)
    /// An animation's frames are made: what waiting for tiles and stitching took.
    case framesMade(FrameTimes)
    /// Frames stitched from lossy and lossless tiles together were all written lossy, as
    /// most of their tiles came (`format: auto`). When some stayed PNG, a warning says so.
    case mixedTilesWrittenLossy(MixedTilesReport)
    /// Frames published blank: every pixel fully transparent (`BlankFramesStep`).
    case blankFrames(BlankFramesReport)
    /// A tile that failed the build (each one; the error groups them by cause).
    case tileFailed(FailedTile)
    /// A tile drawn transparent (`missing: transparent`; the warnings group them by cause).
    case tileDrawnTransparent(FailedTile)
    /// An animation's fallback tiles were published.
    case fallbackPublished(FallbackReport)
    /// An animation's frames were published as tile pyramids.
    case levelsPublished(LevelsReport)
    /// An animation's (or layer's) frames got their reduced copies (`levels:`).
    case reducedLevelsPublished(ReducedLevelsReport)
    /// An animation's loop was exported (or kept).
    case exported(ExportReport)
    /// A point layer was published.
    case pointLayerPublished(PointLayerReport)
    /// No config file was found: the embedded demo is built instead.
    case buildingEmbeddedDemo
    /// `serve --watch` saw a change and rebuilds.
    case rebuilding
    /// `serve --watch` rebuilt the site.
    case rebuilt(BuildSummary)
    /// `serve --watch` could not rebuild; the previous site stays served.
    case rebuildFailed(any Error)
}

/// Something a build found worth saying that does not stop it.
public enum BuildWarning: Sendable, CustomStringConvertible {
    /// Tiles drawn transparent for one cause: the grouped words of `TileProblemGroups`.
    case drawnTransparent(String)
    /// A template asks for a host whose usage policy forbids bulk downloads.
    case bulkDownloadForbidden(keyPath: String, animation: String)
    /// A shard build: an animation no shard has published yet stays out of the site index.
    case notPublishedYet(animation: String)
    /// Invalid point features or rows skipped (`skip_invalid: true`).
    case pointsSkipped(animation: String, layer: String, count: Int)
    /// Frames stitched from lossy and lossless tiles together stayed PNG, as most of their
    /// tiles came (`format: auto`): lossy WebP would make them smaller.
    case mixedTilesKeptPNG(MixedTilesReport)
    /// `base_url` is not a whole URL: the embed code and the link-preview tags work on this
    /// site only. Where it is set (file, line), or the file when it is the default.
    case relativeBaseURL(String, file: String, line: Int?)
    /// A frame inside the published window whose tiles could not all be had: its published
    /// version is kept.
    case frameKeptDespiteFailure(FrameFailure)
    /// A frame inside the window whose tiles could not all be had and that no build
    /// published: left out of this one.
    case frameLeftOut(FrameFailure)
    /// Requests to a host failed for good (`cause`: the first one's problem) and the cache
    /// answered `count` of them with its copy, possibly out of date (stale-if-error).
    case servedFromCache(host: String, count: Int, cause: TileProblem)
    /// The embedded demo leaves a part out on this machine, for want of a tool.
    case demoLeftOut(DemoLeftOut)
    /// A live feed's newest frame, which its source has not published yet, left out of this
    /// build (the next picks it up); `animation` is `<animation>/<layer>` for a layer's.
    case newestFrameLeftOut(animation: String, frame: SkippedFrame)
    /// The newest model run (and maybe others) lacks frames the window asks of it: the
    /// newest complete one before it is published instead.
    case runIncomplete(RunReport)

    /// The warning in words.
    public var description: String {
        switch self {
        case .drawnTransparent(let words):
            words
        case .bulkDownloadForbidden(let keyPath, let id):
            "\(keyPath) (\(id)): tile.openstreetmap.org's usage policy forbids bulk downloading of its tiles; use it only as base_map (loaded by viewers' browsers), or a provider that allows this"
        case .notPublishedYet(let id):
            "\(id): not published yet, so not in the site index; it will be once its shard has built it"
        case .pointsSkipped(let id, let layer, let count):
            "\(id): points \(layer): \(count) invalid feature(s) or row(s) skipped (skip_invalid: true)"
        case .mixedTilesKeptPNG(let r):
            "\(r.animation): \(r.frames - r.framesWrittenLossy) of \(r.frames) frame(s) stitched from \(r.tiles) written as PNG, as most of their tiles came; format: webp would write them lossy, smaller"
        case .relativeBaseURL(let value, let file, let line):
            "\(file)\(line.map { " line \($0)" } ?? ""): base_url \"\(value)\" is relative\(line == nil ? " (the default)" : ""), so the index page's embed code and the pages' og:image and og:url work on this site only: set base_url to the address the site is served at, e.g. https://example.org/maps/"
        case .frameKeptDespiteFailure(let f):
            "\(f.animation): frame \(f.time.manifestText): \(f.failed) of \(f.tiles) tile(s) could not be had (\(f.problem)); its published version is kept"
        case .frameLeftOut(let f):
            "\(f.animation): frame \(f.time.manifestText) left out: \(f.reason)"
        case .servedFromCache(let host, let count, let cause):
            "\(host): \(count == 1 ? "1 tile (or document)" : "\(count) tiles (or documents)") served from the cache, possibly out of date, after the server failed (\(cause))"
        case .demoLeftOut(.exports(let problem)):
            "the demo's exported loops are left out: \(problem)"
        case .demoLeftOut(.mp4(let problem)):
            "the demo's MP4 is left out: \(problem)"
        case .newestFrameLeftOut(let id, let frame):
            "\(id): \(frame.time) left out of this build: \(frame.reason); the next build picks it up"
        case .runIncomplete(let report):
            report.description
        }
    }
}

/// What the embedded demo leaves out on a machine that lacks a tool for it.
public enum DemoLeftOut: Sendable, Equatable {
    /// Every exported loop: no font for their labels (`problem` says which).
    case exports(problem: String)
    /// The MP4: no ffmpeg (`problem` says why).
    case mp4(problem: String)
}

/// A frame inside the published window whose tiles could not all be had.
public struct FrameFailure: Sendable, Equatable {
    /// The animation's id.
    public var animation: String
    /// The frame's time.
    public var time: TimeInstant
    /// Tiles that could not be had, of `tiles`.
    public var failed: Int
    public var tiles: Int
    /// The first tile's problem.
    public var problem: TileProblem

    /// Why a frame never published is left out, as the manifest's `skipped` says it.
    public var reason: String {
        "\(failed) of \(tiles) tile(s) could not be had (\(problem)) and no build published it"
    }
}

/// What an operator must see about one loop, even under `--quiet` (the lines a cron log
/// exists for); `status.json` keeps them too.
public enum LoopAlert: Sendable, Equatable, CustomStringConvertible {
    /// This build's newest frame is older than the newest one the site has published: the
    /// feed (or the clock) went back.
    case olderWindow(animation: String, newest: TimeInstant, published: TimeInstant)
    /// A live feed's newest frame is older than its cadence allows: it has published no
    /// new time for `age` (its times come every `step`; `delay` is the lag configured).
    case feedStalled(animation: String, newest: TimeInstant, age: Duration, step: Duration)
    /// A part of a loop (a point layer) could not be made: it is kept as last published
    /// while the rest of the loop moves on.
    case partKept(animation: String, part: String, cause: String)

    /// The animation it is about.
    public var animation: String {
        switch self {
        case .olderWindow(let id, _, _), .feedStalled(let id, _, _, _), .partKept(let id, _, _): id
        }
    }

    /// The alert in words.
    public var description: String {
        switch self {
        case .olderWindow(let id, let newest, let published):
            "\(id): this build's newest frame (\(newest.manifestText)) is older than the published site's (\(published.manifestText)): the feed or the clock went back, and the loop moves back with it"
        case .feedStalled(let id, let newest, let age, let step):
            "\(id): the feed has published no new time since \(newest.manifestText) (\(Self.words(age)) ago; its times come every \(Self.words(step))): the loop stays on its old frames"
        case .partKept(let id, let part, let cause):
            "\(id): \(part) kept as last published (the rest of the loop moves on): \(cause)"
        }
    }

    /// A span in minutes or hours, as a log reads it.
    public static func words(_ span: Duration) -> String {
        let minutes = Int(span.components.seconds / 60)
        if minutes < 120 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

/// An animation's frames stitched from lossy (JPEG, lossy WebP) and lossless (PNG, lossless
/// WebP) tiles together, as a tile server that sends PNG only where it needs transparency
/// makes them, and what `format: auto` wrote.
public struct MixedTilesReport: Sendable, Equatable {
    /// The animation's id.
    public var animation: String
    /// Frames stitched from both kinds of tile.
    public var frames: Int
    /// Their lossy tiles, over every such frame.
    public var lossyTiles: Int
    /// Their lossless tiles, over every such frame.
    public var losslessTiles: Int
    /// Those of the frames written lossy (the others are PNG).
    public var framesWrittenLossy: Int

    /// The tiles in words.
    public var tiles: String { "\(lossyTiles) JPEG or lossy WebP tiles and \(losslessTiles) PNG or lossless WebP" }
}

/// An animation's (or a layer's) frames whose every pixel is fully transparent: a source
/// that answers a time it has no data for with empty tiles, or a picture with nothing on it.
public struct BlankFramesReport: Sendable, Equatable {
    /// The animation's id (`<animation>/<layer>` for a layer).
    public var animation: String
    /// Frames in the loop.
    public var frames: Int
    /// The blank frames' times (or `frame N` for frames without one), oldest first.
    public var times: [String]

    /// Times in one line: the first five and "..." past six.
    public static func list(_ times: [String]) -> String {
        times.count > 6 ? times.prefix(5).joined(separator: ", ") + ", ..." : times.joined(separator: ", ")
    }
}

/// What waiting for tiles and stitching took for one animation's frames.
public struct FrameTimes: Sendable, Equatable {
    /// The animation's id.
    public var animation: String
    /// Frames made (kept or stitched).
    public var frames: Int
    /// Seconds spent waiting for tiles, summed over the frames.
    public var fetchSeconds: Double
    /// Seconds spent stitching, summed over the frames (they run on `cores` at once).
    public var stitchSeconds: Double
    /// Cores the stitching ran on.
    public var cores: Int
}

/// Fallback tiles published for one animation.
public struct FallbackReport: Sendable, Equatable {
    /// The animation's id.
    public var animation: String
    /// Tiles in the site, written or kept.
    public var tiles: Int
    /// Of them, kept (linked) from the previous build.
    public var kept: Int
    /// The zooms published.
    public var zooms: ClosedRange<Int>
}

/// One level's files over every frame, written or linked: a pyramid's tiles or a reduced copy.
public protocol LevelFiles: Sendable, Equatable {
    var written: Int { get }
    var linked: Int { get }
    var bytes: Int { get }
}

/// A report of levels' files, with their totals.
public protocol LevelFilesReport: Sendable, Equatable {
    associatedtype Level: LevelFiles
    /// Coarsest first.
    var levels: [Level] { get }
}

extension LevelFilesReport {
    /// Files written, over every level.
    public var written: Int { levels.reduce(0) { $0 + $1.written } }
    /// Files linked from the previous build, over every level.
    public var linked: Int { levels.reduce(0) { $0 + $1.linked } }
    /// Bytes of every level's files.
    public var bytes: Int { levels.reduce(0) { $0 + $1.bytes } }
}

/// What publishing an animation's frames as tile pyramids cost.
public struct LevelsReport: LevelFilesReport {
    /// One level's tiles, over every frame.
    public struct Level: LevelFiles {
        /// The level's zoom.
        public var zoom: Int
        /// Tiles written.
        public var written: Int
        /// Tiles linked from the previous build.
        public var linked: Int
        /// Bytes of its tiles.
        public var bytes: Int
    }

    /// The animation's id.
    public var animation: String
    /// Frames cut into levels.
    public var frames: Int
    /// Coarsest first.
    public var levels: [Level]
    /// Wall seconds it took.
    public var seconds: Double
}

/// What publishing an animation's (or layer's) reduced frame copies cost (`levels:`).
public struct ReducedLevelsReport: LevelFilesReport {
    /// One copy, over every frame.
    public struct Level: LevelFiles {
        /// Halvings from the frame: 1 is `r1`, the frame halved.
        public var halvings: Int
        /// Its pixels across and down.
        public var width: Int
        public var height: Int
        /// Files written.
        public var written: Int
        /// Files linked from the previous build.
        public var linked: Int
        /// Bytes of its files.
        public var bytes: Int
    }

    /// The animation's id (`<animation>/<layer>` for a layer's frames).
    public var animation: String
    /// Frames given copies.
    public var frames: Int
    /// Coarsest first.
    public var levels: [Level]
    /// Wall seconds it took.
    public var seconds: Double
}

/// An animation's exported loops.
public struct ExportReport: Sendable, Equatable {
    /// One format's file.
    public struct File: Sendable, Equatable {
        /// What became of it.
        public enum Work: Sendable, Equatable {
            /// The previous site's file had the same inputs: linked.
            case kept
            /// Encoded: at this size, from this many frames, in this many seconds.
            case encoded(width: Int, height: Int, frames: Int, seconds: Double)
        }

        /// The file's format.
        public var format: ExportConfig.Format
        /// Its size.
        public var bytes: Int
        /// Kept or encoded.
        public var work: Work
        /// Encoded frames taken from the cache folder rather than encoded again (GIF, WebP).
        public var cachedFrames = 0
    }

    /// The animation's id.
    public var animation: String
    /// Kept files first, then encoded ones, each in config order.
    public var files: [File] = []
    /// Seconds spent composing the frames, when any format was encoded.
    public var composeSeconds: Double?
    /// Pictures composed, when any format was encoded (none for what the cache held).
    public var pictures: Int?
    /// Wall seconds the encoding took, when any format was encoded.
    public var seconds: Double?
}

/// A point layer published.
public struct PointLayerReport: Sendable, Equatable {
    /// The animation's id.
    public var animation: String
    /// The layer's id.
    public var layer: String
    /// Points published.
    public var points: Int
    /// True when the previous site's files were linked (nothing clustered).
    public var reused: Bool
    /// Wall seconds it took.
    public var seconds: Double
    /// Zoom levels published.
    public var levels: Int
    /// Bytes of its levels' files.
    public var bytes: Int
}

/// A reporter that drops everything.
public struct SilentReporter: BuildReporter {
    /// Creates one.
    public init() {}
    /// Drops `event`.
    public func report(_ event: BuildEvent) {}
}

extension BuildReporter {
    /// The planning function's progress, said as an event.
    func planned(animation: String, frames: Int, tiles: Int) {
        report(.planned(animation: animation, frames: frames, tiles: tiles))
    }
}

/// What a finished build did.
public struct BuildSummary: Sendable {
    /// Animations built.
    public var animations = 0
    /// Frames in the site.
    public var frames = 0
    /// Frames kept from the previous build (inputs unchanged).
    public var framesReused = 0
    /// Tiles the frames needed.
    public var tiles = 0
    /// HTTP requests made.
    public var requests = 0
    /// Body bytes received over HTTP.
    public var bytesFetched = 0
    /// 304 answers (cache revalidated).
    public var notModified = 0
    /// Bytes of the published site.
    public var outputBytes: Int64 = 0
    /// Wall seconds.
    public var seconds = 0.0
    /// True when the new site equalled the old one, so nothing was replaced.
    public var unchanged = false
    /// Where the site is.
    public var output = ""
    /// Warnings given.
    public var warnings: [String] = []
    /// Animations this build could not make (the others were published): each keeps its
    /// last published version, said once each with its age.
    public var staleLoops: [StaleLoop] = []
}
