/// The root element of a capabilities response, after what WMS and WMTS check alike: the
/// hardened parse (`LibXMLDocument`), a root element, and no service exception report in
/// its place (raised as the error it is).
func capabilitiesRoot(
    _ data: [UInt8], url: String, limits: XMLLimits,
    externalDTDAllowedFor roots: Set<String>
) throws(CapabilitiesError) -> LibXMLElement {
    let document: LibXMLDocument
    do {
        document = try LibXMLDocument.parse(data, limits: limits, externalDTDAllowedFor: roots)
    } catch {
        throw CapabilitiesError(url: url, failure: error)
    }
    guard let root = document.root else { throw CapabilitiesError(url: url, reason: .missing("root element")) }
    if let exceptions = ServiceException.exceptions(in: root) {
        throw CapabilitiesError(url: url, reason: .serviceException(exceptions.map(\.description).joined(separator: "; ")))
    }
    return root
}

/// A root element as an error message names it, with a hint when it is the other service's.
func describeRoot(_ root: LibXMLElement) -> String {
    let namespace = root.namespaceURI.map { " in namespace \($0)" } ?? ""
    let hint: String
    switch root.localName {
    case "WMS_Capabilities", "WMT_MS_Capabilities": hint = " (a WMS document: use source.wms)"
    case "Capabilities" where root.namespaceURI == "http://www.opengis.net/wmts/1.0": hint = " (a WMTS document: use source.wmts)"
    case "html": hint = " (an HTML page)"
    default: hint = ""
    }
    return "<\(root.localName)>\(namespace)\(hint)"
}
