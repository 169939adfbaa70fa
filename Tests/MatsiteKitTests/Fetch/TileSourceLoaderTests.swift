import Foundation
import Testing

@testable import MatsiteKit

/// What each kind of answer becomes: a tile, "no tile here", or a failure with its cause.
@Suite("TileSourceLoader")
struct TileSourceLoaderTests {
    static let png: [UInt8] = (try? FormulaTiles.tile(z: 0, x: 0, y: 0, size: 16)) ?? []

    func load(_ behaviour: TestServer.Behaviour, path: String = "/t.png") async throws -> TileOutcome {
        try await withTestServer { server in
            server.route(path, behaviour)
            var options = SiteConfig().http
            options.retries = 1
            options.retryDelayMilliseconds = 10
            options.timeoutSeconds = Double(TestSite.patientTimeout)
            options.stallSeconds = options.timeoutSeconds
            let fetcher = HTTPFetcher(options: options)
            let outcome = await TileSourceLoader(fetcher: fetcher).load(.http(server.url(path)))
            await fetcher.shutdown()
            return outcome
        }
    }

    func reason(_ outcome: TileOutcome) -> String {
        switch outcome {
        case .tile: "tile"
        case .problem(let problem): problem.isNotFound ? "absent: \(problem)" : "failed: \(problem)"
        }
    }

    @Test("a PNG with status 200 is a tile, byte for byte")
    func tile() async throws {
        guard case .tile(let bytes, _) = try await load(.ok(Self.png, contentType: "image/png")) else {
            Issue.record("not a tile"); return
        }
        #expect(bytes == Self.png)
    }

    @Test("204 and 404 mean no tile here", arguments: [204, 404])
    func absent(status: Int) async throws {
        let outcome = reason(try await load(.status(status)))
        #expect(outcome.hasPrefix("absent: ") && outcome.contains("\(status)"), "\(outcome)")
    }

    @Test("401 and 403 fail saying access was refused", arguments: [401, 403])
    func refused(status: Int) async throws {
        let outcome = reason(try await load(.status(status)))
        #expect(outcome.hasPrefix("failed: access refused (HTTP \(status))"), "\(outcome)")
    }

    @Test("an HTML page with status 200 fails with its text, not its doctype")
    func htmlPage() async throws {
        let outcome = reason(try await load(.htmlErrorPage("<!DOCTYPE html>\n<html><body>Quota exceeded</body></html>\n")))
        #expect(outcome.hasPrefix("failed: an HTML page") && outcome.contains("\"Quota exceeded\""), "\(outcome)")
    }

    @Test("an XML error document fails, named as XML")
    func xml() async throws {
        let outcome = reason(try await load(.text("<?xml version=\"1.0\"?><Error>No such layer</Error>", contentType: "application/xml")))
        #expect(outcome.hasPrefix("failed: an XML document"), "\(outcome)")
    }

    @Test("a JPEG is a tile: known by its bytes, decoded (or refused) by the stitcher")
    func jpeg() async throws {
        let outcome = reason(try await load(.ok([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46], contentType: "image/jpeg")))
        #expect(outcome == "tile", "\(outcome)")
    }

    @Test("an empty 200 body fails as empty")
    func emptyBody() async throws {
        let outcome = reason(try await load(.ok([], contentType: "image/png")))
        #expect(outcome.contains("empty"), "\(outcome)")
    }

    @Test("a 418 (not retried, not absent) fails with its status and the start of its body, on one line")
    func otherStatus() async throws {
        let outcome = reason(try await load(.status(418, body: "I'm a teapot\nreally\n")))
        #expect(outcome == "failed: HTTP 418: \"I'm a teapot really\"", "\(outcome)")
    }

    @Test("files: present is a tile, missing is absent, not a PNG fails")
    func files() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.png"), bad = folder.appendingPathComponent("bad.png")
        try Data(Self.png).write(to: good)
        try Data("<html>oops</html>".utf8).write(to: bad)
        let loader = TileSourceLoader(fetcher: nil)
        #expect(reason(await loader.load(.file(good.path))) == "tile")
        #expect(reason(await loader.load(.file(folder.appendingPathComponent("none.png").path))).hasPrefix("absent: "))
        #expect(reason(await loader.load(.file(bad.path))).hasPrefix("failed: an HTML page"))
    }
}
