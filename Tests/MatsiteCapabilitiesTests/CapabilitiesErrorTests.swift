import Testing

@testable import MatsiteCapabilities

@Suite("Capabilities errors")
struct CapabilitiesErrorTests {
    private func text(_ reason: CapabilitiesError.Reason) -> String {
        CapabilitiesError(url: "https://x/wmts.xml", reason: reason).description
    }

    @Test("every message names the URL and says what is wrong")
    func messages() {
        #expect(
            text(.noWebMercatorSet(layer: "foo", sets: ["EPSG:4326", "UTM32"]))
                == "capabilities at https://x/wmts.xml: layer \"foo\" has no tile matrix set in Web Mercator (it has: EPSG:4326, UTM32)")
        #expect(
            text(.noWebMercatorSet(layer: "foo", sets: []))
                == "capabilities at https://x/wmts.xml: layer \"foo\" has no tile matrix set in Web Mercator (it has none)")
        #expect(
            text(.tooLarge(bytes: 20_000_000, limit: 16_777_216))
                == "capabilities at https://x/wmts.xml: the document is 20000000 bytes, more than the limit of 16777216 bytes")
        #expect(
            text(.malformed(line: 3, column: 7, message: "Premature end of data in tag Layer line 2", truncated: true))
                == "capabilities at https://x/wmts.xml: not well-formed XML at line 3, column 7: Premature end of data in tag Layer line 2 (the document looks truncated)"
        )
        #expect(
            text(.noTimeDimension(layer: "base"))
                == "capabilities at https://x/wmts.xml: layer \"base\" has no time dimension, but frames ask for times")
        #expect(
            text(.time(layer: "radar", .continuous(interval: "a/b")))
                == "capabilities at https://x/wmts.xml: layer \"radar\": the time interval a/b has no period, so it has no list of times; use frames.range with a step"
        )
        #expect(text(.empty) == "capabilities at https://x/wmts.xml: the response is empty")
    }

    @Test("long lists are cut with a count")
    func longLists() {
        let names = (1...20).map { "layer\($0)" }
        #expect(text(.unknownLayer("x", known: names)).hasSuffix("layer11, layer12, ... (20 in all))"))
    }
}
