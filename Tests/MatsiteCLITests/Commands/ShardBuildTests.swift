import Foundation
import Testing

@testable import MatsiteKit

/// `matsite build --only`: shards run as parallel processes against one output and one
/// tile cache, and the site they leave equals one whole build, file for file.
@Suite("matsite build --only (shards)")
struct ShardBuildTests {
    /// Builds compared file for file share one clock: the manifests say it as `now`.
    static let clock = "2026-11-21T12:00:00Z"

    let cli = BuildCommandTests()

    /// Eight small animations from the offline demo source, each in its own box.
    static let config: String = {
        var lines = ["title: Shards", "animations:"]
        for i in 0..<8 {
            let west = -10 + 2 * i
            lines += [
                "  - id: a\(i)", "    title: Loop \(i)", "    bbox: [\(west).0, 40.0, \(west + 6).0, 46.0]", "    zoom: 5",
                "    source: { demo: radar }", "    frames: { count: 3 }",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    static func project() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-shards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(config.utf8).write(to: folder.appendingPathComponent("matsite.yml"))
        return folder
    }

    /// Every file below `root` by relative path, with its bytes' hash.
    static func tree(_ root: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]))
        for case let url as URL in enumerator where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            // The builds' report: its clocks differ from build to build (checked apart).
            if relative == SiteStatus.file { continue }
            files[relative] = SHA256.hex(of: [UInt8](try Data(contentsOf: url)))
        }
        return files
    }

    /// Runs the shards as parallel processes into `output`; all must exit 0.
    func shards(_ groups: [[Int]], output: String, in folder: URL) async throws {
        let results = try await withThrowingTaskGroup(of: BuildCommandTests.Run.self) { group in
            for ids in groups {
                let only = ids.map { "a\($0)" }.joined(separator: ",")
                group.addTask { try await cli.run(["build", "--only", only, "--output", output, "--quiet", "--at", Self.clock], in: folder) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
    }

    @Test("two and four parallel shards of an eight-animation site equal one whole build, file for file")
    func shardsEqualOneBuild() async throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try await cli.run(["build", "--output", "whole", "--quiet", "--at", Self.clock], in: folder)
        #expect(whole.status == 0, "\(whole.stderr)")
        let expected = try Self.tree(folder.appendingPathComponent("whole"))
        #expect(expected.keys.filter { $0.hasSuffix("/manifest.json") }.count == 8)

        try await shards([[0, 1, 2, 3], [4, 5, 6, 7]], output: "two", in: folder)
        #expect(try Self.tree(folder.appendingPathComponent("two")) == expected)
        try await shards([[0, 1], [2, 3], [4, 5], [6, 7]], output: "four", in: folder)
        #expect(try Self.tree(folder.appendingPathComponent("four")) == expected)
        // Each shard's status carries the others' entries forward: all eight, each published.
        let status = try #require(SiteStatus.read(output: folder.appendingPathComponent("four")))
        #expect(status.animations.map(\.id) == (0..<8).map { "a\($0)" })
        #expect(status.animations.allSatisfy { $0.state == .ok && $0.lastGoodBuild != nil })
        // No staging folder is left behind by any of them.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("matsite-tmp") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("a shard rebuilt alone keeps the other animations' files as they are (same inodes)")
    func othersKept() async throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await cli.run(["build", "--quiet"], in: folder).status == 0)
        let poster = folder.appendingPathComponent("site/a5/poster.png").path
        let before = try #require(try FileManager.default.attributesOfItem(atPath: poster)[.systemFileNumber] as? Int)
        // A title change in a0 only: a shard of a0 republishes a0's pages and the index.
        let changed = Self.config.replacingOccurrences(of: "title: Loop 0\n", with: "title: Loop zero\n")
        try Data(changed.utf8).write(to: folder.appendingPathComponent("matsite.yml"))
        let shard = try await cli.run(["build", "--only", "a0", "--quiet"], in: folder)
        #expect(shard.status == 0, "\(shard.stderr)")
        let after = try #require(try FileManager.default.attributesOfItem(atPath: poster)[.systemFileNumber] as? Int)
        #expect(before == after)
        let index = try String(contentsOf: folder.appendingPathComponent("site/index.html"), encoding: .utf8)
        #expect(index.contains("Loop zero") && index.contains("Loop 7"))
    }

    @Test("--only with an id the config lacks exits 2 naming it and the ids there are, and writes nothing")
    func unknownId() async throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await cli.run(["build", "--only", "a1,radar"], in: folder)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--only names radar"), "\(result.stderr)")
        #expect(result.stderr.contains("ids: a0, a1"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
    }
}
