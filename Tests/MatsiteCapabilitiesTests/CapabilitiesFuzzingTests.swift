import Testing

@testable import MatsiteCapabilities

@Suite("Mangled documents")
struct CapabilitiesFuzzingTests {
    /// A small deterministic generator (xorshift) so failures reproduce.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
    }

    static let fixtures = [
        "matsite-wmts-time.xml", "matsite-wms-111-nested.xml", "owslib/sfs-wmts-cap-world.xml",
        "owslib/wms_mesonet-caps.xml", "owslib/wms_mesonet-caps-130.xml", "matsite-wms-130-runs.xml",
        "matsite-wmts-runs.xml",
    ]

    static let splices: [String] = [
        "<!ENTITY x \"y\">", "&x;", "<!DOCTYPE a SYSTEM \"http://127.0.0.1:1/x.dtd\">", "]]>", "<![CDATA[",
        "P0D", "PT0S", "/present/PT1S", "9999-12-31T23:59:59Z", "0001-01-01", "P99999Y", "<Value>", "</Layer>",
        "{Time}", "{", "\u{0}", "\u{FFFD}", "EPSG:3857", "-1e308", "nan", ",,,,", "/", "<Layer><Layer><Layer>",
    ]

    @Test("every fixture survives hundreds of random mutations: errors, never crashes", arguments: fixtures)
    func mutations(name: String) throws {
        let original = try #require(Fixtures.bytes(name))
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15 ^ UInt64(name.utf8.count))
        var resolvedSomething = false
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<(1 + generator.below(4)) {
                let position = generator.below(bytes.count)
                switch generator.below(4) {
                case 0:
                    bytes[position] ^= UInt8(1 << generator.below(8))
                case 1:
                    bytes.removeSubrange(position..<min(bytes.count, position + generator.below(64)))
                case 2:
                    let splice = Array(Self.splices[generator.below(Self.splices.count)].utf8)
                    bytes.insert(contentsOf: splice, at: position)
                default:
                    bytes = Array(bytes.prefix(position))
                }
                if bytes.isEmpty { bytes = [0x3C] }
            }
            if CapabilitiesFuzzing.exercise(bytes) > 0 { resolvedSomething = true }
        }
        // The unmutated document resolves, so the harness really walks the resolvers.
        #expect(CapabilitiesFuzzing.exercise(original) > 0)
        _ = resolvedSomething
    }

    @Test(
        "odd time values parse or fail cleanly",
        arguments: [
            "0001-01-01/9999-12-31/PT0.001S", "2026-01-31/2026-12-31/P1M1D", "2026/2027/P1Y", "2026-11-21T10:00Z/now/PT1M",
            "/", "//", "2026-11-21//P1D", "P1D", ",", "2026-11-21T10:00:00.9999999999Z", "1970-01-01/1970-01-01/PT1H",
        ])
    func timeValues(value: String) {
        CapabilitiesFuzzing.exerciseTime(value: value)
    }
}
