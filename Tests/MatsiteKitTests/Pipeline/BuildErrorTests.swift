import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// Every failure of a build names its stage once, keeps the error underneath, and reads
/// as before to the user.
@Suite("Build errors")
struct BuildErrorTests {
    static let demo = """
          - id: demo
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 3
            fallback: { levels: 0 }
            source: { demo: radar }
            frames: { count: 3 }
        """

    @Test("stamping wraps an error with its stage and keeps it; a BuildError, a ConfigError or a cancellation passes as it is")
    func stamping() {
        let cause = SystemCallError("cannot write /x", call: "open", errno: ENOSPC)
        let stamped = BuildError.stamping(cause, with: .publish)
        let build = stamped as? BuildError
        #expect(build?.failedStage == .publish)
        #expect((build?.underlying as? SystemCallError)?.errno == ENOSPC)
        #expect("\(stamped)" == "publish: cannot write /x: \(String(cString: strerror(ENOSPC)))")
        #expect((BuildError.stamping(BuildError.deadline(5), with: .plan) as? BuildError)?.failedStage == nil)
        let config = ConfigError(file: "matsite.yml", line: 3, keyPath: "zoom", message: "must be from 0 to 22")
        #expect(BuildError.stamping(config, with: .plan) is ConfigError)
        #expect(BuildError.stamping(CancellationError(), with: .stitch) is CancellationError)
    }

    @Test("each stage reads as its name; matsite init's is init")
    func stageNames() {
        #expect(BuildStage.allCases.map(\.description) == ["config", "plan", "fetch", "stitch", "publish", "pages", "init"])
    }

    @Test("a PNG error reaching the build is stamped with the stitch stage and keeps libpng's words")
    func pngErrorHasAStage() {
        let error = BuildError.stamping(PNGError(.encode, "row too short"), with: .stitch)
        #expect("\(error)" == "stitch: PNG encode failed: row too short")
        #expect((error as? BuildError)?.underlying is PNGError)
    }

    @Test("a Foundation error reads in words, not as a debugging dump")
    func foundationErrorInWords() {
        let error = BuildError.stage(.publish, CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "/nowhere/x"]))
        #expect(!"\(error)".contains("Domain="))
        #expect("\(error)".hasPrefix("publish: "))
    }

    @Test("capabilities that cannot be had fail the plan stage, naming the URL")
    func planStage() async throws {
        let site = try TestSite()
        defer { site.remove() }
        try await withTestServer { server in
            server.route(prefix: "/caps", .status(404))
            let yaml = site.yaml(
                """
                  - id: w
                    bbox: [-10.0, 40.0, 10.0, 52.0]
                    zoom: 3
                    source: { wmts: { capabilities: "\(server.url("/caps.xml"))", layer: radar } }
                    frames: { latest: 2 }
                """)
            let error = await #expect(throws: BuildError.self) { try await site.build(yaml) }
            #expect(error?.failedStage == .plan)
            #expect(error?.description.hasPrefix("plan: capabilities: ") == true, "\(String(describing: error))")
            #expect(error?.description.contains("/caps.xml") == true)
            #expect(error?.underlying is CapabilitiesFetchError)
        }
    }

    @Test("a templates folder that does not exist fails the pages stage and names the folder")
    func pagesStage() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let missing = site.root.appendingPathComponent("no-templates")
        let yaml = site.yaml(Self.demo).replacingOccurrences(of: "animations:", with: "templates: \(missing.path)\nanimations:")
        let error = await #expect(throws: BuildError.self) { try await site.build(yaml) }
        #expect(error?.failedStage == .pages)
        #expect(error?.description == "pages: the templates folder \(missing.path) does not exist (config key templates)")
        #expect(error?.underlying as? PageTemplateError == .folderMissing(missing.path))
    }

    @Test("a lock file that cannot be opened fails the publish stage with the path and errno")
    func lockFileErrno() async throws {
        let site = try TestSite()
        defer { site.remove() }
        // A folder where the lock file goes: open(2) says EISDIR.
        let lock = site.root.appendingPathComponent(".site.matsite-lock")
        try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: true)
        let error = await #expect(throws: BuildError.self) { try await site.build(site.yaml(Self.demo)) }
        #expect(error?.failedStage == .publish)
        let cause = try #require(error?.underlying as? SystemCallError)
        #expect(cause.errno == EISDIR && cause.call == "open")
        #expect(error?.description == "publish: cannot open the lock file \(lock.path): \(String(cString: strerror(EISDIR)))")
    }
}
