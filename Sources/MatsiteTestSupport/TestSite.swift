import Foundation
import MatsiteCapabilities
import MatsiteImaging
import MatsiteKit
import Testing

/// A throwaway project folder: a config written from YAML, builds run through `Builder`
/// exactly as the CLI runs them, and readers for what was published.
package final class TestSite: Sendable {
    /// The project folder (removed by `remove()`).
    package let root: URL
    /// Where builds publish.
    package var output: URL { root.appendingPathComponent("site") }

    /// `http.timeout_s` for tests whose server does answer: generous, never reached.
    package static let patientTimeout = 600
    /// `http.timeout_s` and `http.stall_s` at `patientTimeout`, for an `http:` mapping.
    package static let patientWaits = "timeout_s: \(patientTimeout), stall_s: \(patientTimeout)"
    /// How long a test build waits for another's lock: builds of one output in parallel
    /// tests take turns, however slowly a loaded machine runs them.
    package static let lockWait: Double = 600

    package init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    package func remove() {
        try? FileManager.default.removeItem(at: root)
    }

    /// A whole config: site keys that keep tests fast and local, then `animations`
    /// (YAML list items indented by two spaces).
    /// The default `http:` retries quickly but waits long for answers: a loaded CI machine
    /// must not turn a slow answer into a retry (tests count requests), so the wait is far
    /// beyond any answer's, and ends as soon as the answer comes.
    package func yaml(_ animations: String, http: String = "{ retry_delay_ms: 10, retries: 2, \(TestSite.patientWaits) }") -> String {
        """
        title: Test site
        output: \(output.path)
        cache: \(root.appendingPathComponent("cache").path)
        leaflet: /usr/share/javascript/leaflet
        http: \(http)
        animations:
        \(animations)
        """
    }

    /// Parses YAML as `matsite.yml` in this folder.
    package func config(_ yaml: String) throws -> SiteConfig {
        var config = try ConfigLoader.parse(Data(yaml.utf8), file: "matsite.yml")
        config.directory = root
        return config
    }

    /// Builds (without the tile cache, so every build really fetches); `at`: the build's
    /// clock (`--at`), which manifests say as `now`: builds compared file for file share one.
    @discardableResult
    package func build(_ yaml: String, at: TimeInstant? = nil, reporter: any BuildReporter = SilentReporter()) async throws -> BuildSummary {
        var options = BuildOptions()
        options.useCache = false
        options.lockWait = Self.lockWait
        options.at = at
        return try await Builder(config: config(yaml), options: options, reporter: reporter).run()
    }

    /// `site/<id>/manifest.json` as plain JSON (read as the player reads it, not through
    /// the pipeline's own types).
    package func manifest(_ id: String) throws -> [String: Any] {
        let data = try Data(contentsOf: output.appendingPathComponent(id).appendingPathComponent("manifest.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The manifest's frame entries.
    package func frames(_ id: String) throws -> [[String: Any]] {
        try #require(try manifest(id)["frames"] as? [[String: Any]])
    }

    /// A published frame's bytes.
    package func frameBytes(_ id: String, index: Int) throws -> [UInt8] {
        let entries = try frames(id)
        try #require(entries.indices.contains(index), "the manifest of \(id) lists \(entries.count) frame(s), not frame \(index)")
        let url = try #require(entries[index]["url"] as? String)
        return [UInt8](try Data(contentsOf: output.appendingPathComponent(id).appendingPathComponent(url)))
    }

    /// A published frame decoded to RGBA.
    package func frameRGBA(_ id: String, index: Int) throws -> DecodedImage {
        try PNGDecoder(maxWidth: 16384, maxHeight: 16384).decode(frameBytes(id, index: index), keepIndices: false)
    }

    /// Every file under the output folder by relative path, with the SHA-256 of its bytes,
    /// but the builds' report (`status.json`).
    package func fileHashes() throws -> [String: String] {
        var out: [String: String] = [:]
        let base = output.resolvingSymlinksInPath().path + "/"
        guard let walker = FileManager.default.enumerator(at: output, includingPropertiesForKeys: [.isRegularFileKey]) else { return out }
        for case let file as URL in walker where (try file.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            let path = file.resolvingSymlinksInPath().path
            let relative = String(path.dropFirst(base.count))
            // The builds' report (its clocks differ between two builds of the same site):
            // LiveOperationTests reads it.
            if relative == SiteStatus.file { continue }
            out[relative] = SHA256.hex(of: [UInt8](try Data(contentsOf: file)))
        }
        return out
    }

    /// Names in the project folder (to spot leftovers such as staging folders).
    package func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
    }
}

/// A reporter that keeps the events it is given, for assertions.
package final class RecordingReporter: BuildReporter, @unchecked Sendable {
    private let recorded = LockedBox([BuildEvent]())

    /// A reporter that has recorded nothing yet.
    package init() {}

    package var events: [BuildEvent] { recorded.withLock { $0 } }
    /// The warnings, in their words.
    package var warnings: [String] { events.compactMap { if case .warning(let warning) = $0 { warning.description } else { nil } } }
    package var stitchedFrames: [Int] {
        events.compactMap { if case .frameDone(_, let index, false) = $0 { index } else { nil } }.sorted()
    }
    package var pointLayers: [PointLayerReport] { events.compactMap { if case .pointLayerPublished(let report) = $0 { report } else { nil } } }
    package var levels: [LevelsReport] { events.compactMap { if case .levelsPublished(let report) = $0 { report } else { nil } } }
    package var reducedLevels: [ReducedLevelsReport] {
        events.compactMap { if case .reducedLevelsPublished(let report) = $0 { report } else { nil } }
    }
    package var exports: [ExportReport] { events.compactMap { if case .exported(let report) = $0 { report } else { nil } } }
    package var alerts: [LoopAlert] { events.compactMap { if case .alert(let alert) = $0 { alert } else { nil } } }

    package func report(_ event: BuildEvent) { recorded.withLock { $0.append(event) } }
}

/// Runs `body` with a fresh TestServer and stops the server however `body` ends.
package func withTestServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
    let server = try await TestServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// Checks the manifests' promise: every file they list exists, with its bytes and SHA-256,
/// under a name that is its content's.
package func expectValidSite(_ output: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("manifest.json"))) as? [String: Any])
    let animations = try #require(index["animations"] as? [[String: Any]])
    #expect(!animations.isEmpty, sourceLocation: sourceLocation)
    for animation in animations {
        for key in ["page", "embed", "manifest", "poster"] {
            let relative = try #require(animation[key] as? String)
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(relative).path), "\(relative)", sourceLocation: sourceLocation)
        }
        let id = try #require(animation["id"] as? String)
        let data = try Data(contentsOf: output.appendingPathComponent(id).appendingPathComponent("manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(manifest["frames"] as? [[String: Any]])
        #expect(!frames.isEmpty, sourceLocation: sourceLocation)
        for frame in frames {
            let url = try #require(frame["url"] as? String)
            let bytes = try [UInt8](Data(contentsOf: output.appendingPathComponent(id).appendingPathComponent(url)))
            #expect(bytes.count == frame["bytes"] as? Int, "\(id)/\(url) size", sourceLocation: sourceLocation)
            #expect(SHA256.hex(of: bytes) == frame["sha256"] as? String, "\(id)/\(url) sha256", sourceLocation: sourceLocation)
            // Named by its content only, never by its position.
            let named = "frames/\(SHA256.hex(of: bytes).prefix(16)).\((url as NSString).pathExtension)"
            #expect(url == named, "\(id)/\(url) is named by its content", sourceLocation: sourceLocation)
        }
    }
}
