import Foundation
import Testing

@testable import MatsiteKit

/// The embed code is for other sites: a build says so when `base_url` cannot serve them.
@Suite("base_url warning")
struct BaseURLWarningTests {
    static let animation = """
          - id: loop
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 2
            source: { demo: radar }
            frames: { count: 1 }
        """

    /// The warnings of one build whose config sets `base_url` as `line` (none when nil).
    func warnings(baseURL line: String?) async throws -> [String] {
        let site = try TestSite()
        defer { site.remove() }
        var yaml = site.yaml(Self.animation)
        if let line { yaml = yaml.replacingOccurrences(of: "title: Test site\n", with: "title: Test site\n\(line)\n") }
        let reporter = RecordingReporter()
        try await site.build(yaml, reporter: reporter)
        return reporter.warnings.filter { $0.contains("base_url") }
    }

    @Test("a relative base_url is named with its line, and what it breaks and how to mend it said")
    func relative() async throws {
        let found = try await warnings(baseURL: "base_url: /maps/")
        #expect(
            found == [
                "matsite.yml line 2: base_url \"/maps/\" is relative, so the index page's embed code and the pages' og:image and og:url work on this site only: set base_url to the address the site is served at, e.g. https://example.org/maps/"
            ])
    }

    @Test("the embedded demo, which has no file to set base_url in, builds without a word about it")
    func embeddedDemo() throws {
        let empty = try CLI.scratch("demo-base-url")
        defer { try? FileManager.default.removeItem(at: empty) }
        let built = try CLI.run(["build"], in: empty, timeout: 900)
        #expect(built.status == 0, "\(built.err)")
        #expect(built.err.contains("building the embedded demo"), "\(built.err)")
        #expect(!built.err.contains("base_url"), "\(built.err)")
    }

    @Test("no base_url at all: the default / is relative too, and said to be the default")
    func missing() async throws {
        let found = try await warnings(baseURL: nil)
        #expect(found.count == 1 && found[0].hasPrefix("matsite.yml: base_url \"/\" is relative (the default), "), "\(found)")
    }

    @Test("an absolute base_url builds without a word about it", arguments: ["https://example.org/maps/", "http://127.0.0.1:8080"])
    func absolute(baseURL: String) async throws {
        #expect(try await warnings(baseURL: "base_url: \(baseURL)").isEmpty)
    }
}
