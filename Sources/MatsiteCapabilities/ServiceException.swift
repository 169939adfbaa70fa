/// An OGC service exception: what a WMS/WMTS server sends back (often with status 200) instead
/// of an image when a request is wrong. Covers WMS `ServiceExceptionReport` (1.1.1 and 1.3.0)
/// and OWS `ExceptionReport` (WMTS).
public struct ServiceException: Sendable, Hashable, CustomStringConvertible {
    /// `code` / `exceptionCode`, e.g. `InvalidDimensionValue`.
    public let code: String?
    /// `locator`, e.g. `TIME`.
    public let locator: String?
    /// The human-readable text.
    public let text: String

    /// A service exception with these parts.
    public init(code: String?, locator: String?, text: String) {
        self.code = code
        self.locator = locator
        self.text = text
    }

    /// The form used in messages.
    public var description: String {
        var prefix = code ?? ""
        if let locator { prefix += prefix.isEmpty ? "(\(locator))" : " (\(locator))" }
        if prefix.isEmpty { return text.isEmpty ? "unspecified exception" : text }
        return text.isEmpty ? prefix : "\(prefix): \(text)"
    }

    /// True when the exception says the service has nothing for the time asked yet: an
    /// `InvalidDimensionValue` (the time is not, or not yet, a value of the dimension), a
    /// `TileOutOfRange` (MapProxy's and others' answer for a tile of a time without data),
    /// an exception whose locator is the time, or one whose words say there is no data.
    /// At the newest end of a live window that is a time not published yet, like a 404.
    public var saysNoDataForTime: Bool {
        let code = (code ?? "").lowercased(), locator = (locator ?? "").lowercased()
        if code == "invaliddimensionvalue" || code == "tileoutofrange" { return true }
        if locator == "time" || locator == "dim_time" { return true }
        let words = text.lowercased()
        return words.contains("no data") || words.contains("nodata")
    }

    /// The exceptions in `body` when it is an exception report, nil when it is not one
    /// (an image, HTML, another XML document, or anything unparsable).
    public static func parse(_ body: [UInt8], limits: XMLLimits = XMLLimits(maxBytes: 1 << 20)) -> [ServiceException]? {
        guard
            let document = try? LibXMLDocument.parse(
                body, limits: limits, externalDTDAllowedFor: ["ServiceExceptionReport"]),
            let root = document.root
        else { return nil }
        return exceptions(in: root)
    }

    /// The message of the exception report in `body` ("code (locator): text; ..."), or nil
    /// when `body` is not an exception report. The fetcher calls this when a response is XML
    /// instead of an image.
    public static func message(in body: [UInt8]) -> String? {
        guard let exceptions = parse(body) else { return nil }
        if exceptions.isEmpty { return "the server reported an exception without a message" }
        return exceptions.map(\.description).joined(separator: "; ")
    }

    /// The exceptions when `root` is an exception report.
    static func exceptions(in root: LibXMLElement) -> [ServiceException]? {
        if root.is("ServiceExceptionReport", in: .ogcExceptions) || root.is("ServiceExceptionReport", in: .wms) {
            return root.children.filter { $0.localName == "ServiceException" }.map { node in
                ServiceException(
                    code: node.attribute("code"), locator: node.attribute("locator"),
                    text: collapse(node.text))
            }
        }
        if root.is("ExceptionReport", in: .ows) {
            return root.children("Exception", in: .ows).map { node in
                let texts = node.children("ExceptionText", in: .ows).map { collapse($0.text) }
                return ServiceException(
                    code: node.attribute("exceptionCode"), locator: node.attribute("locator"),
                    text: texts.joined(separator: " "))
            }
        }
        return nil
    }
}

/// Collapses runs of whitespace (exception texts are often indented over lines).
func collapse(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\r\n" })
        .joined(separator: " ")
}
