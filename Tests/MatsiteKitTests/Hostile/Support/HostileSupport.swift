// Helpers shared by the hostile-input tests: scratch folders, tiles, builds from YAML,
// snapshots of a published site (every file with its SHA-256) and the manifests' own
// promise (every frame listed exists with its bytes and hash).

import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

enum Hostile {
    /// The package root, found from this file's path (tests cannot declare resources
    /// without changing Package.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/MatsiteKitTests/Hostile`.
    static let folder = packageRoot.appendingPathComponent("Tests/MatsiteKitTests/Hostile")

    /// The debug CLI that `swift build --build-tests` leaves behind.
    static var cli: URL? {
        let url = packageRoot.appendingPathComponent(".build/debug/matsite")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// A fresh folder under the system's temporary folder.
    static func scratch(_ name: String = #function) throws -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }.prefix(40)
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("matsite-hostile-\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// A 256 px palette tile whose picture depends on `seed`, so every tile differs.
    static func tile(seed: Int, size: Int = 256) throws -> [UInt8] {
        var rgba: [UInt8] = []
        for i in 0..<8 { rgba += [UInt8((i * 37 + seed * 11) & 0xFF), UInt8((i * 91) & 0xFF), UInt8((seed * 53) & 0xFF), i == 0 ? 0 : 255] }
        let palette = Palette(rgba: rgba)
        var pixels = [UInt8](repeating: 0, count: size * size)
        for y in 0..<size {
            for x in 0..<size { pixels[y * size + x] = UInt8(((x / 16) + (y / 16) + seed) % 8) }
        }
        return try PNGWriter.encode(width: size, height: size, format: .indexed(palette), pixels: pixels)
    }

    /// Parses YAML text into a config whose relative paths resolve in `directory`.
    static func config(_ yaml: String, in directory: URL) throws -> SiteConfig {
        var config = try ConfigLoader.parse(Data(yaml.utf8), file: "hostile.yml")
        config.directory = directory
        return config
    }

    /// Builds without the tile cache (tests must not feed each other).
    @discardableResult
    static func build(_ config: SiteConfig, output: URL) async throws -> BuildSummary {
        var options = BuildOptions()
        options.output = output.path
        options.useCache = false
        options.lockWait = TestSite.lockWait
        return try await Builder(config: config, options: options).run()
    }

    /// Every regular file under `root` by relative path, with its SHA-256; symlinks are
    /// listed as `-> target` so that a planted link shows as a difference.
    static func snapshot(_ root: URL) -> [String: String] {
        var out: [String: String] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return out }
        for case let relative as String in walker {
            // The builds' report (status.json) is rewritten by every build that publishes:
            // not site content.
            if relative == SiteStatus.file { continue }
            let path = root.appendingPathComponent(relative).path
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                out[relative] = FileManager.default.contents(atPath: path).map { SHA256.hex(of: [UInt8]($0)) } ?? "unreadable"
            case S_IFLNK:
                out[relative] = "-> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
            default:
                continue
            }
        }
        return out
    }

    /// The frame files of one animation (name -> SHA-256).
    static func frames(_ site: URL, animation: String) -> [String: String] {
        snapshot(site.appendingPathComponent(animation).appendingPathComponent("frames"))
    }

    /// Problems with a published site judged by its own manifests: every animation listed,
    /// every frame listed exists with its size and SHA-256, the poster exists. Empty when
    /// the site is complete.
    static func manifestProblems(_ site: URL) -> [String] {
        func json(_ url: URL) -> [String: Any]? {
            guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
            return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        }
        guard let index = json(site.appendingPathComponent("manifest.json")) else { return ["no readable manifest.json"] }
        guard let animations = index["animations"] as? [[String: Any]], !animations.isEmpty else { return ["no animations listed"] }
        var problems: [String] = []
        for entry in animations {
            guard let id = entry["id"] as? String else { problems.append("an animation without id"); continue }
            for key in ["page", "embed", "manifest", "poster"] {
                guard let relative = entry[key] as? String else { problems.append("\(id): no \(key)"); continue }
                if !FileManager.default.fileExists(atPath: site.appendingPathComponent(relative).path) {
                    problems.append("\(id): \(key) \(relative) missing")
                }
            }
            guard let manifest = json(site.appendingPathComponent(id).appendingPathComponent("manifest.json")),
                let frames = manifest["frames"] as? [[String: Any]], !frames.isEmpty
            else {
                problems.append("\(id): no readable manifest with frames"); continue
            }
            for frame in frames {
                guard let url = frame["url"] as? String, let sha = frame["sha256"] as? String, let bytes = frame["bytes"] as? Int else {
                    problems.append("\(id): a frame entry lacks url/sha256/bytes"); continue
                }
                guard let data = FileManager.default.contents(atPath: site.appendingPathComponent(id).appendingPathComponent(url).path) else {
                    problems.append("\(id): \(url) missing"); continue
                }
                if data.count != bytes { problems.append("\(id): \(url) has \(data.count) bytes, manifest says \(bytes)") }
                if SHA256.hex(of: [UInt8](data)) != sha { problems.append("\(id): \(url) does not match its sha256") }
            }
        }
        return problems
    }

    /// Names in `parent` other than `keep` (staging or old folders left behind).
    static func leftovers(beside output: URL, keep: Set<String> = []) -> [String] {
        let parent = output.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        let lock = ".\(output.lastPathComponent).matsite-lock"
        return names.filter { $0 != output.lastPathComponent && $0 != lock && !keep.contains($0) }.sorted()
    }

    /// A small demo-source config (offline): `frames` frames over a small box.
    static func demoYAML(
        title: String = "Hostile demo", frames: Int = 3, zoom: Int = 4,
        attribution: String = "Demo radar", extra: String = ""
    ) -> String {
        """
        title: \(yamlQuoted(title))
        \(extra)
        animations:
          - id: radar
            title: \(yamlQuoted(title))
            bbox: [-95.5, 29.0, -74.5, 43.5]
            zoom: \(zoom)
            attribution: \(yamlQuoted(attribution))
            source: { demo: radar }
            frames: { count: \(frames) }
        """
    }

    /// A double-quoted YAML scalar.
    static func yamlQuoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Runs a program to its end, with a time limit. Returns exit status, stdout, stderr.
    static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil,
        timeout: Double = 60
    ) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read while it runs so a chatty child never blocks on a full pipe.
        let outData = LockedBox(Data()), errData = LockedBox(Data())
        let readers = DispatchGroup()
        for (pipe, sink) in [(out, outData), (err, errData)] {
            readers.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.withLock { $0 = data }
                readers.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        readers.wait()
        return (
            process.terminationStatus,
            String(decoding: outData.withLock { $0 }, as: UTF8.self),
            String(decoding: errData.withLock { $0 }, as: UTF8.self)
        )
    }
}

extension BuildError {
    /// The failed tiles, when this is `.tilesFailed`.
    var failedTiles: [FailedTile]? {
        if case .tilesFailed(let tiles) = self { return tiles }
        return nil
    }

    var isDeadline: Bool {
        if case .deadline = self { return true }
        return false
    }
}
