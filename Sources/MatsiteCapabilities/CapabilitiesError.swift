/// Why a capabilities document (or a choice made from one) was refused. Its description
/// names the URL and says what is wrong, e.g.
/// `capabilities at https://x/wmts.xml: layer "foo" has no tile matrix set in Web Mercator (it has: EPSG:4326, UTM32)`.
public struct CapabilitiesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL the document came from.
    public let url: String
    /// What is wrong.
    public let reason: Reason

    /// An error for the document at `url`.
    public init(url: String, reason: Reason) {
        self.url = url
        self.reason = reason
    }

    /// What is wrong, with the details a user needs to fix it.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// The body is empty.
        case empty
        /// The body is larger than the configured cap.
        case tooLarge(bytes: Int, limit: Int)
        /// The body is an HTML page (often a login page or a server error page).
        case html
        /// The document declares entities, which are refused (entity expansion attacks, XXE).
        case entityDeclared
        /// The DOCTYPE names an external DTD, which is refused (it is never fetched).
        case externalDTD(systemID: String)
        /// Not well-formed XML.
        case malformed(line: Int, column: Int, message: String, truncated: Bool)
        /// libxml2 could not set up a parser (out of memory).
        case parserUnavailable
        /// Well-formed XML, but not the expected kind of document.
        case wrongDocument(expected: String, found: String)
        /// The server answered with an OGC service exception.
        case serviceException(String)
        /// A required element is missing or unusable.
        case missing(String)
        /// No layer has this identifier/name; lists some that exist.
        case unknownLayer(String, known: [String])
        /// The layer has no style with this identifier.
        case unknownStyle(layer: String, style: String, known: [String])
        /// The layer is not offered in this format.
        case unknownFormat(layer: String, format: String, known: [String])
        /// The layer is not linked to this tile matrix set.
        case unknownTileMatrixSet(layer: String, set: String, known: [String])
        /// The tile matrix set is not Web Mercator (or not usable as such), with why.
        case tileMatrixSetNotWebMercator(layer: String, set: String, why: String)
        /// None of the layer's tile matrix sets is Web Mercator.
        case noWebMercatorSet(layer: String, sets: [String])
        /// A WMS layer without EPSG:3857 or EPSG:900913.
        case noWebMercatorCRS(layer: String, crs: [String])
        /// Neither a ResourceURL template nor a KVP GetTile/GetMap URL.
        case noRequestURL(layer: String, detail: String)
        /// The layer has no time dimension but times were asked for.
        case noTimeDimension(layer: String)
        /// The layer's time dimension cannot be read or cannot give what was asked.
        case time(layer: String, TimeDimensionError)
        /// The layer's model-run dimension (`reference_time`) cannot be read.
        case referenceTime(layer: String, TimeDimensionError)

        /// The form used in messages.
        public var description: String {
            switch self {
            case .empty:
                return "the response is empty"
            case let .tooLarge(bytes, limit):
                return "the document is \(bytes) bytes, more than the limit of \(limit) bytes"
            case .html:
                return "the response is an HTML page, not a capabilities document (check the URL; is it a login or error page?)"
            case .entityDeclared:
                return "the document declares XML entities, which are refused for safety (entity expansion or external entities)"
            case let .externalDTD(systemID):
                return "the document refers to an external DTD (\(systemID)), which is refused for safety"
            case let .malformed(line, column, message, truncated):
                let place = line > 0 ? " at line \(line), column \(column)" : ""
                let hint = truncated ? " (the document looks truncated)" : ""
                return "not well-formed XML\(place): \(message)\(hint)"
            case .parserUnavailable:
                return "the XML parser could not be created (out of memory?)"
            case let .wrongDocument(expected, found):
                return "expected \(expected), found \(found)"
            case let .serviceException(message):
                return "the server answered with an exception: \(message)"
            case let .missing(what):
                return "the document has no \(what)"
            case let .unknownLayer(name, known):
                return "no layer \"\(name)\"\(listing(known, label: "layers include"))"
            case let .unknownStyle(layer, style, known):
                return "layer \"\(layer)\" has no style \"\(style)\"\(listing(known, label: "it has"))"
            case let .unknownFormat(layer, format, known):
                return "layer \"\(layer)\" is not offered as \"\(format)\"\(listing(known, label: "it has"))"
            case let .unknownTileMatrixSet(layer, set, known):
                return "layer \"\(layer)\" has no tile matrix set \"\(set)\"\(listing(known, label: "it has"))"
            case let .tileMatrixSetNotWebMercator(layer, set, why):
                return "tile matrix set \"\(set)\" of layer \"\(layer)\" is not Web Mercator: \(why)"
            case let .noWebMercatorSet(layer, sets):
                return "layer \"\(layer)\" has no tile matrix set in Web Mercator\(listing(sets, label: "it has"))"
            case let .noWebMercatorCRS(layer, crs):
                return "layer \"\(layer)\" is not offered in Web Mercator (EPSG:3857 or EPSG:900913)\(listing(crs, label: "it has"))"
            case let .noRequestURL(layer, detail):
                return "no way to request tiles of layer \"\(layer)\": \(detail)"
            case let .noTimeDimension(layer):
                return "layer \"\(layer)\" has no time dimension, but frames ask for times"
            case let .time(layer, error):
                return "layer \"\(layer)\": \(error)"
            case let .referenceTime(layer, error):
                return "layer \"\(layer)\": its model runs (reference_time): \(error)"
            }
        }
    }

    /// The form used in messages.
    public var description: String {
        "capabilities at \(url): \(reason)"
    }
}

private func listing(_ items: [String], label: String, limit: Int = 12) -> String {
    guard !items.isEmpty else { return " (\(label.hasPrefix("it") ? "it has none" : "there are none"))" }
    var shown = items.prefix(limit).joined(separator: ", ")
    if items.count > limit { shown += ", ... (\(items.count) in all)" }
    return " (\(label): \(shown))"
}

extension CapabilitiesError {
    /// Maps a refused XML document to the reason users see.
    init(url: String, failure: LibXMLDocument.ParseError) {
        let reason: Reason
        switch failure {
        case .empty: reason = .empty
        case let .tooLarge(bytes, limit): reason = .tooLarge(bytes: bytes, limit: limit)
        case .html: reason = .html
        case .entityDeclared: reason = .entityDeclared
        case let .externalDTD(systemID): reason = .externalDTD(systemID: systemID)
        case let .malformed(line, column, message, truncated):
            reason = .malformed(line: line, column: column, message: message, truncated: truncated)
        case .parserUnavailable: reason = .parserUnavailable
        }
        self.init(url: url, reason: reason)
    }
}
