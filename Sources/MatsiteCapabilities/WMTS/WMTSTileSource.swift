/// A WMTS layer resolved for matsite: style, format and a Web Mercator tile matrix set chosen,
/// and a way to write the URL of any XYZ tile at any advertised time.
public struct WMTSTileSource: Sendable, Equatable {
    /// The capabilities URL it was resolved from.
    public let capabilitiesURL: String
    /// The layer identifier.
    public let layer: String
    /// The style identifier used.
    public let style: String
    /// The format (MIME type) used.
    public let format: String
    /// The tile matrix set identifier used.
    public let tileMatrixSet: String
    /// Tile size in pixels (256 for most services; 512 exists).
    public let tileSize: Int
    /// The matrix identifier of each zoom level offered.
    public let matrixIdentifiers: [Int: String]
    /// The lowest zoom level offered.
    public let minZoom: Int
    /// The deepest zoom level offered: the source's `max_zoom`.
    public let maxZoom: Int
    /// The layer's time dimension, when it has one.
    public let time: TimeDimension?
    /// Values used for non-time dimensions (their defaults), by identifier; the model-run
    /// dimension's default too, which a request naming its run replaces.
    public let otherDimensions: [String: String]
    /// The model runs (`reference_time`), when the layer advertises them.
    public let referenceTime: ReferenceTime?
    /// How tiles are requested.
    public let request: Request

    /// A ResourceURL template (RESTful) or the KVP GetTile endpoint.
    public enum Request: Sendable, Equatable {
        /// `{TileMatrix}`-style placeholders filled per tile.
        case template(String)
        /// `SERVICE=WMTS&REQUEST=GetTile&...` appended to this URL.
        case kvp(String)
    }

    /// The URL of tile `x`, `y` (XYZ, y down) at zoom `z`, for the time value `time` (already
    /// written the way the service wants it: see `TimeDimension.format(_:)`). Without a time,
    /// a `{Time}` placeholder gets the advertised default and KVP requests carry no `TIME`.
    /// `run` names the model run (written as the service writes its runs) in the run
    /// dimension's placeholder or KVP parameter (`REFERENCE_TIME=`); nil keeps its default.
    /// Nil when the set has no matrix for `z`.
    public func tileURL(z: Int, x: Int, y: Int, time: String?, run: String? = nil) -> String? {
        guard let matrix = matrixIdentifiers[z] else { return nil }
        var otherDimensions = otherDimensions
        if let run {
            otherDimensions[referenceTime?.identifier ?? "reference_time"] = run
        }
        switch request {
        case let .template(template):
            return fill(template) { name in
                switch name {
                case "tilematrixset": return tileMatrixSet
                case "tilematrix": return matrix
                case "tilerow": return String(y)
                case "tilecol": return String(x)
                case "style": return style
                case "time": return time ?? self.time?.defaultValue ?? "current"
                default:
                    return otherDimensions.first { $0.key.lowercased() == name }?.value
                }
            }
        case let .kvp(base):
            var parameters: [(String, String)] = [
                ("SERVICE", "WMTS"), ("REQUEST", "GetTile"), ("VERSION", "1.0.0"),
                ("LAYER", percentEncode(layer)), ("STYLE", percentEncode(style)),
                ("FORMAT", percentEncode(format)), ("TILEMATRIXSET", percentEncode(tileMatrixSet)),
                ("TILEMATRIX", percentEncode(matrix)), ("TILEROW", String(y)), ("TILECOL", String(x)),
            ]
            if let time { parameters.append(("TIME", percentEncode(time))) }
            for (name, value) in otherDimensions.sorted(by: { $0.key < $1.key }) {
                parameters.append((name.uppercased(), percentEncode(value)))
            }
            return appendingQuery(base, parameters)
        }
    }

    /// `tileURL(z:x:y:time:)` with the instant written as the service writes its times.
    public func tileURL(z: Int, x: Int, y: Int, instant: TimeInstant) -> String? {
        tileURL(z: z, x: x, y: y, time: time?.format(instant) ?? instant.iso8601)
    }
}

extension WMTSCapabilities {
    /// Resolves a layer for matsite (config `source.wmts`).
    ///
    /// - Parameters:
    ///   - layer: the layer identifier.
    ///   - style: a style identifier; the default style when nil.
    ///   - format: a MIME type; `image/png` (or the first PNG, or the first format) when nil.
    ///   - tileMatrixSet: a set identifier; when nil, the best Web Mercator set linked to the
    ///     layer (a well-known GoogleMapsCompatible/WebMercatorQuad first, then the deepest).
    ///   - now: the instant `present`/`now` in time values stands for.
    /// - Throws: `CapabilitiesError` naming the URL: unknown layer (with known ones), style,
    ///   format or set; no Web Mercator set (with the sets the layer has); no request URL; a
    ///   time dimension that cannot be read.
    public func tileSource(
        layer identifier: String, style: String? = nil, format: String? = nil,
        tileMatrixSet setIdentifier: String? = nil, now: TimeInstant = .now()
    ) throws(CapabilitiesError) -> WMTSTileSource {
        func fail(_ reason: CapabilitiesError.Reason) -> CapabilitiesError {
            CapabilitiesError(url: url, reason: reason)
        }
        guard let layer = layer(identifier) else {
            throw fail(.unknownLayer(identifier, known: layers.map(\.identifier)))
        }
        let name = layer.identifier

        let chosenStyle: String
        if let style {
            guard
                let match = layer.styles.first(where: { $0.identifier == style })
                    ?? layer.styles.first(where: { $0.identifier.lowercased() == style.lowercased() })
                    ?? (layer.styles.isEmpty ? Style(identifier: style, title: nil, isDefault: true) : nil)
            else { throw fail(.unknownStyle(layer: name, style: style, known: layer.styles.map(\.identifier))) }
            chosenStyle = match.identifier
        } else {
            chosenStyle = layer.defaultStyle?.identifier ?? "default"
        }

        let tileResources = layer.resourceURLs.filter { $0.resourceType.lowercased() == "tile" }
        var offered = layer.formats
        for resource in tileResources where !offered.contains(resource.format) { offered.append(resource.format) }
        let chosenFormat: String
        if let format {
            guard
                let match = offered.first(where: { $0 == format })
                    ?? offered.first(where: { $0.lowercased() == format.lowercased() })
                    ?? (offered.isEmpty ? format : nil)
            else { throw fail(.unknownFormat(layer: name, format: format, known: offered)) }
            chosenFormat = match
        } else {
            chosenFormat =
                offered.first { $0.lowercased() == "image/png" }
                ?? offered.first { $0.lowercased().contains("png") }
                ?? offered.first ?? "image/png"
        }

        let (setID, grid) = try chooseSet(layer: layer, requested: setIdentifier)

        let request: WMTSTileSource.Request
        if let resource = tileResources.first(where: { $0.format == chosenFormat })
            ?? (tileResources.count == 1 && tileResources[0].format.isEmpty ? tileResources[0] : nil)
        {
            request = .template(resource.template)
        } else if let kvp = getTileKVPURL {
            request = .kvp(kvp)
        } else {
            let detail =
                tileResources.isEmpty
                ? "the layer has no ResourceURL of type tile and the service has no KVP GetTile"
                : "no ResourceURL of type tile for format \(chosenFormat) (there are: \(tileResources.map(\.format).joined(separator: ", "))) and no KVP GetTile"
            throw fail(.noRequestURL(layer: name, detail: detail))
        }

        var time: TimeDimension?
        var referenceTime: ReferenceTime?
        var others: [String: String] = [:]
        for dimension in layer.dimensions {
            if dimension.isTime {
                do throws(TimeDimensionError) {
                    time = try dimension.timeDimension(now: now)
                } catch {
                    throw fail(.time(layer: name, error))
                }
                continue
            }
            if dimension.isReferenceTime {
                let runs: ReferenceTime
                do throws(TimeDimensionError) {
                    runs = try ReferenceTime(dimension, now: now)
                } catch {
                    throw fail(.referenceTime(layer: name, error))
                }
                referenceTime = runs
                // Without a default, the newest run rather than an interval as written.
                if let value = dimension.defaultValue ?? runs.runs.last.map(runs.format) {
                    others[dimension.identifier] = value
                }
            } else if let value = dimension.defaultValue ?? dimension.values.first {
                others[dimension.identifier] = value
            }
        }

        if case let .template(template) = request {
            let known = Set(["tilematrixset", "tilematrix", "tilerow", "tilecol", "style"])
                .union(layer.dimensions.map { $0.identifier.lowercased() })
            let unknown = placeholders(in: template).filter { !known.contains($0) }
            if !unknown.isEmpty {
                throw fail(
                    .noRequestURL(
                        layer: name,
                        detail:
                            "the ResourceURL template \(template) has placeholders that match nothing the layer advertises: \(unknown.map { "{\($0)}" }.joined(separator: ", "))"
                    ))
            }
        }

        let zooms = grid.matrices.keys
        return WMTSTileSource(
            capabilitiesURL: url, layer: name, style: chosenStyle, format: chosenFormat,
            tileMatrixSet: setID, tileSize: grid.tileSize, matrixIdentifiers: grid.matrices,
            minZoom: zooms.min() ?? 0, maxZoom: zooms.max() ?? 0, time: time,
            otherDimensions: others, referenceTime: referenceTime, request: request)
    }

    private func chooseSet(layer: Layer, requested: String?) throws(CapabilitiesError) -> (String, WebMercatorGrid) {
        let links = layer.tileMatrixSetLinks
        if let requested {
            guard
                let link = links.first(where: { $0 == requested })
                    ?? links.first(where: { $0.lowercased() == requested.lowercased() })
            else {
                throw CapabilitiesError(
                    url: url,
                    reason: .unknownTileMatrixSet(
                        layer: layer.identifier, set: requested, known: links))
            }
            guard let set = tileMatrixSet(link) else {
                throw CapabilitiesError(
                    url: url,
                    reason: .tileMatrixSetNotWebMercator(
                        layer: layer.identifier, set: link, why: "the document does not define it"))
            }
            switch WebMercatorGrid.check(set) {
            case let .success(grid): return (set.identifier, grid)
            case let .failure(why):
                throw CapabilitiesError(
                    url: url,
                    reason: .tileMatrixSetNotWebMercator(
                        layer: layer.identifier, set: link, why: why.text))
            }
        }
        var candidates: [(set: TileMatrixSet, grid: WebMercatorGrid)] = []
        for link in links {
            guard let set = tileMatrixSet(link), let grid = WebMercatorGrid.match(set) else { continue }
            candidates.append((set, grid))
        }
        func rank(_ candidate: (set: TileMatrixSet, grid: WebMercatorGrid)) -> (Int, Int, Int) {
            let named = WebMercatorGrid.isWellKnownName(candidate.set.identifier) ? 1 : 0
            return (named, candidate.grid.tileSize == 256 ? 1 : 0, candidate.grid.matrices.keys.max() ?? 0)
        }
        guard let best = candidates.max(by: { rank($0) < rank($1) }) else {
            throw CapabilitiesError(url: url, reason: .noWebMercatorSet(layer: layer.identifier, sets: links))
        }
        return (best.set.identifier, best.grid)
    }
}

/// Replaces `{name}` placeholders (name compared lowercased); unknown ones stay as written.
func fill(_ template: String, value: (String) -> String?) -> String {
    var result = ""
    var rest = Substring(template)
    while let open = rest.firstIndex(of: "{") {
        result += rest[..<open]
        guard let close = rest[open...].firstIndex(of: "}") else {
            result += rest[open...]
            return result
        }
        let name = String(rest[rest.index(after: open)..<close])
        if let replacement = value(name.lowercased()) {
            result += percentEncode(replacement)
        } else {
            result += rest[open...close]
        }
        rest = rest[rest.index(after: close)...]
    }
    result += rest
    return result
}

/// The lowercased placeholder names of a template.
func placeholders(in template: String) -> [String] {
    var names: [String] = []
    var rest = Substring(template)
    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
        names.append(String(rest[rest.index(after: open)..<close]).lowercased())
        rest = rest[rest.index(after: close)...]
    }
    return names
}
