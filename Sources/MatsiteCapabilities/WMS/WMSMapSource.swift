/// WMS layers resolved for matsite: every tile of every frame becomes one GetMap request in
/// EPSG:3857, so WMS frames share the tile cache, retries and stitching with tile sources.
public struct WMSMapSource: Sendable, Equatable {
    /// The capabilities URL it was resolved from.
    public let capabilitiesURL: String
    /// The GetMap endpoint; its own query parameters are kept.
    public let getMapURL: String
    /// The WMS version spoken (`1.3.0` uses `CRS=`, `1.1.1` uses `SRS=`).
    public let version: String
    /// `LAYERS=` (comma-separated names).
    public let layers: String
    /// `STYLES=` (comma-separated, may be empty).
    public let styles: String
    /// `FORMAT=`.
    public let format: String
    /// The Web Mercator code sent (`EPSG:3857`, or `EPSG:900913` on old servers).
    public let crs: String
    /// The time dimension of the (first timed) layer, when there is one.
    public let time: TimeDimension?
    /// The model runs (`reference_time`) of the first layer that advertises them, if any.
    public let referenceTime: ReferenceTime?

    /// The GetMap URL of XYZ tile `x`, `y` (y down) at zoom `z`, `tileSize` pixels square, at
    /// the time value `time` (written as the service wants it, see `TimeDimension.format(_:)`;
    /// nil sends no `TIME`, so the server uses its default) of the model run `run` (written as
    /// the service writes its runs, sent as `DIM_REFERENCE_TIME`, OGC 06-042 Annex C; nil sends
    /// none, so the server answers for its default run).
    public func mapURL(z: Int, x: Int, y: Int, tileSize: Int, time: String?, run: String? = nil) -> String {
        let half = WebMercatorGrid.halfWorld
        let span = 2 * half / Double(1 << max(0, min(z, 30)))
        let minX = -half + Double(x) * span
        let maxY = half - Double(y) * span
        // x,y order in 1.3.0 too: EPSG:3857 is easting, northing.
        let bbox = [minX, maxY - span, minX + span, maxY].map(formatCoordinate).joined(separator: ",")
        let keepCommas: Set<UInt8> = [UInt8(ascii: ",")]
        var parameters: [(String, String)] = [
            ("SERVICE", "WMS"), ("REQUEST", "GetMap"), ("VERSION", version),
            ("LAYERS", percentEncode(layers, keeping: keepCommas)),
            ("STYLES", percentEncode(styles, keeping: keepCommas)),
            (usesCRSParameter ? "CRS" : "SRS", percentEncode(crs)),
            ("BBOX", bbox), ("WIDTH", String(tileSize)), ("HEIGHT", String(tileSize)),
            ("FORMAT", percentEncode(format)), ("TRANSPARENT", "TRUE"),
        ]
        if let time { parameters.append(("TIME", percentEncode(time))) }
        if let run {
            // Annex C: sample dimensions other than time and elevation take a DIM_ prefix.
            let name = "DIM_" + (referenceTime?.identifier ?? "reference_time").uppercased()
            parameters.append((name, percentEncode(run)))
        }
        return appendingQuery(getMapURL, parameters)
    }

    /// `mapURL(z:x:y:tileSize:time:)` with the instant written as the service writes its times.
    public func mapURL(z: Int, x: Int, y: Int, tileSize: Int, instant: TimeInstant) -> String {
        mapURL(z: z, x: x, y: y, tileSize: tileSize, time: time?.format(instant) ?? instant.iso8601)
    }

    /// True for 1.3.0 and later.
    public var usesCRSParameter: Bool {
        let parts = version.split(separator: ".").compactMap { Int($0) }
        return (parts.first ?? 1, parts.dropFirst().first ?? 0) >= (1, 3)
    }
}

extension WMSCapabilities {
    /// Resolves layers for matsite (config `source.wms`).
    ///
    /// - Parameters:
    ///   - layers: one name or several separated by commas.
    ///   - styles: `STYLES=` as given (empty: default styles); named styles must exist.
    ///   - format: `FORMAT=`, `image/png` by default; must be a GetMap format when the
    ///     document lists any.
    ///   - version: the version to speak; the document's by default.
    ///   - now: the instant `present` in time values stands for.
    /// - Throws: `CapabilitiesError`: unknown layer (listing some known names), a layer
    ///   without EPSG:3857/EPSG:900913, no GetMap URL, unknown style or format, unreadable time.
    public func mapSource(
        layers names: String, styles: String = "", format: String? = nil, version: String? = nil,
        now: TimeInstant = .now()
    ) throws(CapabilitiesError) -> WMSMapSource {
        func fail(_ reason: CapabilitiesError.Reason) -> CapabilitiesError {
            CapabilitiesError(url: url, reason: reason)
        }
        let requested = names.split(separator: ",").map { String($0).trimmingXMLWhitespace() }.filter { !$0.isEmpty }
        guard !requested.isEmpty else { throw fail(.unknownLayer(names, known: layerNames)) }
        var resolved: [Layer] = []
        for name in requested {
            guard let layer = layer(named: name), layer.name != nil else {
                throw fail(.unknownLayer(name, known: layerNames))
            }
            resolved.append(layer)
        }
        var crsChoice: String?
        for layer in resolved {
            guard let code = layer.webMercatorCRS else {
                throw fail(.noWebMercatorCRS(layer: layer.name ?? "", crs: layer.crs))
            }
            if crsChoice == nil { crsChoice = code }
        }
        // Every layer must accept the code we send.
        var crs = crsChoice ?? "EPSG:3857"
        if !resolved.allSatisfy({ $0.crs.contains(crs) }) {
            if let common = ["EPSG:3857", "EPSG:900913"].first(where: { code in resolved.allSatisfy { $0.crs.contains(code) } }) {
                crs = common
            }
        }
        let styleNames = styles.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0).trimmingXMLWhitespace()
        }
        for (index, style) in styleNames.enumerated() where !style.isEmpty && index < resolved.count {
            let layer = resolved[index]
            if !layer.styles.isEmpty && !layer.styles.contains(where: { $0.name == style }) {
                throw fail(.unknownStyle(layer: layer.name ?? "", style: style, known: layer.styles.map(\.name)))
            }
        }
        let chosenFormat = format ?? "image/png"
        if !formats.isEmpty && !formats.contains(where: { $0.lowercased() == chosenFormat.lowercased() }) {
            throw fail(.unknownFormat(layer: requested.joined(separator: ","), format: chosenFormat, known: formats))
        }
        guard let getMapURL else {
            throw fail(.noRequestURL(layer: requested.joined(separator: ","), detail: "the document has no GetMap HTTP Get URL"))
        }
        var time: TimeDimension?
        for layer in resolved {
            guard let dimension = layer.timeDimension else { continue }
            do throws(TimeDimensionError) {
                time = try dimension.timeDimension(now: now)
            } catch {
                throw fail(.time(layer: layer.name ?? "", error))
            }
            break
        }
        var referenceTime: ReferenceTime?
        if let layer = resolved.first(where: { $0.referenceTimeDimension != nil }),
            let dimension = layer.referenceTimeDimension
        {
            do throws(TimeDimensionError) {
                referenceTime = try ReferenceTime(dimension, now: now)
            } catch {
                throw fail(.referenceTime(layer: layer.name ?? "", error))
            }
        }
        return WMSMapSource(
            capabilitiesURL: url, getMapURL: getMapURL, version: version ?? self.version,
            layers: resolved.compactMap(\.name).joined(separator: ","), styles: styles,
            format: chosenFormat, crs: crs, time: time, referenceTime: referenceTime)
    }
}
