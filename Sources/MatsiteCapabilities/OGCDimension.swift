/// A dimension of a layer as advertised (WMTS `Dimension`, WMS `Dimension`/`Extent`),
/// before its values are interpreted.
public struct OGCDimension: Sendable, Equatable {
    /// `ows:Identifier` (WMTS) or `name` (WMS), e.g. `Time`, `elevation`.
    public let identifier: String
    /// `UOM`/`units`, e.g. `ISO8601`.
    public let units: String?
    /// The default value as written.
    public let defaultValue: String?
    /// Whether `current` is supported.
    public let current: Bool
    /// The `Value` elements (WMTS) or the text (WMS), as written.
    public let values: [String]

    /// A dimension with these parts.
    public init(identifier: String, units: String?, defaultValue: String?, current: Bool, values: [String]) {
        self.identifier = identifier
        self.units = units
        self.defaultValue = defaultValue
        self.current = current
        self.values = values
    }

    /// True for the time dimension (the identifier is `time` in any case).
    public var isTime: Bool {
        identifier.lowercased() == "time"
    }

    /// True for the model-run dimension of OGC 06-042 Annex C (`reference_time` in any case),
    /// as MSC GeoMet advertises it beside `time` on forecast layers.
    public var isReferenceTime: Bool {
        identifier.lowercased() == "reference_time"
    }

    /// Interprets the values as ISO 8601 times.
    public func timeDimension(now: TimeInstant = .now()) throws(TimeDimensionError) -> TimeDimension {
        try TimeDimension.parse(values: values, default: defaultValue, current: current, now: now)
    }
}

/// The model runs of a forecast layer: its `reference_time` dimension, read as times. Each
/// run has its own valid times (the `time` dimension describes the default run's); a request
/// names the run (`DIM_REFERENCE_TIME=` in WMS, the dimension's own parameter or placeholder in
/// WMTS), else the server answers for its default run.
public struct ReferenceTime: Sendable, Hashable {
    /// The identifier as advertised (`reference_time`): WMTS requests use it as written.
    public let identifier: String
    /// The advertised runs (a list or `start/end/period`), with the default run.
    public let runs: TimeDimension

    /// The runs of `dimension` (a `reference_time` dimension), `present` standing for `now`.
    public init(_ dimension: OGCDimension, now: TimeInstant = .now()) throws(TimeDimensionError) {
        identifier = dimension.identifier
        runs = try dimension.timeDimension(now: now)
    }

    /// Runs from a parsed time dimension (tests, and callers that already hold one).
    public init(identifier: String = "reference_time", runs: TimeDimension) {
        self.identifier = identifier
        self.runs = runs
    }

    /// The newest advertised runs, newest first: the run to use, then the fallbacks.
    /// - Throws: `TimeDimensionError` for a continuous or empty extent.
    public func newest(_ n: Int) throws(TimeDimensionError) -> [TimeInstant] {
        try runs.latest(n).reversed()
    }

    /// The run written the way the service writes its runs, for the request.
    public func format(_ run: TimeInstant) -> String {
        runs.format(run)
    }
}

/// What `matsite check` prints for one layer.
public struct LayerSummary: Sendable, Equatable, CustomStringConvertible {
    /// The identifier (WMTS) or name (WMS) to put in the config.
    public let identifier: String
    /// The human title.
    public let title: String?
    /// Whether the layer can be had in Web Mercator.
    public let webMercator: Bool
    /// The time extent, when the layer has a readable time dimension.
    public let time: TimeSummary?
    /// Why the time dimension could not be read, when it could not.
    public let timeProblem: String?
    /// The model runs (`reference_time`), when the layer advertises readable ones.
    public let runs: TimeSummary?
    /// Why the `reference_time` dimension could not be read, when it could not.
    public let runsProblem: String?

    /// A summary with these parts.
    public init(
        identifier: String, title: String?, webMercator: Bool, time: TimeSummary?, timeProblem: String?,
        runs: TimeSummary? = nil, runsProblem: String? = nil
    ) {
        self.identifier = identifier
        self.title = title
        self.webMercator = webMercator
        self.time = time
        self.timeProblem = timeProblem
        self.runs = runs
        self.runsProblem = runsProblem
    }

    /// The summaries of `dimensions`' time and run (`reference_time`) dimensions, or why they
    /// could not be read.
    static func dimensions(_ dimensions: [OGCDimension]) -> (time: TimeSummary?, timeProblem: String?, runs: TimeSummary?, runsProblem: String?) {
        func read(_ dimension: OGCDimension?) -> (TimeSummary?, String?) {
            guard let dimension else { return (nil, nil) }
            do throws(TimeDimensionError) {
                return (try dimension.timeDimension().summary, nil)
            } catch {
                return (nil, error.description)
            }
        }
        let time = read(dimensions.first(where: \.isTime))
        let runs = read(dimensions.first(where: \.isReferenceTime))
        return (time.0, time.1, runs.0, runs.1)
    }

    /// The form used in messages.
    public var description: String {
        var text = identifier
        if let title, title != identifier { text += " (\(title))" }
        if !webMercator { text += " [not in Web Mercator]" }
        if let time { text += ": \(time)" }
        if let timeProblem { text += ": time dimension unreadable: \(timeProblem)" }
        if let runs { text += "; runs (reference_time): \(runs)" }
        if let runsProblem { text += "; reference_time unreadable: \(runsProblem)" }
        return text
    }
}

func isWebMercatorCRS(_ crs: String) -> Bool {
    webMercatorCode(crs) != nil
}

/// The EPSG-style code when `crs` names Web Mercator (3857 and its historic aliases) in any of
/// the usual spellings: `EPSG:3857`, `urn:ogc:def:crs:EPSG::3857`, `urn:ogc:def:crs:EPSG:6.18:3:3857`,
/// `http://www.opengis.net/def/crs/EPSG/0/3857`.
func webMercatorCode(_ crs: String) -> String? {
    let upper = crs.uppercased().trimmingXMLWhitespace()
    let code = upper.split(whereSeparator: { $0 == ":" || $0 == "/" }).last.map(String.init) ?? ""
    let known = ["3857", "900913", "102100", "102113", "3785"]
    guard known.contains(code) else { return nil }
    if code == "900913" { return code }
    guard upper.contains("EPSG") || upper.contains("ESRI") else { return nil }
    return code
}
