import Foundation
import Testing

/// `matsite init` end to end, through the real binary.
@Suite("matsite init")
struct InitCommandTests {
    @Test("init writes a project whose matsite.yml builds offline into a valid site")
    func initThenBuild() throws {
        let parent = try CLI.scratch("init")
        defer { try? FileManager.default.removeItem(at: parent) }
        let project = parent.appendingPathComponent("loops")
        let created = try CLI.run(["init", project.path], in: parent)
        #expect(created.status == 0, "stderr: \(created.err)")
        let p = project.path
        #expect(created.out == "created \(p)/matsite.yml, \(p)/README.md, \(p)/templates\nnext: cd \(p) && matsite build && matsite serve\n")
        #expect(created.err.isEmpty)
        #expect(CLI.tree(project) == ["README.md", "matsite.yml", "templates"])
        let config = try String(contentsOf: project.appendingPathComponent("matsite.yml"), encoding: .utf8)
        // Offline: the live config uses the demo source; other kinds are comments only.
        let live = config.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        #expect(live.contains { $0.contains("demo: radar") })
        #expect(!live.contains { $0.contains("http://") || $0.contains("https://") })
        // missing: transparent only where a source leaves out empty tiles (gdal2tiles'
        // folders), never for a live feed whose 404 means a wrong URL.
        let transparent = config.split(separator: "\n").filter { $0.contains("missing: transparent") }
        #expect(transparent.count == 1 && transparent[0].contains("gdal2tiles"), "\(transparent)")

        let built = try CLI.run(["build"], in: project, timeout: 900)
        #expect(built.status == 0, "stderr: \(built.err)")
        #expect(built.err.contains("published"))
        #expect(!built.err.contains("requests"), "an offline build makes no HTTP request: \(built.err)")
        try expectValidSite(project.appendingPathComponent("site"))
    }

    @Test("init refuses to overwrite an existing project: exit 2 and nothing changed")
    func refusesToOverwrite() throws {
        let project = try CLI.scratch("init-existing")
        defer { try? FileManager.default.removeItem(at: project) }
        let mine = "title: mine\n"
        try Data(mine.utf8).write(to: project.appendingPathComponent("matsite.yml"))
        let result = try CLI.run(["init", project.path], in: project)
        #expect(result.status == 2)
        #expect(result.err == "error: \(project.path): refusing to overwrite matsite.yml; choose an empty folder\n")
        #expect(result.out.isEmpty)
        #expect(try String(contentsOf: project.appendingPathComponent("matsite.yml"), encoding: .utf8) == mine)
        #expect(CLI.tree(project) == ["matsite.yml"], "nothing else was written")
    }

    @Test("init into the current folder refuses too when only templates/ exists")
    func refusesOverTemplates() throws {
        let project = try CLI.scratch("init-templates")
        defer { try? FileManager.default.removeItem(at: project) }
        try FileManager.default.createDirectory(at: project.appendingPathComponent("templates"), withIntermediateDirectories: false)
        let result = try CLI.run(["init"], in: project)
        #expect(result.status == 2)
        #expect(result.err.contains("templates"))
        #expect(CLI.tree(project) == ["templates"])
    }
}
