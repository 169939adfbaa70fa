import CLibXML2

/// Limits applied to every document parsed from the network.
public struct XMLLimits: Sendable, Equatable {
    /// Largest accepted document in bytes (default 16 MiB).
    public var maxBytes: Int

    /// Default limits: 16 MiB.
    public static let `default` = XMLLimits(maxBytes: 16 << 20)

    /// Limits with the given byte cap.
    public init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }
}

/// Owns one parsed libxml2 document; freed on deinit. Only `LibXMLElement`s hand out data.
///
/// Parsing is hardened for documents from servers we do not control: no network access
/// (`XML_PARSE_NONET`), no entity substitution (`XML_PARSE_NOENT` off), no DTD loading
/// (`XML_PARSE_DTDLOAD` off), no huge-document mode, a byte cap, and any entity declaration
/// stops the parser before the entity is registered. A DOCTYPE that names an external DTD is
/// refused unless its root name is one the caller allows (WMS 1.1.1 documents must carry one;
/// it is never fetched).
final class LibXMLDocument {
    private let document: xmlDocPtr

    /// Why a document was refused; turned into `CapabilitiesError.Reason` by the callers.
    enum ParseError: Swift.Error, Equatable {
        case empty
        case tooLarge(bytes: Int, limit: Int)
        case html
        case entityDeclared
        case externalDTD(systemID: String)
        case malformed(line: Int, column: Int, message: String, truncated: Bool)
        case parserUnavailable
    }

    private init(document: xmlDocPtr) {
        self.document = document
    }

    deinit {
        xmlFreeDoc(document)
    }

    /// The root element.
    var root: LibXMLElement? {
        guard let node = xmlDocGetRootElement(document) else { return nil }
        return LibXMLElement(document: self, pointer: node)
    }

    /// Parses `bytes` with the hardened options described on the type.
    static func parse(
        _ bytes: [UInt8],
        limits: XMLLimits = .default,
        externalDTDAllowedFor allowedRoots: Set<String> = []
    ) throws(ParseError) -> LibXMLDocument {
        _ = libxml2Initialized
        matsite_xml_silence_thread()
        if bytes.count > limits.maxBytes || bytes.count > Int(Int32.max) {
            throw .tooLarge(bytes: bytes.count, limit: limits.maxBytes)
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw .empty
        }
        if looksLikeHTML(bytes) {
            throw .html
        }

        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue
                | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        var guardState = matsite_xml_guard()
        let result: Result<xmlDocPtr, ParseError> = withUnsafeMutablePointer(to: &guardState) { guardPointer in
            bytes.withUnsafeBufferPointer { buffer -> Result<xmlDocPtr, ParseError> in
                guard let address = buffer.baseAddress else { return .failure(.empty) }
                let base = UnsafeRawPointer(address).assumingMemoryBound(to: CChar.self)
                guard
                    let context = matsite_xml_guarded_context(
                        base, Int32(buffer.count), options, guardPointer)
                else { return .failure(.parserUnavailable) }
                defer { xmlFreeParserCtxt(context) }
                _ = xmlParseDocument(context)
                let document = context.pointee.myDoc
                context.pointee.myDoc = nil
                let guardValue = guardPointer.pointee
                if guardValue.entity_declared != 0 {
                    if let document { xmlFreeDoc(document) }
                    return .failure(.entityDeclared)
                }
                guard context.pointee.wellFormed != 0, let document else {
                    if let document { xmlFreeDoc(document) }
                    return .failure(malformed(guardValue, bytes: bytes))
                }
                return .success(document)
            }
        }
        let document = try result.get()
        let owner = LibXMLDocument(document: document)
        if let subset = document.pointee.intSubset {
            let systemID = subset.pointee.SystemID.map { String(cString: $0) }
            let publicID = subset.pointee.ExternalID.map { String(cString: $0) }
            let name = subset.pointee.name.map { String(cString: $0) } ?? ""
            if name.lowercased() == "html" { throw .html }
            if systemID != nil || publicID != nil, !allowedRoots.contains(name) {
                throw .externalDTD(systemID: systemID ?? publicID ?? "")
            }
        }
        return owner
    }
}

/// An element of a document owned by an `LibXMLDocument`, which it keeps alive.
struct LibXMLElement {
    let document: LibXMLDocument
    let pointer: xmlNodePtr

    /// The local name, without any prefix.
    var localName: String {
        pointer.pointee.name.map { String(cString: $0) } ?? ""
    }

    /// The namespace URI, or nil when the element is in no namespace.
    var namespaceURI: String? {
        pointer.pointee.ns?.pointee.href.map { String(cString: $0) }
    }

    /// The line in the source document (for messages).
    var line: Int {
        Int(xmlGetLineNo(pointer))
    }

    /// True when the element has this local name and one of these namespace URIs
    /// (nil in the set matches an element in no namespace).
    func `is`(_ name: String, in namespaces: XMLNamespaces) -> Bool {
        localName == name && namespaces.contains(namespaceURI)
    }

    /// The child elements, in document order.
    var children: [LibXMLElement] {
        var result: [LibXMLElement] = []
        var child = pointer.pointee.children
        while let node = child {
            if node.pointee.type == XML_ELEMENT_NODE {
                result.append(LibXMLElement(document: document, pointer: node))
            }
            child = node.pointee.next
        }
        return result
    }

    /// The child elements with this local name in these namespaces.
    func children(_ name: String, in namespaces: XMLNamespaces) -> [LibXMLElement] {
        children.filter { $0.is(name, in: namespaces) }
    }

    /// The first child element with this local name in these namespaces.
    func child(_ name: String, in namespaces: XMLNamespaces) -> LibXMLElement? {
        var child = pointer.pointee.children
        while let node = child {
            if node.pointee.type == XML_ELEMENT_NODE {
                let candidate = LibXMLElement(document: document, pointer: node)
                if candidate.is(name, in: namespaces) { return candidate }
            }
            child = node.pointee.next
        }
        return nil
    }

    /// The trimmed text of a child element, or nil when there is none or it is empty.
    func childText(_ name: String, in namespaces: XMLNamespaces) -> String? {
        guard let text = child(name, in: namespaces)?.text, !text.isEmpty else { return nil }
        return text
    }

    /// The element's text (its text and CDATA descendants), trimmed of XML whitespace.
    var text: String {
        var bytes: [UInt8] = []
        collectText(pointer, into: &bytes)
        return String(decoding: bytes, as: UTF8.self).trimmingXMLWhitespace()
    }

    /// An attribute by local name; `namespace` nil means an unqualified attribute.
    /// When no attribute matches exactly, an attribute with the same local name in any
    /// namespace is used (servers are loose about `xlink:`).
    func attribute(_ name: String, namespace: String? = nil) -> String? {
        var fallback: String?
        var property = pointer.pointee.properties
        while let attribute = property {
            let localName = attribute.pointee.name.map { String(cString: $0) }
            if localName == name {
                let attributeNamespace = attribute.pointee.ns?.pointee.href.map { String(cString: $0) }
                let value = attributeValue(attribute)
                if attributeNamespace == namespace { return value }
                if fallback == nil { fallback = value }
            }
            property = attribute.pointee.next
        }
        return fallback
    }
}

/// A set of namespace URIs an element may be in (nil: no namespace).
struct XMLNamespaces: Sendable {
    let uris: Set<String?>

    init(_ uris: String?...) {
        self.uris = Set(uris)
    }

    func contains(_ uri: String?) -> Bool {
        uris.contains(uri)
    }

    /// WMTS 1.0.
    static let wmts = XMLNamespaces("http://www.opengis.net/wmts/1.0")
    /// OWS Common 1.1 (WMTS) and its neighbours seen in the wild.
    static let ows = XMLNamespaces(
        "http://www.opengis.net/ows/1.1", "http://www.opengis.net/ows",
        "http://www.opengis.net/ows/2.0")
    /// WMS: 1.3.0 is namespaced, 1.1.1 is not.
    static let wms = XMLNamespaces("http://www.opengis.net/wms", nil)
    /// OGC service exception reports (WMS 1.1.1 has no namespace).
    static let ogcExceptions = XMLNamespaces("http://www.opengis.net/ogc", nil)
    /// XLink.
    static let xlink = "http://www.w3.org/1999/xlink"
}

// libxml2 must be initialised once before concurrent use; a global's initialiser runs once.
private let libxml2Initialized: Void = {
    xmlInitParser()
}()

private func attributeValue(_ attribute: xmlAttrPtr) -> String {
    var bytes: [UInt8] = []
    var child = attribute.pointee.children
    while let node = child {
        if let content = node.pointee.content {
            bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: strlen(content)))
        }
        child = node.pointee.next
    }
    return String(decoding: bytes, as: UTF8.self)
}

private func collectText(_ node: xmlNodePtr, into bytes: inout [UInt8]) {
    var child = node.pointee.children
    while let current = child {
        switch current.pointee.type {
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            if let content = current.pointee.content {
                bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: strlen(content)))
            }
        case XML_ELEMENT_NODE:
            collectText(current, into: &bytes)
        default:
            break
        }
        child = current.pointee.next
    }
}

private func malformed(_ state: matsite_xml_guard, bytes: [UInt8]) -> LibXMLDocument.ParseError {
    guard state.have_error != 0 else {
        return .malformed(line: 0, column: 0, message: "the document is not well-formed XML", truncated: false)
    }
    var messageBuffer = state.error_message
    let message = withUnsafeBytes(of: &messageBuffer) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }.trimmingXMLWhitespace()
    if looksLikeHTML(bytes, anywhereInFirst: 2048) {
        return .html
    }
    // An error on the last line means the input ran out: the usual sign of a cut download.
    let lastLine = bytes.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
    let opensLikeXML = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "<")
    let truncated =
        opensLikeXML
        && (state.error_code == Int32(XML_ERR_TAG_NOT_FINISHED.rawValue)
            || Int(state.error_line) >= lastLine)
    return .malformed(
        line: Int(state.error_line), column: Int(state.error_column),
        message: message, truncated: truncated)
}

/// A cheap sniff, not parsing: does the body open like an HTML page?
private func looksLikeHTML(_ bytes: [UInt8], anywhereInFirst window: Int = 0) -> Bool {
    let head = bytes.prefix(max(window, 512)).map { byte -> UInt8 in
        (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
    }
    let text = String(decoding: head, as: UTF8.self)
    if window > 0 {
        return text.contains("<html") || text.contains("<!doctype html")
    }
    let opening = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
    return opening.hasPrefix("<!doctype html") || opening.hasPrefix("<html")
}

extension String {
    /// Trims the XML whitespace characters (space, tab, CR, LF).
    func trimmingXMLWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = lastIndex(where: { !isSpace($0) }) ?? start
        return String(self[start...end])
    }
}
