import Foundation
import Logging
import MatsiteDeploy
import MatsiteKit

/// Progress on stderr: a live bar on a terminal, plain lines otherwise, nothing but
/// errors when quiet. Warnings and details go through swift-log (label `matsite`), whose
/// handler here prints them above the bar. The library's events are worded here
/// (`Wording`), never in MatsiteKit.
public final class ConsoleReporter: BuildReporter, @unchecked Sendable {
    /// How much to say.
    public enum Mode: Sendable { case live, plain, quiet }

    private let mode: Mode
    private let verbose: Bool
    private let started = Date()
    private let state = LockedBox(Progress())
    /// Where warnings and details are logged.
    public private(set) var logger = Logger(label: "matsite")

    /// A reporter; `mode` nil picks live on a terminal, plain otherwise.
    public init(mode: Mode? = nil, verbose: Bool = false) {
        self.mode = mode ?? (isatty(STDERR_FILENO) == 1 ? .live : .plain)
        self.verbose = verbose
        logger = Logger(label: "matsite") { [weak self] label in ConsoleLogHandler(label: label, console: self) }
        logger.logLevel = self.mode == .quiet ? .error : verbose ? .debug : .notice
    }

    /// Says `event` as its kind asks: progress on the bar, warnings always (unless quiet),
    /// costs of levels and exports unless quiet, details with `--verbose`.
    public func report(_ event: BuildEvent) {
        switch event {
        case .planned(let animation, let frames, let tiles):
            planned(animation: animation, frames: frames, tiles: tiles)
        case .tileLoaded(let bytes):
            tileLoaded(bytes: bytes)
        case .frameDone(let animation, let index, let reused):
            frameDone(animation: animation, index: index, reused: reused)
        case .warning(let warning):
            logger.warning("\(warning)")
        case .alert(let alert):
            // The lines a cron log exists for: said even under --quiet.
            log("warning: \(alert)")
        case .levelsPublished(let report):
            say(Wording.levels(report))
        case .reducedLevelsPublished(let report):
            say(Wording.reducedLevels(report))
        case .exported(let report):
            for line in Wording.export(report) { say(line) }
        case .framesMade(let times):
            detail(Wording.frameTimes(times))
        case .mixedTilesWrittenLossy(let report):
            detail(Wording.mixedTiles(report))
        case .blankFrames(let report):
            say(Wording.blankFrames(report))
        case .tileFailed(let tile):
            detail("failed: \(tile)")
        case .tileDrawnTransparent(let tile):
            detail("drawn transparent: \(tile)")
        case .fallbackPublished(let report):
            detail(Wording.fallback(report))
        case .pointLayerPublished(let report):
            detail(Wording.points(report))
        case .buildingEmbeddedDemo:
            say("no matsite.yml here: building the embedded demo (offline)")
        case .rebuilding:
            say("change seen: rebuilding")
        case .rebuilt(let summary):
            finish()
            say(Wording.summary(summary))
        case .rebuildFailed(let error):
            finish()
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        }
    }

    /// Prints one log line above the bar (the log handler's way out).
    func log(_ line: String) {
        state.withLock { emit(line, &$0) }
    }

    /// Clears the live bar (call before printing the summary or an error).
    public func finish() {
        state.withLock { p in
            if p.barShown { write("\r\u{1B}[K") }
            p.barShown = false
        }
    }

    /// Writes a line to stderr unless quiet.
    public func say(_ line: String) {
        state.withLock { p in
            if mode != .quiet { emit(line, &p) }
        }
    }
}

extension ConsoleReporter: DeployReporter {
    /// Says a deploy's `event`, a line each (nothing when quiet).
    package func report(_ event: DeployEvent) {
        say(Wording.deploy(event))
    }
}

/// What the reporter counted and drew so far; only touched under its lock.
private struct Progress {
    var tilesTotal = 0, tilesDone = 0, framesTotal = 0, framesDone = 0, framesReused = 0
    var bytes = 0
    var lastDraw = Date.distantPast
    var lastPlainPercent = -1
    var barShown = false
}

private extension ConsoleReporter {
    func planned(animation: String, frames: Int, tiles: Int) {
        state.withLock { p in
            p.framesTotal += frames
            p.tilesTotal += tiles
            if mode == .plain || verbose { emit("\(animation): \(frames) frames, \(tiles) tiles", &p) }
        }
    }

    func tileLoaded(bytes count: Int) {
        state.withLock { p in
            p.tilesDone += 1
            p.bytes += count
            progress(&p)
        }
    }

    func frameDone(animation: String, index: Int, reused: Bool) {
        state.withLock { p in
            p.framesDone += 1
            if reused { p.framesReused += 1 }
            if verbose { emit("\(animation): frame \(index) \(reused ? "unchanged, kept" : "stitched")", &p) }
            progress(&p)
        }
    }

    func detail(_ message: String) {
        logger.debug("\(message)")
    }

    func progress(_ p: inout Progress) {
        switch mode {
        case .quiet:
            return
        case .live:
            let now = Date()
            guard now.timeIntervalSince(p.lastDraw) >= 0.1 || p.tilesDone == p.tilesTotal else { return }
            p.lastDraw = now
            write("\r\u{1B}[K" + line(p))
            p.barShown = true
        case .plain:
            guard p.tilesTotal + p.framesTotal > 0 else { return }
            let percent = (p.tilesDone + p.framesDone) * 100 / (p.tilesTotal + p.framesTotal)
            guard percent / 10 != p.lastPlainPercent / 10 else { return }
            p.lastPlainPercent = percent
            write(line(p) + "\n")
        }
    }

    func line(_ p: Progress) -> String {
        let (tilesTotal, tilesDone, framesTotal, framesDone, bytes) = (p.tilesTotal, p.tilesDone, p.framesTotal, p.framesDone, p.bytes)
        let elapsed = max(0.001, Date().timeIntervalSince(started))
        let fraction = tilesTotal + framesTotal == 0 ? 0 : Double(tilesDone + framesDone) / Double(tilesTotal + framesTotal)
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = mode == .live ? "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " : ""
        let rate = Double(tilesDone) / elapsed
        let eta = fraction > 0.02 ? " ETA \(Self.duration(elapsed / fraction - elapsed))" : ""
        return "\(bar)tiles \(tilesDone)/\(tilesTotal) (\(ByteCount.text(bytes)), \(Int(rate))/s) frames \(framesDone)/\(framesTotal)\(eta)"
    }

    func emit(_ text: String, _ p: inout Progress) {
        if p.barShown { write("\r\u{1B}[K") }
        write(text + "\n")
        p.barShown = false
    }

    func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func duration(_ seconds: Double) -> String {
        seconds < 60 ? "\(Int(seconds.rounded()))s" : "\(Int(seconds) / 60)m\(Int(seconds) % 60)s"
    }
}

/// swift-log's way onto the console: `warning: ...` and `error: ...` lines, details plain,
/// printed above the live bar without tearing it.
struct ConsoleLogHandler: LogHandler {
    let label: String
    weak var console: ConsoleReporter?
    var logLevel: Logger.Level = .notice
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let prefix =
            switch event.level {
            case .warning: "warning: "
            case .error, .critical: "error: "
            default: ""
            }
        let line = prefix + event.message.description
        if let console { console.log(line) } else { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }
}
