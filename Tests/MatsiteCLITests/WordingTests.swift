import MatsiteCapabilities
import Testing

@testable import MatsiteCLI
@testable import MatsiteKit

/// The console's words for what a build reports: the lines users (and scripts reading
/// stderr) know, from the library's typed events.
@Suite("Wording")
struct WordingTests {
    @Test("the summary says what was built, fetched and published, and skips what did not happen")
    func summary() {
        var s = BuildSummary()
        s.animations = 2
        s.frames = 24
        s.framesReused = 23
        s.tiles = 1536
        s.requests = 64
        s.bytesFetched = 1_234_567
        s.notModified = 3
        s.outputBytes = 9_900
        s.output = "/srv/site"
        s.seconds = 1.234
        #expect(
            Wording.summary(s)
                == "built 2 animation(s): 24 frames (23 unchanged), 1536 tiles, 64 requests, 1.2 MB fetched (3 not modified); 9.9 KB in /srv/site (published) in 1.23 s"
        )
        s.framesReused = 0
        s.requests = 0
        s.notModified = 0
        s.unchanged = true
        #expect(Wording.summary(s) == "built 2 animation(s): 24 frames, 1536 tiles; 9.9 KB in /srv/site (unchanged, nothing replaced) in 1.23 s")
    }

    @Test("check's run lines: the run a build would publish, then each newer one with the frame it lacks")
    func runs() throws {
        let hour: (Int) -> TimeInstant = { TimeInstant(millisecondsSinceEpoch: 1_795_824_000_000 + Int64($0) * 3_600_000) }
        var report = RunReport(animation: "hrrr", newest: hour(1), used: hour(1), frames: 7, lacking: [])
        #expect(Wording.runs(report) == ["run: \(hour(1).iso8601) (the newest), 7 forecast frame(s) all out"])
        report.used = hour(0)
        report.lacking = [.init(run: hour(1), frame: hour(7), frames: 7, problem: "HTTP 404 (no tile here)", example: "https://m.example/f06")]
        #expect(
            Wording.runs(report) == [
                "run: \(hour(0).iso8601), newest \(hour(1).iso8601), 7 forecast frame(s) all out",
                "run \(hour(1).iso8601) not complete: lacks its frame for \(hour(7).iso8601) (HTTP 404 (no tile here): https://m.example/f06)",
            ])
        #expect(BuildWarning.runIncomplete(report).description.contains("run \(hour(0).iso8601) stays published"))
    }

    @Test("a levels report is one line: totals, then each level's tiles and bytes, coarsest first")
    func levels() {
        let report = LevelsReport(
            animation: "radar", frames: 2,
            levels: [.init(zoom: 4, written: 2, linked: 2, bytes: 800), .init(zoom: 5, written: 8, linked: 0, bytes: 12_000)],
            seconds: 0.5)
        #expect(
            Wording.levels(report)
                == "radar: levels z4-z5 of 2 frames: 10 tiles written, 2 linked, 12.8 KB in 0.50 s; per level: z4 4 (800 B), z5 8 (12.0 KB)")
    }

    @Test("a reduced levels report is one line per animation: totals, then each copy's size and bytes, finest first")
    func reducedLevels() {
        let report = ReducedLevelsReport(
            animation: "radar/below", frames: 12,
            levels: [
                .init(halvings: 2, width: 239, height: 206, written: 2, linked: 10, bytes: 60_000),
                .init(halvings: 1, width: 478, height: 412, written: 2, linked: 10, bytes: 180_000),
            ], seconds: 0.25)
        #expect(
            Wording.reducedLevels(report)
                == "radar/below: reduced levels of 12 frames: 4 written, 20 linked, 240.0 KB in 0.25 s; r1 478x412 (180.0 KB), r2 239x206 (60.0 KB)"
        )
    }

    @Test("an export says each file kept or encoded, in the report's order, then the composing time")
    func export() {
        let report = ExportReport(
            animation: "radar",
            files: [
                .init(format: .gif, bytes: 1_500_000, work: .kept),
                .init(format: .mp4, bytes: 250_000, work: .encoded(width: 640, height: 480, frames: 12, seconds: 1.5)),
            ], composeSeconds: 0.25)
        #expect(
            Wording.export(report) == [
                "radar: export gif kept (unchanged), 1.50 MB (1500000 bytes)",
                "radar: export mp4 640x480, 12 frames: 1.50 s, 0.25 MB (250000 bytes)",
                "radar: export frames composed in 0.25 s",
            ])
        #expect(Wording.export(ExportReport(animation: "radar", files: [.init(format: .webp, bytes: 9, work: .kept)])).count == 1)
        let cached = ExportReport(
            animation: "radar",
            files: [.init(format: .webp, bytes: 9_000, work: .encoded(width: 64, height: 48, frames: 4, seconds: 0.5), cachedFrames: 3)],
            composeSeconds: 0.25, pictures: 2, seconds: 0.75)
        #expect(
            Wording.export(cached) == [
                "radar: export webp 64x48, 4 frames: 0.50 s, 0.01 MB (9000 bytes); 3 of 4 frames from the cache",
                "radar: export frames composed in 0.25 s (2 pictures for 4 frames); export took 0.75 s",
            ])
    }

    @Test("details for --verbose: frame times per frame, fallback tiles, point layers, frames of mixed tiles written lossy")
    func details() {
        #expect(
            Wording.frameTimes(FrameTimes(animation: "radar", frames: 4, fetchSeconds: 2, stitchSeconds: 1, cores: 2))
                == "radar: waiting for tiles 0.50 s per frame; stitching 0.250 s per frame (1.00 s in all, on 2 cores)")
        #expect(
            Wording.fallback(FallbackReport(animation: "radar", tiles: 40, kept: 30, zooms: 6...7))
                == "radar: published 40 fallback tiles (zoom 6-7), 30 of them kept")
        #expect(
            Wording.points(PointLayerReport(animation: "radar", layer: "reports", points: 400, reused: true, seconds: 0.01, levels: 16, bytes: 5000))
                == "radar: points reports: 400 points unchanged, linked in 0.01 s, 16 levels, 5000 bytes")
        #expect(
            Wording.mixedTiles(MixedTilesReport(animation: "sat", frames: 3, lossyTiles: 30, losslessTiles: 6, framesWrittenLossy: 3))
                == "sat: 3 frame(s) stitched from 30 JPEG or lossy WebP tiles and 6 PNG or lossless WebP written lossy, as most of their tiles came (format: auto); format: png keeps them lossless"
        )
    }
}
