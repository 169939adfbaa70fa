/// A WMTS 1.0.0 capabilities document: layers, tile matrix sets and the GetTile endpoint.
public struct WMTSCapabilities: Sendable, Equatable {
    /// The URL the document was fetched from (relative ResourceURLs resolve against it).
    public let url: String
    /// The `version` attribute.
    public let version: String
    /// `ows:ServiceIdentification/ows:Title`.
    public let title: String?
    /// The layers in document order.
    public let layers: [Layer]
    /// The tile matrix sets in document order.
    public let tileMatrixSets: [TileMatrixSet]
    /// The KVP GetTile endpoint (`OperationsMetadata`), absolute, when the service offers one.
    public let getTileKVPURL: String?

    /// A layer (`Contents/Layer`).
    public struct Layer: Sendable, Equatable {
        /// `ows:Identifier`, what the config's `layer:` names.
        public let identifier: String
        /// `ows:Title`.
        public let title: String?
        /// The styles; one of them is usually `isDefault`.
        public let styles: [Style]
        /// `Format` elements (MIME types).
        public let formats: [String]
        /// `ResourceURL` elements (all resource types).
        public let resourceURLs: [ResourceURL]
        /// `Dimension` elements, including Time.
        public let dimensions: [OGCDimension]
        /// Identifiers of the linked tile matrix sets (`TileMatrixSetLink/TileMatrixSet`).
        public let tileMatrixSetLinks: [String]

        /// The style marked `isDefault`, else the first.
        public var defaultStyle: Style? {
            styles.first(where: \.isDefault) ?? styles.first
        }

        /// The Time dimension, if any.
        public var timeDimension: OGCDimension? {
            dimensions.first(where: \.isTime)
        }

        /// The model-run dimension (`reference_time`), if any.
        public var referenceTimeDimension: OGCDimension? {
            dimensions.first(where: \.isReferenceTime)
        }
    }

    /// A layer style.
    public struct Style: Sendable, Equatable {
        /// `ows:Identifier`.
        public let identifier: String
        /// `ows:Title`.
        public let title: String?
        /// `isDefault="true"`.
        public let isDefault: Bool
    }

    /// A `ResourceURL` template.
    public struct ResourceURL: Sendable, Equatable {
        /// The MIME type it returns.
        public let format: String
        /// `tile` or `FeatureInfo`.
        public let resourceType: String
        /// The template, resolved against the capabilities URL.
        public let template: String
    }

    /// A `TileMatrixSet` definition.
    public struct TileMatrixSet: Sendable, Equatable {
        /// `ows:Identifier`.
        public let identifier: String
        /// `ows:SupportedCRS` as written.
        public let supportedCRS: String
        /// `WellKnownScaleSet`, if given.
        public let wellKnownScaleSet: String?
        /// The matrices, in document order.
        public let matrices: [TileMatrix]
    }

    /// A `TileMatrix` of a set.
    public struct TileMatrix: Sendable, Equatable {
        /// `ows:Identifier` (not necessarily a number).
        public let identifier: String
        /// `ScaleDenominator`.
        public let scaleDenominator: Double
        /// `TopLeftCorner`, in the set's CRS axis order.
        public let topLeftCorner: (Double, Double)
        /// `TileWidth` in pixels.
        public let tileWidth: Int
        /// `TileHeight` in pixels.
        public let tileHeight: Int
        /// `MatrixWidth` in tiles.
        public let matrixWidth: Int
        /// `MatrixHeight` in tiles.
        public let matrixHeight: Int

        /// Equal when every field is equal.
        public static func == (lhs: TileMatrix, rhs: TileMatrix) -> Bool {
            lhs.identifier == rhs.identifier && lhs.scaleDenominator == rhs.scaleDenominator
                && lhs.topLeftCorner == rhs.topLeftCorner && lhs.tileWidth == rhs.tileWidth
                && lhs.tileHeight == rhs.tileHeight && lhs.matrixWidth == rhs.matrixWidth
                && lhs.matrixHeight == rhs.matrixHeight
        }
    }

    /// Parses a WMTS capabilities document fetched from `url`.
    /// - Throws: `CapabilitiesError` for unsafe, malformed or foreign documents (an HTML page,
    ///   a WMS document, a service exception: its message is given).
    public static func parse(_ data: [UInt8], url: String, limits: XMLLimits = .default) throws(CapabilitiesError) -> WMTSCapabilities {
        // A WMS-style exception report may come with its DOCTYPE; it is never fetched.
        let root = try capabilitiesRoot(data, url: url, limits: limits, externalDTDAllowedFor: ["ServiceExceptionReport"])
        guard root.is("Capabilities", in: .wmts) else {
            throw CapabilitiesError(
                url: url,
                reason: .wrongDocument(
                    expected: "a WMTS 1.0.0 Capabilities document", found: describeRoot(root)))
        }
        let title = root.child("ServiceIdentification", in: .ows)?.childText("Title", in: .ows)
        let contents = root.child("Contents", in: .wmts)
        let layers = contents?.children("Layer", in: .wmts).compactMap { parseLayer($0, baseURL: url) } ?? []
        let sets = contents?.children("TileMatrixSet", in: .wmts).compactMap(parseTileMatrixSet) ?? []
        return WMTSCapabilities(
            url: url, version: root.attribute("version") ?? "1.0.0", title: title,
            layers: layers, tileMatrixSets: sets, getTileKVPURL: getTileURL(root, baseURL: url))
    }

    /// The layer with this identifier (exact match first, then case-insensitive).
    public func layer(_ identifier: String) -> Layer? {
        layers.first { $0.identifier == identifier }
            ?? layers.first { $0.identifier.lowercased() == identifier.lowercased() }
    }

    /// The tile matrix set with this identifier.
    public func tileMatrixSet(_ identifier: String) -> TileMatrixSet? {
        tileMatrixSets.first { $0.identifier == identifier }
            ?? tileMatrixSets.first { $0.identifier.lowercased() == identifier.lowercased() }
    }

    /// One line per layer for `matsite check`: identifier, title, Web Mercator or not, time extent.
    public var summary: [LayerSummary] {
        layers.map { layer in
            let read = LayerSummary.dimensions(layer.dimensions)
            let webMercator = layer.tileMatrixSetLinks.contains { link in
                tileMatrixSet(link).map { WebMercatorGrid.match($0) != nil } ?? false
            }
            return LayerSummary(
                identifier: layer.identifier, title: layer.title, webMercator: webMercator,
                time: read.time, timeProblem: read.timeProblem, runs: read.runs,
                runsProblem: read.runsProblem)
        }
    }
}

private extension WMTSCapabilities {
    static func parseLayer(_ node: LibXMLElement, baseURL: String) -> Layer? {
        guard let identifier = node.childText("Identifier", in: .ows) else { return nil }
        let styles = node.children("Style", in: .wmts).compactMap { style -> Style? in
            guard let id = style.childText("Identifier", in: .ows) else { return nil }
            return Style(
                identifier: id, title: style.childText("Title", in: .ows),
                isDefault: style.attribute("isDefault")?.lowercased() == "true")
        }
        let formats = node.children("Format", in: .wmts).map(\.text).filter { !$0.isEmpty }
        let resources = node.children("ResourceURL", in: .wmts).compactMap { resource -> ResourceURL? in
            guard let template = resource.attribute("template"), !template.isEmpty else { return nil }
            return ResourceURL(
                format: resource.attribute("format") ?? "",
                resourceType: resource.attribute("resourceType") ?? "tile",
                template: resolveURL(template, against: baseURL))
        }
        let dimensions = node.children("Dimension", in: .wmts).compactMap { dimension -> OGCDimension? in
            guard let id = dimension.childText("Identifier", in: .ows) else { return nil }
            let current = dimension.childText("Current", in: .wmts)?.lowercased()
            return OGCDimension(
                identifier: id,
                units: dimension.childText("UOM", in: .ows) ?? dimension.childText("UnitSymbol", in: .wmts),
                defaultValue: dimension.childText("Default", in: .wmts),
                current: current == "true" || current == "1",
                values: dimension.children("Value", in: .wmts).map(\.text).filter { !$0.isEmpty })
        }
        let links = node.children("TileMatrixSetLink", in: .wmts).flatMap {
            $0.children("TileMatrixSet", in: .wmts).map(\.text)
        }.filter { !$0.isEmpty }
        return Layer(
            identifier: identifier, title: node.childText("Title", in: .ows), styles: styles,
            formats: formats, resourceURLs: resources, dimensions: dimensions,
            tileMatrixSetLinks: links)
    }

    static func parseTileMatrixSet(_ node: LibXMLElement) -> TileMatrixSet? {
        guard let identifier = node.childText("Identifier", in: .ows) else { return nil }
        let matrices = node.children("TileMatrix", in: .wmts).compactMap { matrix -> TileMatrix? in
            guard let id = matrix.childText("Identifier", in: .ows),
                let scale = matrix.childText("ScaleDenominator", in: .wmts).flatMap(Double.init),
                scale > 0, scale.isFinite,
                let corner = matrix.childText("TopLeftCorner", in: .wmts).flatMap(parsePair)
            else { return nil }
            func integer(_ name: String) -> Int? {
                matrix.childText(name, in: .wmts).flatMap { Int($0) }
            }
            guard let tileWidth = integer("TileWidth"), let tileHeight = integer("TileHeight"),
                tileWidth > 0, tileHeight > 0
            else { return nil }
            return TileMatrix(
                identifier: id, scaleDenominator: scale, topLeftCorner: corner,
                tileWidth: tileWidth, tileHeight: tileHeight,
                matrixWidth: integer("MatrixWidth") ?? 0, matrixHeight: integer("MatrixHeight") ?? 0)
        }
        return TileMatrixSet(
            identifier: identifier,
            supportedCRS: node.childText("SupportedCRS", in: .ows) ?? "",
            wellKnownScaleSet: node.childText("WellKnownScaleSet", in: .wmts),
            matrices: matrices)
    }

    static func parsePair(_ text: String) -> (Double, Double)? {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "," })
            .compactMap { Double($0) }
        guard numbers.count == 2, numbers[0].isFinite, numbers[1].isFinite else { return nil }
        return (numbers[0], numbers[1])
    }

    /// The GetTile Get href whose GetEncoding allows KVP (or says nothing).
    static func getTileURL(_ root: LibXMLElement, baseURL: String) -> String? {
        guard let operations = root.child("OperationsMetadata", in: .ows) else { return nil }
        for operation in operations.children("Operation", in: .ows) where operation.attribute("name") == "GetTile" {
            for dcp in operation.children("DCP", in: .ows) {
                for http in dcp.children("HTTP", in: .ows) {
                    for get in http.children("Get", in: .ows) {
                        guard let href = get.attribute("href", namespace: XMLNamespaces.xlink), !href.isEmpty else { continue }
                        let encodings = get.children("Constraint", in: .ows)
                            .filter { $0.attribute("name")?.lowercased() == "getencoding" }
                            .flatMap { constraint in
                                constraint.children("AllowedValues", in: .ows).flatMap { $0.children("Value", in: .ows) }
                                    .map { $0.text.lowercased() }
                            }
                        if encodings.isEmpty || encodings.contains("kvp") {
                            return resolveURL(href, against: baseURL)
                        }
                    }
                }
            }
        }
        return nil
    }
}
