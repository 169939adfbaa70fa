import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// `runs:`, `run_format`, `{run}` and `{lead}` as the config reads them, and each
/// combination that cannot work refused with the file, line, key and fix.
@Suite("Config: model runs and the combinations that cannot work")
struct ForecastConfigTests {
    static let hrrr = "url: \"https://m.example.org/hrrr/{run}/f{lead}/{z}/{x}/{y}.png\""

    /// An animation; `more` lines go after `frames` (line 7 on).
    static func yaml(source: String = hrrr, frames: String = "{ last: PT1H, next: PT6H, step: PT1H }", more: [String] = []) -> String {
        ([
            "animations:",
            "  - id: model",
            "    bbox: [-10.0, 40.0, 10.0, 52.0]",
            "    zoom: 4",
            "    source: { \(source) }",
            "    frames: \(frames)",
        ] + more.map { "    \($0)" }).joined(separator: "\n")
    }

    @Test("runs: every and delay, run_format, and the candidates: the newest run out by now, then the two before")
    func runs() throws {
        let animation = try LiveFramesConfigTests().parse(
            Self.yaml(more: ["runs: { every: PT6H, delay: PT3H30M }", "run_format: \"%Y%m%d/%H\""]))
        let runs = try #require(animation.runs)
        #expect(runs.every.milliseconds == 6 * 3_600_000 && runs.delay.milliseconds == 210 * 60_000 && runs.format.pattern == "%Y%m%d/%H")
        let now = try TimeInstant.parse("2026-11-28T09:29:00Z")
        // 09:29 - 3:30 = 05:59 -> the 00 run; 06 is not out until 09:30.
        #expect(runs.runs(now: now).map(\.iso8601) == ["2026-11-28T00:00:00Z", "2026-11-27T18:00:00Z", "2026-11-27T12:00:00Z"])
        #expect(RunsConfig.lead(from: now, to: now.adding(ISODuration(milliseconds: 3 * 3_600_000))) == "03")
        #expect(RunsConfig.lead(from: now, to: now.adding(ISODuration(milliseconds: 120 * 3_600_000))) == "120")
    }

    @Test(
        "each bad combination names its key, line and fix",
        arguments: [
            // {run} or {lead} without runs:
            (yaml(), "animations[0].source", 5, "add runs: { every: PT1H, delay: PT50M }"),
            (yaml(source: "url: \"https://m.example.org/{time}/f{lead}/{z}/{x}/{y}.png\""), "animations[0].source", 5, "{lead}"),
            // runs: without {run}, or on a source naming its runs itself
            (
                yaml(source: "url: \"https://m.example.org/{time}/{z}/{x}/{y}.png\"", more: ["runs: { every: PT1H }"]), "animations[0].runs", 7,
                "name the run in source.url"
            ),
            (
                yaml(
                    source: "wms: { url: \"https://m.example.org/wms\", layers: HRDPS }", frames: "{ last: PT1H, next: PT6H }", more: ["runs: { every: PT1H }"]),
                "animations[0].runs", 7, "reference_time"
            ),
            // runs: with frames that do not reach past now
            (yaml(frames: "{ last: PT1H, step: PT1H }", more: ["runs: { every: PT1H }"]), "animations[0].frames", 6, "next: PT6H"),
            (yaml(frames: "{ times: [2026-11-28T00:00:00Z] }", more: ["runs: { every: PT1H }"]), "animations[0].frames", 6, "reaching past now"),
            // {run} without the valid time or the lead
            (yaml(source: "url: \"https://m.example.org/{run}/{z}/{x}/{y}.png\"", more: ["runs: { every: PT1H }"]), "animations[0].source", 5, "{lead}"),
            // {lead} is whole hours
            (yaml(frames: "{ last: PT1H, next: PT6H, step: PT30M }", more: ["runs: { every: PT1H }"]), "animations[0].frames.step", 6, "whole hours"),
            // runs: keys
            (yaml(more: ["runs: { delay: PT50M }"]), "animations[0].runs.every", 7, "how often a run starts"),
            (yaml(more: ["runs: { every: P1M }"]), "animations[0].runs.every", 7, "fixed length"),
            (yaml(more: ["runs: { every: PT1H, after: PT1H }"]), "animations[0].runs.after", 7, "allowed here: every, delay"),
            (
                yaml(source: "url: \"https://m.example.org/{time}/{z}/{x}/{y}.png\"", more: ["run_format: \"%Y%m%d%H\""]), "animations[0].run_format", 7,
                "goes with runs:"
            ),
            (yaml(more: ["runs: { every: PT1H }", "run_format: \"%Y-%q\""]), "animations[0].run_format", 8, "unsupported time format code"),
            // next where no future can be
            (
                yaml(source: "url: \"https://m.example.org/{time}/{z}/{x}/{y}.png\"", frames: "{ times: [2026-11-28T00:00:00Z], next: PT1H }"),
                "animations[0].frames.next", 6, "goes with last:"
            ),
            (
                yaml(source: "url: \"https://m.example.org/latest/{z}/{x}/{y}.png\"", frames: "{ last: PT1H, next: PT1H, step: PT10M }"),
                "animations[0].frames.next", 6, "no future"
            ),
            // an index field may not take a run placeholder's name
            (
                yaml(
                    source: "url: \"https://m.example.org/{time}/{z}/{x}/{y}.png\"",
                    frames: "{ index: { url: \"https://m.example.org/i.json\", fields: { run: r } } }"), "animations[0].frames.index.fields.run", 6,
                "matsite's own placeholder"
            ),
        ])
    func mistakes(_ yaml: String, _ keyPath: String, _ line: Int, _ words: String) throws {
        let error = try LiveFramesConfigTests().failure(yaml)
        #expect(error.file == "site.yml" && error.keyPath == keyPath && error.line == line, "\(error)")
        #expect(error.message.contains(words), "\(error)")
    }
}
