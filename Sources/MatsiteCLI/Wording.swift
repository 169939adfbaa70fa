import Foundation
import MatsiteCapabilities
import MatsiteKit

/// How the command line words what MatsiteKit reports: the summary a build ends with and
/// one line per product's cost. The library says what happened; only this says it in words.
enum Wording {
    /// The one line `matsite build` ends with: what was built, fetched and published.
    static func summary(_ s: BuildSummary) -> String {
        let reused = s.framesReused > 0 ? " (\(s.framesReused) unchanged)" : ""
        let fetched = s.requests > 0 ? ", \(s.requests) requests, \(ByteCount.text(s.bytesFetched)) fetched" : ""
        let revalidated = s.notModified > 0 ? " (\(s.notModified) not modified)" : ""
        let state = s.unchanged ? "unchanged, nothing replaced" : "published"
        return "built \(s.animations) animation(s): \(s.frames) frames\(reused), \(s.tiles) tiles\(fetched)\(revalidated); "
            + "\(ByteCount.text(Int(s.outputBytes))) in \(s.output) (\(state)) in \(String(format: "%.2f", s.seconds)) s"
    }

    /// An animation this build could not make while the others were published: what failed
    /// it, and what the site shows instead, with its age at `now` (the build's clock).
    static func stale(_ loop: StaleLoop, now: TimeInstant) -> String {
        let cause = String(describing: loop.error).replacingOccurrences(of: "\n", with: "\n  ")
        guard loop.kept else {
            return "\(loop.id): not built, and never published, so not in the site index: \(cause)"
        }
        var kept = "the site keeps its last version"
        if let text = loop.lastGoodBuild, let built = try? TimeInstant.parse(text) {
            let age = Duration.milliseconds(now.millisecondsSinceEpoch - built.millisecondsSinceEpoch)
            kept += ", built \(text) (\(LoopAlert.words(age)) ago)"
        }
        if loop.failedBuilds > 1 { kept += "; \(loop.failedBuilds) builds in a row failed it" }
        return "\(loop.id): not updated (\(kept)): \(cause)"
    }

    /// Levels, tiles written and linked, bytes, per level.
    /// `check`'s lines on a source with model runs: the run a build would publish, and each
    /// newer run it would pass over with the frame it lacks.
    static func runs(_ r: RunReport) -> [String] {
        let newest = r.newest == r.used ? " (the newest)" : ", newest \(r.newest.iso8601)"
        return ["run: \(r.used.iso8601)\(newest), \(r.frames) forecast frame(s) all out"]
            + r.lacking.map { "run \($0.run.iso8601) not complete: lacks its frame for \($0.frame.iso8601) (\($0.problem): \($0.example))" }
    }

    static func levels(_ r: LevelsReport) -> String {
        let perLevel = r.levels.map { "z\($0.zoom) \($0.written + $0.linked) (\(ByteCount.text($0.bytes)))" }
        let zooms = "z\(r.levels.first?.zoom ?? 0)-z\(r.levels.last?.zoom ?? 0)"
        return "\(r.animation): levels \(zooms) of \(r.frames) frames: \(r.written) tiles written, "
            + "\(r.linked) linked, \(ByteCount.text(r.bytes)) in \(String(format: "%.2f", r.seconds)) s; "
            + "per level: \(perLevel.joined(separator: ", "))"
    }

    /// Reduced copies, written and linked, bytes, per copy (finest first).
    static func reducedLevels(_ r: ReducedLevelsReport) -> String {
        let perLevel = r.levels.reversed().map { "r\($0.halvings) \($0.width)x\($0.height) (\(ByteCount.text($0.bytes)))" }
        return "\(r.animation): reduced levels of \(r.frames) frames: \(r.written) written, \(r.linked) linked, "
            + "\(ByteCount.text(r.bytes)) in \(String(format: "%.2f", r.seconds)) s; \(perLevel.joined(separator: ", "))"
    }

    /// One line per exported format, then what composing the frames and the whole export took.
    static func export(_ r: ExportReport) -> [String] {
        var count: Int?
        var lines = r.files.map { file in
            switch file.work {
            case .kept:
                return "\(r.animation): export \(file.format.rawValue) kept (unchanged), \(megabytes(file.bytes))"
            case .encoded(let width, let height, let frames, let seconds):
                count = frames
                let cached = file.cachedFrames > 0 ? "; \(file.cachedFrames) of \(frames) frames from the cache" : ""
                return "\(r.animation): export \(file.format.rawValue) \(width)x\(height), \(frames) frames: "
                    + "\(String(format: "%.2f", seconds)) s, \(megabytes(file.bytes))\(cached)"
            }
        }
        if let compose = r.composeSeconds {
            var line = "\(r.animation): export frames composed in \(String(format: "%.2f", compose)) s"
            if let pictures = r.pictures, let count { line += " (\(pictures) pictures for \(count) frames)" }
            if let seconds = r.seconds { line += "; export took \(String(format: "%.2f", seconds)) s" }
            lines.append(line)
        }
        return lines
    }

    /// Waiting for tiles and stitching, per frame (`--verbose`).
    static func frameTimes(_ t: FrameTimes) -> String {
        let n = Double(max(1, t.frames))
        return "\(t.animation): "
            + String(
                format: "waiting for tiles %.2f s per frame; stitching %.3f s per frame (%.2f s in all, on %d cores)",
                t.fetchSeconds / n, t.stitchSeconds / n, t.stitchSeconds, t.cores)
    }

    /// Frames of lossy and lossless tiles written lossy (`--verbose`).
    static func mixedTiles(_ r: MixedTilesReport) -> String {
        "\(r.animation): \(r.frames) frame(s) stitched from \(r.tiles) written lossy, as most of their tiles came (format: auto); format: png keeps them lossless"
    }

    /// Frames published with nothing on them, said whatever `--verbose` says.
    static func blankFrames(_ r: BlankFramesReport) -> String {
        "note: \(r.animation): \(r.times.count) of \(r.frames) frame(s) blank (every pixel transparent): \(BlankFramesReport.list(r.times))"
    }

    /// Fallback tiles published and kept (`--verbose`).
    static func fallback(_ r: FallbackReport) -> String {
        "\(r.animation): published \(r.tiles) fallback tiles (zoom \(r.zooms.lowerBound)-\(r.zooms.upperBound)), \(r.kept) of them kept"
    }

    /// A point layer: clustered or linked, how long, how large (`--verbose`).
    static func points(_ r: PointLayerReport) -> String {
        let how = r.reused ? "unchanged, linked" : "clustered and written"
        return "\(r.animation): points \(r.layer): \(r.points) points \(how) in \(String(format: "%.2f", r.seconds)) s, \(r.levels) levels, \(r.bytes) bytes"
    }

    /// An exported file's size: `1.23 MB (1234567 bytes)`.
    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.2f MB (%d bytes)", Double(bytes) / 1e6, bytes)
    }
}
