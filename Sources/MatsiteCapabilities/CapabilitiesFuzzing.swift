/// An entry point for fuzzers (libFuzzer's `LLVMFuzzerTestOneInput`) and robustness tests:
/// feeds arbitrary bytes through every parser and every resolution step, as a hostile server
/// would. It must return for any input, never crash or hang.
public enum CapabilitiesFuzzing {
    /// Parses `bytes` as WMTS, WMS and a service exception, then resolves every layer found and
    /// writes a few URLs and time selections. Returns how many layers were resolved (so the
    /// work cannot be optimised away).
    @discardableResult
    public static func exercise(_ bytes: [UInt8]) -> Int {
        let now = TimeInstant(year: 2026, month: 11, day: 23) ?? TimeInstant(millisecondsSinceEpoch: 0)
        var resolved = 0
        _ = ServiceException.message(in: bytes)
        if let wmts = try? WMTSCapabilities.parse(bytes, url: "https://fuzz.example/wmts?x=1") {
            _ = wmts.summary
            for layer in wmts.layers.prefix(50) {
                guard let source = try? wmts.tileSource(layer: layer.identifier, now: now) else { continue }
                resolved += 1
                _ = source.tileURL(z: source.minZoom, x: 0, y: 0, time: nil)
                _ = source.tileURL(z: source.maxZoom, x: 1, y: 1, time: "2026-11-21T10:00:00Z")
                exerciseTime(source.time)
                exerciseRuns(source.referenceTime) { run in _ = source.tileURL(z: source.minZoom, x: 0, y: 0, time: nil, run: run) }
            }
        }
        if let wms = try? WMSCapabilities.parse(bytes, url: "https://fuzz.example/wms?x=1") {
            _ = wms.summary
            for name in wms.layerNames.prefix(50) {
                guard let source = try? wms.mapSource(layers: name, now: now) else { continue }
                resolved += 1
                _ = source.mapURL(z: 3, x: 2, y: 1, tileSize: 256, time: nil)
                exerciseTime(source.time)
                exerciseRuns(source.referenceTime) { run in _ = source.mapURL(z: 0, x: 0, y: 0, tileSize: 256, time: nil, run: run) }
            }
        }
        return resolved
    }

    /// Parses `text` as a time dimension value and runs each selection on it.
    public static func exerciseTime(value text: String) {
        let now = TimeInstant(year: 2026, month: 11, day: 23) ?? TimeInstant(millisecondsSinceEpoch: 0)
        exerciseTime(try? TimeDimension.parse(values: [text], now: now))
    }

    private static func exerciseRuns(_ runs: ReferenceTime?, request: (String) -> Void) {
        guard let runs else { return }
        exerciseTime(runs.runs)
        for run in (try? runs.newest(3)) ?? [] { request(runs.format(run)) }
    }

    private static func exerciseTime(_ time: TimeDimension?) {
        guard let time else { return }
        _ = time.summary
        _ = try? time.instants(limit: 1000)
        if let last = try? time.latest(3).last {
            _ = time.contains(last)
            _ = time.format(last)
            if let step = try? ISODuration.parse("PT10M"), let first = time.first {
                _ = try? time.inRange(start: first, end: last, step: step, limit: 1000)
            }
        }
    }
}
