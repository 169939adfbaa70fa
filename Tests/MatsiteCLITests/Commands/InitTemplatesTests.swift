import Foundation
import Testing

/// `matsite init --templates`: matsite's own templates written out to edit, end to end
/// through the real binary.
@Suite("matsite init --templates")
struct InitTemplatesTests {
    /// A small project; `templates` names its templates folder when given.
    static func config(templates: String?) -> String {
        """
        title: Templates
        \(templates.map { "templates: \($0)\n" } ?? "")animations:
          - id: radar
            title: Radar
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 3
            source: { demo: radar }
            frames: { last: PT20M, step: PT10M }
            time_label: both
            legend: { unit: dBZ, stops: [[20, "#1e78cd", light], [50, "#fa8c14", heavy]] }
        """
    }

    /// The files under `folder`, relative to it, with their bytes.
    static func files(_ folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in CLI.tree(folder) {
            var isFolder: ObjCBool = false
            let file = folder.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), !isFolder.boolValue {
                out[name] = try Data(contentsOf: file)
            }
        }
        return out
    }

    @Test("writes every default template into the folder the config names; the site they build is the default one, and an edit shows")
    func writeEditBuild() throws {
        let root = try CLI.scratch("init-templates")
        defer { try? FileManager.default.removeItem(at: root) }
        let (mine, plain) = (root.appendingPathComponent("mine"), root.appendingPathComponent("plain"))
        for (folder, templates) in [(mine, "my-templates" as String?), (plain, nil)] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(Self.config(templates: templates).utf8).write(to: folder.appendingPathComponent("matsite.yml"))
        }
        let written = try CLI.run(["init", "--templates", mine.path], in: root)
        #expect(written.status == 0, "stderr: \(written.err)")
        let folder = mine.appendingPathComponent("my-templates")
        let defaults = try Self.files(CLI.packageRoot.appendingPathComponent("templates"))
        #expect(try Self.files(folder) == defaults, "the files written are exactly matsite's templates/")
        #expect(defaults.keys.contains("index.mustache") && defaults.keys.contains("assets/player.js"))
        #expect(written.out.hasPrefix("wrote \(defaults.count) files into \(folder.path): "), "\(written.out)")

        // Built with the written templates, the pages are the default ones, byte for byte.
        let at = ["--at", "2026-11-21T12:00:00Z", "--quiet"]
        for project in [mine, plain] {
            let built = try CLI.run(["build"] + at, in: project, timeout: 600)
            #expect(built.status == 0, "\(project.lastPathComponent): \(built.err)")
        }
        for page in ["index.html", "radar/index.html", "radar/embed.html"] {
            let a = try Data(contentsOf: mine.appendingPathComponent("site/\(page)"))
            #expect(a == (try Data(contentsOf: plain.appendingPathComponent("site/\(page)"))), "\(page)")
        }

        // An edited template is the one the next build uses.
        let index = folder.appendingPathComponent("index.mustache")
        let edited = try #require(String(data: defaults["index.mustache"] ?? Data(), encoding: .utf8))
            .replacingOccurrences(of: "</body>", with: "<p>edited-by-the-test</p></body>")
        #expect(edited.contains("edited-by-the-test"))
        try Data(edited.utf8).write(to: index)
        let rebuilt = try CLI.run(["build"] + at, in: mine, timeout: 600)
        #expect(rebuilt.status == 0, "\(rebuilt.err)")
        #expect(try String(contentsOf: mine.appendingPathComponent("site/index.html"), encoding: .utf8).contains("<p>edited-by-the-test</p>"))

        // Written again, nothing is overwritten unless --force.
        let again = try CLI.run(["init", "--templates", mine.path], in: root)
        #expect(again.status == 2)
        #expect(again.err.contains("refusing to overwrite") && again.err.contains("--force"), "\(again.err)")
        #expect(try String(contentsOf: index, encoding: .utf8) == edited)
        let forced = try CLI.run(["init", "--templates", "--force", mine.path], in: root)
        #expect(forced.status == 0, "\(forced.err)")
        #expect(try Self.files(folder) == defaults)
    }

    @Test("a config that names no templates folder gets them in templates/ and a note saying how to use them")
    func unnamedFolder() throws {
        let project = try CLI.scratch("init-templates-unnamed")
        defer { try? FileManager.default.removeItem(at: project) }
        try Data(Self.config(templates: nil).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        let written = try CLI.run(["init", "--templates"], in: project)
        #expect(written.status == 0, "\(written.err)")
        #expect(written.out.contains("add `templates: templates`"), "\(written.out)")
        #expect(FileManager.default.fileExists(atPath: project.appendingPathComponent("templates/player.mustache").path))
    }

    @Test("--force without --templates is a usage error; init never overwrites a project")
    func forceAlone() throws {
        let project = try CLI.scratch("init-force")
        defer { try? FileManager.default.removeItem(at: project) }
        let result = try CLI.run(["init", "--force", project.path], in: project)
        #expect(result.status == 2)
        #expect(result.err.contains("--force goes with --templates"), "\(result.err)")
        #expect(CLI.tree(project).isEmpty)
    }
}
