import Foundation
import Testing

/// The README and the documents under `docs/` and `bench/` are read from a clone: every link
/// that is not a web address must reach a file of the repository (and a heading, when it
/// names one), and none may lead out of it.
@Suite("Documentation links")
struct DocumentationLinksTests {
    /// The package root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL

    /// The documents checked, relative to the root.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        return ["README.md", "bench/README.md"] + docs.sorted()
    }

    /// The link targets of a Markdown text, with their line numbers: `[text](target)` and
    /// `![alt](target)`, outside fenced code blocks and inline code.
    static func links(in text: String) -> [(line: Int, target: String)] {
        var found: [(Int, String)] = []
        var fenced = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
                continue
            }
            guard !fenced else { continue }
            // Inline code spans hold examples, not links.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }
                .map(\.element).joined(separator: " ")
            for match in prose.matches(of: /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/) {
                found.append((number + 1, String(match.output.1)))
            }
        }
        return found
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap { c -> Character? in
                if c == " " { return "-" }
                return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
            })
    }

    /// The anchors of a Markdown file's headings (outside fenced code blocks).
    static func anchors(of file: URL) throws -> Set<String> {
        var fenced = false
        var out = Set<String>()
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("```") { fenced.toggle() }
            guard !fenced, line.hasPrefix("#") else { continue }
            out.insert(anchor(line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)))
        }
        return out
    }

    @Test("every relative link in README.md, docs/ and bench/README.md reaches a file in the repository, and its heading")
    func relativeLinksResolve() throws {
        var checked = 0
        for document in try Self.documents() {
            let file = Self.root.appendingPathComponent(document)
            let folder = file.deletingLastPathComponent()
            for (line, target) in Self.links(in: try String(contentsOf: file, encoding: .utf8)) {
                if target.hasPrefix("https://") || target.hasPrefix("http://") || target.hasPrefix("mailto:") { continue }
                checked += 1
                let place = "\(document):\(line): \(target)"
                #expect(!target.hasPrefix("/") && !target.contains("://"), "\(place): not a path inside the repository")
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0]), fragment = parts.count > 1 ? String(parts[1]) : nil
                let destination = path.isEmpty ? file : folder.appendingPathComponent(path).standardizedFileURL
                #expect(destination.path.hasPrefix(Self.root.path + "/"), "\(place): leads out of the repository")
                #expect(FileManager.default.fileExists(atPath: destination.path), "\(place): no such file")
                if let fragment, destination.pathExtension == "md", FileManager.default.fileExists(atPath: destination.path) {
                    #expect(try Self.anchors(of: destination).contains(fragment), "\(place): no heading with that anchor")
                }
            }
        }
        #expect(checked >= 20, "the documents link to each other: \(checked) relative links found")
    }

    @Test("the link reader finds links, skips code and web addresses are left to the reader")
    func linkReader() {
        let text = """
            See [config](docs/config.md#site) and ![shot](docs/demo.png "the demo").
            `[not](a-link.md)` and [web](https://example.org/)
            ```
            [fenced](nowhere.md)
            ```
            """
        #expect(Self.links(in: text).map(\.target) == ["docs/config.md#site", "docs/demo.png", "https://example.org/"])
        #expect(Self.anchor("Deploy: object storage and file servers") == "deploy-object-storage-and-file-servers")
        #expect(Self.anchor("zooming in: fallback and pyramid") == "zooming-in-fallback-and-pyramid")
    }
}
