import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// `frames: { last, step, delay }`, `last` with `latest`, and `frames.index` as the config
/// reads them, and the errors that name the key and line.
@Suite("Config: rolling windows and frame indexes")
struct LiveFramesConfigTests {
    static func yaml(source: String = "url: \"https://r.example.org/{time}/{z}/{x}/{y}.png\"", frames: String) -> String {
        """
        animations:
          - id: radar
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            source: { \(source) }
            frames: \(frames)
        """
    }

    func parse(_ yaml: String) throws -> AnimationConfig {
        try ConfigLoader.parse(Data(yaml.utf8), file: "site.yml").animations[0]
    }

    func failure(_ yaml: String) throws -> ConfigError {
        do {
            _ = try ConfigLoader.parse(Data(yaml.utf8), file: "site.yml")
        } catch let error as ConfigError {
            return error
        }
        Issue.record("the config was accepted")
        return ConfigError(file: "", line: nil, keyPath: "", message: "")
    }

    @Test("last, step and delay are parsed once into durations; the window's times are multiples of step from the epoch")
    func rollingWindow() throws {
        let animation = try parse(Self.yaml(frames: "{ last: PT20M, step: PT5M, delay: PT2M }"))
        guard case .rolling(let window) = animation.frames else { Issue.record("not a rolling window"); return }
        #expect(window.last.milliseconds == 1_200_000 && window.step?.milliseconds == 300_000 && window.delay.milliseconds == 120_000)
        let now = try TimeInstant.parse("2026-11-21T12:06:59Z")
        // now - delay = 12:04:59 -> 12:00; back 20 minutes, inclusive.
        #expect(
            window.times(now: now).map(\.iso8601) == [
                "2026-11-21T11:40:00Z", "2026-11-21T11:45:00Z", "2026-11-21T11:50:00Z",
                "2026-11-21T11:55:00Z", "2026-11-21T12:00:00Z",
            ])
        #expect(animation.frames.followsLiveFeed)
    }

    @Test(
        "rolling window mistakes name the key",
        arguments: [
            ("{ last: PT2H }", "animations[0].frames.step", "needs step"),
            ("{ last: PT2H, step: P1M }", "animations[0].frames.step", "fixed length"),
            ("{ last: P1M, step: PT5M }", "animations[0].frames.last", "fixed length"),
            ("{ last: PT2H, step: PT0S }", "animations[0].frames.step", "ISO 8601 duration"),
            ("{ last: PT2H, step: PT5M, latest: 4 }", "animations[0].frames.latest", "wmts or wms"),
            ("{ step: PT5M }", "animations[0].frames.step", "goes with last"),
            ("{ last: PT2H, step: PT5M, count: 3 }", "animations[0].frames.count", "not both"),
            ("{ last: P10000D, step: PT1S }", "animations[0].frames.last", "steps"),
        ])
    func rollingMistakes(_ frames: String, _ keyPath: String, _ words: String) throws {
        let error = try failure(Self.yaml(frames: frames))
        #expect(error.keyPath == keyPath, "\(error)")
        #expect(error.message.contains(words), "\(error)")
        #expect(error.line == 6)
    }

    @Test("a WMTS source takes last alone or with latest, and refuses step")
    func ogcWindow() throws {
        let wmts = "wmts: { capabilities: \"https://w.example.org/caps.xml\", layer: radar }"
        guard case .rolling(let window) = try parse(Self.yaml(source: wmts, frames: "{ last: PT2H, latest: 12 }")).frames else {
            Issue.record("not a rolling window"); return
        }
        #expect(window.step == nil && window.latest == 12)
        let error = try failure(Self.yaml(source: wmts, frames: "{ last: PT2H, step: PT5M }"))
        #expect(error.keyPath == "animations[0].frames.step" && error.message.contains("advertises its own times"))
    }

    @Test("frames.index: fields and globals become placeholders of the source template")
    func index() throws {
        let animation = try parse(
            Self.yaml(
                source: "url: \"{host}{path}/256/{z}/{x}/{y}/2/1_1.png\"",
                frames: """
                    { index: { url: "https://api.example.org/public/weather-maps.json", items: radar.past, time: time,
                               fields: { path: path }, globals: { host: host }, latest: 12 } }
                    """))
        guard case .index(let index) = animation.frames, case .url(let template) = animation.source.kind else {
            Issue.record("not an index"); return
        }
        #expect(index.location == .url(try #require(HTTPURL("https://api.example.org/public/weather-maps.json"))))
        #expect(index.items == "radar.past" && index.time == "time" && index.latest == 12)
        #expect(index.fields == ["path": "path"] && index.globals == ["host": "host"])
        #expect(template.fieldNames == ["host", "path"])
        #expect(
            template.expand(
                z: 1, x: 2, y: 3, subdomain: nil, time: nil, frame: nil,
                fields: ["host": "https://t.example.org", "path": "/v2/radar/ab"])
                == "https://t.example.org/v2/radar/ab/256/1/2/3/2/1_1.png")
    }

    @Test("a plain list of times: items and time empty, with a {time} template and a file")
    func plainList() throws {
        let animation = try parse(Self.yaml(frames: "{ index: { file: times.json, items: \"\", time: \"\" } }"))
        guard case .index(let index) = animation.frames else { Issue.record("not an index"); return }
        #expect(index.location == .file("times.json") && index.items.isEmpty && index.time.isEmpty)
    }

    @Test(
        "frame index mistakes name the key",
        arguments: [
            ("{ index: { items: a } }", "animations[0].frames.index.url", "missing"),
            ("{ index: { url: \"ftp://x/y.json\" } }", "animations[0].frames.index.url", "http"),
            ("{ index: { url: \"https://x/y.json\", items: \"a..b\" } }", "animations[0].frames.index.items", "dotted path"),
            ("{ index: { url: \"https://x/y.json\", fields: { z: zoom } } }", "animations[0].frames.index.fields.z", "matsite's own"),
            ("{ index: { url: \"https://x/y.json\", fields: { \"a b\": c } } }", "animations[0].frames.index.fields.a b", "placeholder name"),
            ("{ index: { url: \"https://x/y.json\", fields: [path] } }", "animations[0].frames.index.fields", "mapping"),
            ("{ index: { url: \"https://x/y.json\", colour: red } }", "animations[0].frames.index.colour", "unknown key"),
        ])
    func indexMistakes(_ frames: String, _ keyPath: String, _ words: String) throws {
        let error = try failure(Self.yaml(frames: frames))
        #expect(error.keyPath == keyPath, "\(error)")
        #expect(error.message.contains(words), "\(error)")
    }

    @Test("a template placeholder no index field names is still an unknown placeholder")
    func unknownField() throws {
        let error = try failure(
            Self.yaml(
                source: "url: \"{host}{path}/{z}/{x}/{y}.png\"",
                frames: """
                    { index: { url: "https://x/y.json", items: radar.past, time: time, globals: { host: host } } }
                    """))
        #expect(error.keyPath == "animations[0].source.url" && error.message.contains("unknown placeholder {path}"), "\(error)")
    }
}

/// `next:` on a rolling window: parsed, its forecast times, and its mistakes.
@Suite("Config: a rolling window reaching past now (next)")
struct ForecastWindowConfigTests {
    let live = LiveFramesConfigTests()

    @Test("next is a fixed duration; the forecast times are the step grid's after now, up to now + next")
    func next() throws {
        let animation = try live.parse(LiveFramesConfigTests.yaml(frames: "{ last: PT10M, next: PT30M, step: PT10M }"))
        guard case .rolling(let window) = animation.frames else { Issue.record("not a rolling window"); return }
        #expect(window.next?.milliseconds == 1_800_000)
        let now = try TimeInstant.parse("2026-11-21T12:00:00Z")
        // Now itself is observed (the window's newest); the future starts after it.
        #expect(window.times(now: now).map(\.iso8601) == ["2026-11-21T11:50:00Z", "2026-11-21T12:00:00Z"])
        #expect(window.forecastTimes(now: now).map(\.iso8601) == ["2026-11-21T12:10:00Z", "2026-11-21T12:20:00Z", "2026-11-21T12:30:00Z"])
        let later = try TimeInstant.parse("2026-11-21T12:04:00Z")
        #expect(window.forecastTimes(now: later).map(\.iso8601) == ["2026-11-21T12:10:00Z", "2026-11-21T12:20:00Z", "2026-11-21T12:30:00Z"])
    }

    @Test("next without step, next without last, and a calendar next are errors naming the file, line, key and fix")
    func mistakes() throws {
        let noStep = try live.failure(LiveFramesConfigTests.yaml(frames: "{ last: PT2H, next: PT1H }"))
        #expect(noStep.file == "site.yml" && noStep.line == 6 && noStep.keyPath == "animations[0].frames.step")
        #expect(noStep.message.contains("next:") && noStep.message.contains("step: PT10M"))
        let noLast = try live.failure(LiveFramesConfigTests.yaml(frames: "{ next: PT1H, step: PT10M }"))
        #expect(noLast.line == 6 && noLast.keyPath == "animations[0].frames.next" && noLast.message.contains("goes with last:"))
        let calendar = try live.failure(LiveFramesConfigTests.yaml(frames: "{ last: PT2H, next: P1M, step: PT10M }"))
        #expect(calendar.keyPath == "animations[0].frames.next" && calendar.message.contains("fixed length"))
    }
}
