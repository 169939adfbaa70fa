import Testing

@testable import MatsiteCapabilities

@Suite("Parsing untrusted XML")
struct LibXMLDocumentTests {
    let url = "https://example.org/wmts.xml"

    private func failure(_ text: String, limits: XMLLimits = .default) -> LibXMLDocument.ParseError? {
        failure(text.bytes, limits: limits)
    }

    private func failure(
        _ bytes: [UInt8], limits: XMLLimits = .default,
        allowing roots: Set<String> = []
    ) -> LibXMLDocument.ParseError? {
        do {
            _ = try LibXMLDocument.parse(bytes, limits: limits, externalDTDAllowedFor: roots)
            return nil
        } catch {
            return error
        }
    }

    @Test("an external entity pointing at /etc/passwd is refused before anything is read")
    func externalEntity() {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE Capabilities [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
            <Capabilities xmlns="http://www.opengis.net/wmts/1.0"><x>&xxe;</x></Capabilities>
            """
        #expect(failure(text) == .entityDeclared)
        let error = CapabilitiesError(url: url, failure: .entityDeclared)
        #expect(
            error.description
                == "capabilities at https://example.org/wmts.xml: the document declares XML entities, which are refused for safety (entity expansion or external entities)"
        )
    }

    @Test("a billion laughs document is refused at once, without expanding anything")
    func billionLaughs() {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            text += " <!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        text += "]>\n<lolz>&lol9;</lolz>"
        var result: LibXMLDocument.ParseError?
        let elapsed = milliseconds { result = failure(text) }
        #expect(result == .entityDeclared)
        #expect(elapsed < 20_000) // a hang detector, generous for a loaded 2-core CI
    }

    @Test("an internal entity, even a harmless one, is refused")
    func harmlessEntity() {
        #expect(failure("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>") == .entityDeclared)
    }

    @Test("a parameter entity loading a remote DTD is refused without connecting")
    func parameterEntity() throws {
        let listener = try #require(LocalListener())
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE a [ <!ENTITY % remote SYSTEM "http://127.0.0.1:\(listener.port)/evil.dtd"> %remote; ]>
            <a/>
            """
        #expect(failure(text) == .entityDeclared)
        #expect(!listener.wasConnected)
    }

    @Test("an external DTD is refused quickly and never fetched")
    func externalDTD() {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE Capabilities SYSTEM "http://127.0.0.1:1/x.dtd">
            <Capabilities xmlns="http://www.opengis.net/wmts/1.0"/>
            """
        var result: LibXMLDocument.ParseError?
        let elapsed = milliseconds { result = failure(text) }
        #expect(result == .externalDTD(systemID: "http://127.0.0.1:1/x.dtd"))
        #expect(elapsed < 20_000) // a hang detector, generous for a loaded 2-core CI
        #expect(
            CapabilitiesError(url: url, failure: result ?? .empty).description
                == "capabilities at https://example.org/wmts.xml: the document refers to an external DTD (http://127.0.0.1:1/x.dtd), which is refused for safety"
        )
    }

    @Test("the WMS 1.1.1 DOCTYPE is accepted but its DTD is never fetched")
    func wms111DoctypeNotFetched() throws {
        let listener = try #require(LocalListener())
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE WMT_MS_Capabilities SYSTEM "http://127.0.0.1:\(listener.port)/WMS_MS_Capabilities.dtd"
              [ <!ELEMENT VendorSpecificCapabilities EMPTY> ]>
            <WMT_MS_Capabilities version="1.1.1"><Service><Title>t</Title></Service></WMT_MS_Capabilities>
            """
        let document = try LibXMLDocument.parse(text.bytes, externalDTDAllowedFor: ["WMT_MS_Capabilities"])
        #expect(document.root?.localName == "WMT_MS_Capabilities")
        #expect(!listener.wasConnected)
        // Without the allowance the same document is refused.
        #expect(failure(text.bytes) == .externalDTD(systemID: "http://127.0.0.1:\(listener.port)/WMS_MS_Capabilities.dtd"))
    }

    @Test("a truncated document is reported with its line and as truncated")
    func truncated() throws {
        let text = "<?xml version=\"1.0\"?>\n<Capabilities xmlns=\"http://www.opengis.net/wmts/1.0\">\n  <Contents>\n    <Layer>"
        guard case let .malformed(line, _, message, truncated) = failure(text) else {
            Issue.record("expected a malformed document")
            return
        }
        #expect(line == 4)
        #expect(truncated)
        #expect(message.contains("Premature end of data"))
    }

    @Test("a real document cut in half is refused as truncated")
    func realDocumentCut() throws {
        let bytes = try #require(Fixtures.bytes("owslib/eosdis-wmts-cap.xml"))
        guard case let .malformed(_, _, _, truncated) = failure(Array(bytes.prefix(bytes.count / 2))) else {
            Issue.record("expected a malformed document")
            return
        }
        #expect(truncated)
    }

    @Test(
        "an HTML page is recognised as HTML",
        arguments: [
            "<!DOCTYPE html>\n<html><head><title>Login</title></head><body><p>Sign in<br></body></html>",
            "\n\n  <HTML><BODY>502 Bad Gateway</BODY></HTML>",
            "\u{FEFF}<html lang=\"en\"><body>oops</body></html>",
            "<?xml version=\"1.0\"?>\n<!-- proxy -->\n<html><body><p>unclosed</body></html>",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>Maintenance</p></body></html>",
        ])
    func html(page: String) {
        #expect(failure(page) == .html)
    }

    @Test("a document over the size cap is refused before parsing")
    func tooLarge() {
        let body = "<a>" + String(repeating: "x", count: 2000) + "</a>"
        #expect(failure(body, limits: XMLLimits(maxBytes: 1024)) == .tooLarge(bytes: 2007, limit: 1024))
        let huge = [UInt8](repeating: 0x20, count: (16 << 20) + 1)
        var result: LibXMLDocument.ParseError?
        let elapsed = milliseconds { result = failure(huge) }
        #expect(result == .tooLarge(bytes: (16 << 20) + 1, limit: 16 << 20))
        #expect(elapsed < 20_000) // a hang detector, generous for a loaded 2-core CI
    }

    @Test("an empty body is refused as empty")
    func empty() {
        #expect(failure("") == .empty)
        #expect(failure(" \n\t ") == .empty)
    }

    @Test("binary data instead of XML is refused as malformed")
    func binary() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        guard case .malformed = failure(png) else {
            Issue.record("expected a malformed document")
            return
        }
    }

    @Test("absurdly deep nesting is refused without a crash")
    func deepNesting() {
        let depth = 100_000
        let text = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        var result: LibXMLDocument.ParseError?
        let elapsed = milliseconds { result = failure(text) }
        guard case .malformed = result else {
            Issue.record("expected a malformed document, got \(String(describing: result))")
            return
        }
        #expect(elapsed < 30_000) // a hang detector, generous for a loaded 2-core CI
    }

    @Test("an undeclared entity reference is an error, not an expansion")
    func undeclaredEntity() {
        guard case let .malformed(_, _, message, _) = failure("<a>&nope;</a>") else {
            Issue.record("expected a malformed document")
            return
        }
        #expect(message.contains("nope"))
    }

    @Test("elements are matched by namespace URI, whatever the prefix")
    func namespaces() throws {
        let text = """
            <w:Capabilities xmlns:w="http://www.opengis.net/wmts/1.0" xmlns:o="http://www.opengis.net/ows/1.1">
              <o:Title>by prefix</o:Title>
              <Title>no namespace</Title>
              <x:Title xmlns:x="http://www.opengis.net/wmts/1.0">wmts title</x:Title>
            </w:Capabilities>
            """
        let document = try LibXMLDocument.parse(text.bytes)
        let root = try #require(document.root)
        #expect(root.is("Capabilities", in: .wmts))
        #expect(root.childText("Title", in: .ows) == "by prefix")
        #expect(root.childText("Title", in: .wmts) == "wmts title")
        #expect(root.children("Title", in: XMLNamespaces(nil)).map(\.text) == ["no namespace"])
    }

    @Test("ISO-8859-1 documents are decoded")
    func latin1() throws {
        let bytes: [UInt8] = Array("<?xml version='1.0' encoding='ISO-8859-1'?><a>caf".utf8) + [0xE9] + Array("</a>".utf8)
        let document = try LibXMLDocument.parse(bytes)
        #expect(document.root?.text == "café")
    }

    @Test("bytes that cannot be decoded in the declared encoding are an error (and print nothing)")
    func encodingErrors() {
        // UTF-16LE with lone surrogates: libxml2 raises this without a parser context, through
        // the per-thread generic handler that the parser silences (it used to print to stderr).
        let utf16: [UInt8] = Array("<\0?\0x\0m\0l\0 \0".utf8) + [0x00, 0xD8, 0x00, 0xD8, 0x3E, 0x00]
        guard case .malformed = failure(utf16) else {
            Issue.record("expected a malformed document")
            return
        }
        let iso2022: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?><a>".utf8) + [0xFA, 0x30, 0x00, 0x30]
        guard case .malformed = failure(iso2022) else {
            Issue.record("expected a malformed document")
            return
        }
    }
}
