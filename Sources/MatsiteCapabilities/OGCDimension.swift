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

    /// Interprets the values as ISO 8601 times.
    public func timeDimension(now: TimeInstant = .now()) throws(TimeDimensionError) -> TimeDimension {
        try TimeDimension.parse(values: values, default: defaultValue, current: current, now: now)
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

    /// The form used in messages.
    public var description: String {
        var text = identifier
        if let title, title != identifier { text += " (\(title))" }
        if !webMercator { text += " [not in Web Mercator]" }
        if let time { text += ": \(time)" }
        if let timeProblem { text += ": time dimension unreadable: \(timeProblem)" }
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
