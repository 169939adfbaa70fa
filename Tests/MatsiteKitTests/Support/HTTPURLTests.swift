import Testing

@testable import MatsiteKit

/// "An http(s) URL" is checked in one place.
@Suite("HTTPURL")
struct HTTPURLTests {
    @Test("http and https URLs with a host are taken, the scheme in any case, the host lowercased")
    func accepted() throws {
        let url = try #require(HTTPURL("HTTPS://Tiles.Example.org:8443/radar/index.json?x=1"))
        #expect(url.host == "tiles.example.org" && url.text == "HTTPS://Tiles.Example.org:8443/radar/index.json?x=1")
        #expect(url.url.path == "/radar/index.json")
        #expect(HTTPURL("http://127.0.0.1:8080/")?.host == "127.0.0.1")
    }

    @Test(
        "other schemes, relative paths, URLs without a host and unparsable text are refused",
        arguments: [
            "ftp://example.org/a", "file:///etc/passwd", "/radar/index.json", "radar.json", "https://", "http:///path", "https://exa mple.org/",
            "",
        ])
    func refused(_ text: String) {
        #expect(HTTPURL(text) == nil)
    }

    @Test("a template's host is read by hand: braces, user info, ports and IPv6 literals")
    func templateHost() {
        #expect(HTTPURL.host(ofTemplate: "https://{s}.Tiles.org/{z}/{x}/{y}.png") == "{s}.tiles.org")
        #expect(HTTPURL.host(ofTemplate: "http://user:pw@example.org:81/{z}") == "example.org")
        #expect(HTTPURL.host(ofTemplate: "http://[::1]:8080/{z}/{x}/{y}.png") == "[::1]")
        #expect(HTTPURL.host(ofTemplate: "tiles/{z}/{x}/{y}.png") == nil)
        #expect(HTTPURL.host(ofTemplate: "{host}/{path}/{z}/{x}/{y}.png") == nil)
    }
}
