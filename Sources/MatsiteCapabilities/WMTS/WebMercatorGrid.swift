import Foundation

/// How a WMTS tile matrix set lines up with the Web Mercator XYZ grid: zoom -> matrix.
struct WebMercatorGrid: Sendable, Equatable {
    /// Tile size in pixels.
    let tileSize: Int
    /// Matrix identifier for each zoom level the set offers.
    let matrices: [Int: String]

    /// Scale denominator of zoom 0 for 256-pixel tiles (0.28 mm pixels, WGS 84 equator).
    static let zoomZeroScale = 559_082_264.028_717_8
    /// Half the Web Mercator world width in metres.
    static let halfWorld = 20_037_508.342_789_244
    /// Relative tolerance on scale denominators (servers round them).
    static let scaleTolerance = 1e-4
    /// Tolerance on the top-left corner, in metres.
    static let cornerTolerance = 1.0

    /// The grid of `set` when it is Web Mercator, nil otherwise.
    static func match(_ set: WMTSCapabilities.TileMatrixSet) -> WebMercatorGrid? {
        try? check(set).get()
    }

    /// The grid of `set`, or why it is not Web Mercator.
    ///
    /// A set named `GoogleMapsCompatible` or `WebMercatorQuad` (by identifier or well-known scale
    /// set) is trusted on its name: only its scales are used to number zooms (some servers write
    /// a wrong corner). Any other set must be in EPSG:3857 (or an alias) and each matrix used must
    /// have a Web Mercator scale and the Web Mercator top-left corner.
    static func check(_ set: WMTSCapabilities.TileMatrixSet) -> Result<WebMercatorGrid, NotWebMercatorError> {
        let wellKnown = isWellKnownName(set.identifier) || set.wellKnownScaleSet.map(isWellKnownName) == true
        guard wellKnown || isWebMercatorCRS(set.supportedCRS) else {
            return .failure(NotWebMercatorError("its CRS is \(set.supportedCRS.isEmpty ? "not given" : set.supportedCRS)"))
        }
        var bySize: [Int: [Int: String]] = [:]
        var firstProblem: String?
        for matrix in set.matrices {
            guard matrix.tileWidth == matrix.tileHeight else {
                firstProblem = firstProblem ?? "matrix \(matrix.identifier) has non-square tiles"
                continue
            }
            let base = zoomZeroScale * 256 / Double(matrix.tileWidth)
            let zoomValue = log2(base / matrix.scaleDenominator)
            let zoom = Int(zoomValue.rounded())
            guard (0...30).contains(zoom) else {
                firstProblem = firstProblem ?? "matrix \(matrix.identifier) has scale \(matrix.scaleDenominator)"
                continue
            }
            let expected = base / Double(1 << zoom)
            guard abs(matrix.scaleDenominator - expected) / expected <= scaleTolerance else {
                firstProblem = firstProblem ?? "matrix \(matrix.identifier) has scale \(matrix.scaleDenominator), not a Web Mercator zoom level's"
                continue
            }
            if !wellKnown {
                let (x, y) = matrix.topLeftCorner
                guard abs(x + halfWorld) <= cornerTolerance, abs(y - halfWorld) <= cornerTolerance else {
                    firstProblem = firstProblem ?? "matrix \(matrix.identifier) starts at \(x) \(y), not at the Web Mercator corner"
                    continue
                }
            }
            if bySize[matrix.tileWidth, default: [:]][zoom] == nil {
                bySize[matrix.tileWidth, default: [:]][zoom] = matrix.identifier
            }
        }
        // The tile size with the most zoom levels; 256 wins a tie.
        guard
            let best = bySize.max(by: { a, b in
                a.value.count != b.value.count ? a.value.count < b.value.count : (a.key != 256 && b.key == 256)
            })
        else {
            return .failure(NotWebMercatorError(firstProblem ?? "it has no tile matrices"))
        }
        return .success(WebMercatorGrid(tileSize: best.key, matrices: best.value))
    }

    struct NotWebMercatorError: Error, Equatable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// `GoogleMapsCompatible`, `WebMercatorQuad` and their variants (`ogc:1.0:googlemapscompatible`,
    /// GIBS's `GoogleMapsCompatible_Level9`, `urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible`).
    static func isWellKnownName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.contains("googlemapscompatible") || lower.contains("webmercatorquad")
    }
}
