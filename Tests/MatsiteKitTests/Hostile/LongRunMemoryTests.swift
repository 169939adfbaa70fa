import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// A cron job runs matsite for months: failing inputs must not make memory grow. These
/// repeat failures many times in one process and compare resident memory after a warm-up
/// with resident memory at the end. Other suites run in the same process at the same time,
/// so the bounds are wide; the loops are long enough that a leak still crosses them (the
/// row array the C shim once lost on every damaged tile, ~2 KB a decode, makes 200 MB here).
@Suite("Long runs: failing inputs leave memory flat", .serialized)
struct LongRunMemoryTests {
    /// Resident set size from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    @Test("200,000 decodes of damaged tiles (truncated IDAT, bad CRC) leave resident memory flat")
    func damagedDecodes() throws {
        let good = try Hostile.tile(seed: 3)
        let damaged = [TestServer.truncatingFirstIDAT(of: good), TestServer.corruptingFirstCRC(of: good)]
        let decoder = PNGDecoder()
        func round() -> Int {
            var failures = 0
            for bytes in damaged {
                do { _ = try decoder.decode(bytes, keepIndices: false) } catch { failures += 1 }
            }
            return failures
        }
        for _ in 0..<500 { _ = round() }
        let before = Self.residentBytes()
        var failures = 0
        for _ in 0..<100_000 { failures += round() }
        let growth = Self.residentBytes() - before
        #expect(failures == 200_000)
        #expect(growth < 64 << 20, "resident memory grew by \(growth) bytes over 200,000 failed decodes")
    }

    @Test("40 failing builds in one process (server errors, resets, damaged tiles) leave resident memory flat")
    func failingBuilds() async throws {
        let root = try Hostile.scratch("longrun")
        defer { Hostile.remove(root) }
        try await withTestServer { server in
            let good = try Hostile.tile(seed: 5)
            server.route(prefix: "/t/", .ok(good, contentType: "image/png"))
            server.route("/t/2/1/1.png", .status(503))
            server.route("/t/2/2/1.png", .resetMidBody(good, contentType: "image/png"))
            server.route("/t/2/1/2.png", .pngWithTruncatedIDAT(good))
            let yaml = """
                animations:
                  - id: fails
                    bbox: [-80.0, -30.0, 80.0, 30.0]
                    zoom: 2
                    fallback: { levels: 0 }
                    source: { url: "\(server.url("/t/{z}/{x}/{y}.png"))" }
                    frames: { count: 2 }
                http: { retries: 0, timeout_s: 20 }
                """
            let config = try Hostile.config(yaml, in: root)
            func failOnce() async -> Bool {
                do {
                    try await Hostile.build(config, output: root.appendingPathComponent("site"))
                    return false
                } catch BuildError.tilesFailed(let tiles) {
                    // The 503 and the reset, in both frames (a frame with fetch failures
                    // is not stitched, so its truncated tile is never decoded).
                    if tiles.count != 4 { Issue.record("\(tiles.count) failed tiles: \(tiles)") }
                    return tiles.count == 4
                } catch {
                    Issue.record("unexpected: \(error)")
                    return false
                }
            }
            for _ in 0..<8 { _ = await failOnce() }
            let before = Self.residentBytes()
            var failed = 0
            for _ in 0..<40 where await failOnce() { failed += 1 }
            let growth = Self.residentBytes() - before
            #expect(failed == 40)
            #expect(growth < 96 << 20, "resident memory grew by \(growth) bytes over 40 failing builds")
        }
    }
}
