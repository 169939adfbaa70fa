// Inputs that once broke a parser (found by scripts/fuzz.sh or by hand), kept so they
// never break it again: each file under Hostile/FuzzRegressions/<target>/ goes through
// the same call as the fuzz target, plus the specific findings below.

import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

struct RegressionInput: Sendable, CustomStringConvertible {
    let file: URL
    var description: String { file.pathComponents.suffix(2).joined(separator: "/") }

    static func all(_ target: String) -> [RegressionInput] {
        let folder = Hostile.folder.appendingPathComponent("FuzzRegressions").appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().map { RegressionInput(file: folder.appendingPathComponent($0)) }
    }
}

@Suite("Fuzz regressions: inputs that once broke a parser")
struct FuzzRegressionTests {
    @Test("kept PNG inputs decode or fail cleanly", arguments: RegressionInput.all("png"))
    func pngInput(_ input: RegressionInput) throws {
        let bytes = try [UInt8](Data(contentsOf: input.file))
        let decoder = PNGDecoder(maxWidth: 1024, maxHeight: 1024)
        if let info = try? decoder.info(of: bytes) {
            if let image = try? decoder.decode(bytes, keepIndices: false) {
                #expect(image.pixels.count == info.width * info.height * 4)
            }
            _ = try? decoder.decode(bytes, keepIndices: true)
        }
    }

    @Test("kept WebP inputs decode or fail cleanly; a WebP whose header says no alpha decodes opaque", arguments: RegressionInput.all("webp"))
    func webpInput(_ input: RegressionInput) throws {
        let bytes = try [UInt8](Data(contentsOf: input.file))
        let decoder = WebPDecoder(maxWidth: 1024, maxHeight: 1024)
        guard let info = try? decoder.info(of: bytes), let image = try? decoder.decode(bytes) else { return }
        #expect(image.pixels.count == info.width * info.height * 4)
        if !info.hasAlpha {
            // (vp8l-alpha-in-data-not-in-header: a lossless bitstream with alpha values whose
            // header says none; libwebp decoded them as they were.)
            #expect(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
        }
    }

    @Test("kept config inputs load or fail with a ConfigError", arguments: RegressionInput.all("config"))
    func configInput(_ input: RegressionInput) throws {
        let data = try Data(contentsOf: input.file)
        let started = ContinuousClock.now
        do { _ = try ConfigLoader.parse(data, file: input.file.lastPathComponent) } catch is ConfigError {}
        // The fuzzer's timeouts were exponential alias expansions: a config must load fast.
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test("an http header value with CRLF is refused (\"\\r\\n\" is one Swift Character, equal to neither \\r nor \\n)")
    func headerValueWithCRLFIsRefused() throws {
        for value in ["a\\r\\nHost: evil.example", "a\\rb", "a\\nb", "a\\u0007b"] {
            let yaml = """
                http: { headers: { X-Evil: "\(value)" } }
                animations:
                  - { id: a, bbox: [0, 0, 10, 10], zoom: 3, source: { demo: radar }, frames: { count: 1 } }
                """
            let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(Data(yaml.utf8), file: "h.yml") }
            #expect(error?.keyPath == "http.headers.X-Evil", "\(value)")
            #expect(error?.line == 1)
        }
    }

    @Test("a control character in the YAML names its line")
    func controlCharacterNamesItsLine() throws {
        let yaml = "title: ok\ntitle2: a\u{1}b\n"
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(Data(yaml.utf8), file: "c.yml") }
        #expect(error?.line == 2, "\(String(describing: error))")
    }

    @Test("a tile cut inside IDAT fails every time without growing memory (the shim's row array is freed)")
    func truncatedTileFailsRepeatedly() throws {
        let tile = try Hostile.tile(seed: 5)
        let cut = TestServer.truncatingFirstIDAT(of: tile)
        for _ in 0..<200 {
            #expect(throws: PNGError.self) { try PNGDecoder().decode(cut, keepIndices: false) }
        }
    }
}
