/// A WMS 1.1.1 or 1.3.0 capabilities document: the GetMap endpoint and formats, and the
/// layers with what they inherit from their parents (CRS, styles, dimensions).
public struct WMSCapabilities: Sendable, Equatable {
    /// The URL the document was fetched from.
    public let url: String
    /// `1.1.1` or `1.3.0` (the root's `version`).
    public let version: String
    /// `Service/Title`.
    public let title: String?
    /// The GetMap HTTP Get endpoint (absolute), when advertised.
    public let getMapURL: String?
    /// GetMap formats (MIME types).
    public let formats: [String]
    /// Every layer in document order, nested ones included, with inherited values applied.
    public let layers: [Layer]

    /// A layer with its effective (own plus inherited) properties.
    public struct Layer: Sendable, Equatable {
        /// `Name`; nil for a category layer that cannot be requested.
        public let name: String?
        /// `Title`.
        public let title: String?
        /// CRS (1.3.0) or SRS (1.1.1) codes, own and inherited.
        public let crs: [String]
        /// Styles, own and inherited.
        public let styles: [Style]
        /// Dimensions, own and inherited (a child's replaces its parent's of the same name);
        /// 1.1.1 `Extent` values are merged into their `Dimension`.
        public let dimensions: [OGCDimension]
        /// How deep it is nested (0 for the top layer).
        public let depth: Int
        /// The name of the nearest named ancestor.
        public let parentName: String?

        /// The time dimension, if any.
        public var timeDimension: OGCDimension? {
            dimensions.first(where: \.isTime)
        }

        /// The model-run dimension (`reference_time`), if any.
        public var referenceTimeDimension: OGCDimension? {
            dimensions.first(where: \.isReferenceTime)
        }

        /// The Web Mercator code this layer is offered in (`EPSG:3857` first), if any.
        public var webMercatorCRS: String? {
            let codes = crs.map { $0.trimmingXMLWhitespace() }
            for preferred in ["3857", "900913", "102100", "102113", "3785"] {
                if let match = codes.first(where: { webMercatorCode($0) == preferred }) { return match }
            }
            return nil
        }
    }

    /// A style (`Style/Name`, `Style/Title`).
    public struct Style: Sendable, Equatable {
        /// `Name`, what `STYLES=` takes.
        public let name: String
        /// `Title`.
        public let title: String?
    }

    /// Parses a WMS capabilities document (1.1.1 `WMT_MS_Capabilities` or 1.3.0
    /// `WMS_Capabilities`) fetched from `url`.
    public static func parse(_ data: [UInt8], url: String, limits: XMLLimits = .default) throws(CapabilitiesError) -> WMSCapabilities {
        // WMS 1.1.1 documents must carry a DOCTYPE naming the OGC DTD; it is never fetched.
        let root = try capabilitiesRoot(
            data, url: url, limits: limits,
            externalDTDAllowedFor: ["WMT_MS_Capabilities", "ServiceExceptionReport"])
        guard root.is("WMS_Capabilities", in: .wms) || root.is("WMT_MS_Capabilities", in: .wms) else {
            throw CapabilitiesError(
                url: url,
                reason: .wrongDocument(
                    expected: "a WMS 1.1.1 or 1.3.0 capabilities document", found: describeRoot(root)))
        }
        let version = root.attribute("version") ?? (root.localName == "WMS_Capabilities" ? "1.3.0" : "1.1.1")
        let title = root.child("Service", in: .wms)?.childText("Title", in: .wms)
        let capability = root.child("Capability", in: .wms)
        let getMap = capability?.child("Request", in: .wms)?.child("GetMap", in: .wms)
        let formats = getMap?.children("Format", in: .wms).map(\.text).filter { !$0.isEmpty } ?? []
        var getMapURL: String?
        if let getMap {
            outer: for dcp in getMap.children("DCPType", in: .wms) {
                for http in dcp.children("HTTP", in: .wms) {
                    for get in http.children("Get", in: .wms) {
                        if let href = get.child("OnlineResource", in: .wms)?.attribute("href", namespace: XMLNamespaces.xlink),
                            !href.trimmingXMLWhitespace().isEmpty
                        {
                            getMapURL = resolveURL(href, against: url)
                            break outer
                        }
                    }
                }
            }
        }
        var layers: [Layer] = []
        for top in capability?.children("Layer", in: .wms) ?? [] {
            collectLayers(top, inherited: Inherited(), into: &layers)
        }
        return WMSCapabilities(
            url: url, version: version, title: title, getMapURL: getMapURL,
            formats: formats, layers: layers)
    }

    /// The layer named `name` (exact match first, then case-insensitive).
    public func layer(named name: String) -> Layer? {
        layers.first { $0.name == name } ?? layers.first { $0.name?.lowercased() == name.lowercased() }
    }

    /// The names of the layers that can be requested.
    public var layerNames: [String] {
        layers.compactMap(\.name)
    }

    /// One line per named layer for `matsite check`.
    public var summary: [LayerSummary] {
        layers.compactMap { layer in
            guard let name = layer.name else { return nil }
            let read = LayerSummary.dimensions(layer.dimensions)
            return LayerSummary(
                identifier: name, title: layer.title, webMercator: layer.webMercatorCRS != nil,
                time: read.time, timeProblem: read.timeProblem, runs: read.runs,
                runsProblem: read.runsProblem)
        }
    }
}

private struct Inherited {
    var crs: [String] = []
    var styles: [WMSCapabilities.Style] = []
    var dimensions: [OGCDimension] = []
    var depth = 0
    var parentName: String?
}

private extension WMSCapabilities {
    static func collectLayers(_ node: LibXMLElement, inherited: Inherited, into layers: inout [Layer]) {
        let name = node.childText("Name", in: .wms)
        var crs = inherited.crs
        for element in node.children("CRS", in: .wms) + node.children("SRS", in: .wms) {
            // 1.1.1 allows several codes separated by spaces in one SRS element.
            for code in element.text.split(separator: " ").map(String.init) where !crs.contains(code) {
                crs.append(code)
            }
        }
        var styles = inherited.styles
        for style in node.children("Style", in: .wms) {
            guard let styleName = style.childText("Name", in: .wms) else { continue }
            styles.removeAll { $0.name == styleName }
            styles.append(Style(name: styleName, title: style.childText("Title", in: .wms)))
        }
        var dimensions = inherited.dimensions
        let extents = node.children("Extent", in: .wms)
        for element in node.children("Dimension", in: .wms) {
            guard let dimensionName = element.attribute("name"), !dimensionName.isEmpty else { continue }
            let key = dimensionName.lowercased()
            let extent = extents.first { $0.attribute("name")?.lowercased() == key }
            let ownText = element.text
            let valueText = ownText.isEmpty ? (extent?.text ?? "") : ownText
            let inheritedValues = dimensions.first { $0.identifier.lowercased() == key }?.values ?? []
            let dimension = OGCDimension(
                identifier: dimensionName, units: element.attribute("units"),
                defaultValue: element.attribute("default") ?? extent?.attribute("default"),
                current: isTrue(element.attribute("current") ?? extent?.attribute("current")),
                values: valueText.isEmpty ? inheritedValues : [valueText])
            dimensions.removeAll { $0.identifier.lowercased() == key }
            dimensions.append(dimension)
        }
        // 1.1.1: an Extent in a child for a Dimension declared by an ancestor.
        for extent in extents {
            guard let extentName = extent.attribute("name")?.lowercased(),
                !node.children("Dimension", in: .wms).contains(where: { $0.attribute("name")?.lowercased() == extentName }),
                let index = dimensions.firstIndex(where: { $0.identifier.lowercased() == extentName })
            else { continue }
            let declared = dimensions[index]
            dimensions[index] = OGCDimension(
                identifier: declared.identifier, units: declared.units,
                defaultValue: extent.attribute("default") ?? declared.defaultValue,
                current: isTrue(extent.attribute("current")) || declared.current,
                values: extent.text.isEmpty ? declared.values : [extent.text])
        }
        let layer = Layer(
            name: name, title: node.childText("Title", in: .wms), crs: crs, styles: styles,
            dimensions: dimensions, depth: inherited.depth, parentName: inherited.parentName)
        layers.append(layer)
        let next = Inherited(
            crs: crs, styles: styles, dimensions: dimensions, depth: inherited.depth + 1,
            parentName: name ?? inherited.parentName)
        for child in node.children("Layer", in: .wms) {
            collectLayers(child, inherited: next, into: &layers)
        }
    }

    static func isTrue(_ value: String?) -> Bool {
        guard let value = value?.lowercased() else { return false }
        return value == "1" || value == "true"
    }
}
