// The broken-config corpus (Hostile/Configs/*.yml) through the real command line: each
// file's first line says where the error must point (`# expect: line N, key.path`); the
// CLI must exit 2 naming that line and key, never crash, and write nothing at all.

import Foundation
import Testing

@testable import MatsiteKit

struct BrokenConfig: Sendable, CustomStringConvertible {
    let file: URL
    let line: Int?
    let keyPath: String?
    var description: String { file.lastPathComponent }

    static let folder = Hostile.folder.appendingPathComponent("Configs")

    static var all: [BrokenConfig] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yml") }.sorted().map { name in
            let url = folder.appendingPathComponent(name)
            let data = FileManager.default.contents(atPath: url.path) ?? Data()
            let header = String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self)
            return BrokenConfig(file: url, header: header)
        }
    }

    /// Reads `# expect: line 7, animations[0].zoom`, `# expect: line 3` or `# expect: animations`.
    init(file: URL, header: String) {
        self.file = file
        var line: Int?
        var key: String?
        let body = header.replacingOccurrences(of: "# expect:", with: "")
        for part in body.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            if part.hasPrefix("line "), let number = Int(part.dropFirst(5)) { line = number } else { key = part }
        }
        self.line = line
        self.keyPath = key
    }
}

@Suite("Broken configs through the CLI: exit 2, the key and line named, nothing written")
struct BadConfigTests {
    @Test("the corpus holds at least 30 broken configs, each with its expectation")
    func corpusIsLargeEnough() {
        let corpus = BrokenConfig.all
        #expect(corpus.count >= 30)
        for config in corpus {
            #expect(config.line != nil || config.keyPath != nil, "\(config) has no '# expect:' header")
        }
    }

    @Test(
        "a broken config exits 2 naming its line and key, writes nothing, does not crash",
        arguments: BrokenConfig.all)
    func brokenConfigIsRefused(_ config: BrokenConfig) throws {
        let cli = try #require(Hostile.cli, "build the CLI first: swift build")
        let scratch = try Hostile.scratch("badconfig")
        defer { Hostile.remove(scratch) }
        let output = scratch.appendingPathComponent("site")
        let result = try Hostile.run(
            cli, ["build", "--config", config.file.path, "--output", output.path],
            in: scratch, timeout: 30)
        #expect(result.status == 2, "exit \(result.status); stderr: \(result.err)")
        let message = result.err
        #expect(message.contains("error: \(config.file.path)"), "the file is not named: \(message)")
        if let line = config.line {
            #expect(message.contains("\(config.file.path):\(line):"), "line \(line) not named: \(message)")
        }
        if let key = config.keyPath {
            #expect(message.contains(key), "key \(key) not named: \(message)")
        }
        #expect(!message.contains("Fatal error") && !message.contains("Crash") && !message.contains("backtrace"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(
            ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []).isEmpty,
            "something was written beside the output")
    }

    @Test("a tab in the indentation is called a tab, wherever libyaml stops at it", arguments: ["yaml-tab-indentation.yml", "yaml-tab-list-item.yml"])
    func tabSaysTab(_ name: String) throws {
        let file = BrokenConfig.folder.appendingPathComponent(name)
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(file: file) }
        #expect(error?.message.hasPrefix("a tab in the indentation (column 1): YAML indents with spaces only") == true, "\(String(describing: error))")
    }
}
