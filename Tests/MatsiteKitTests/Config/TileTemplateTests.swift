import Testing

@testable import MatsiteKit

@Suite("TileTemplate")
struct TileTemplateTests {
    @Test("every placeholder is filled; {-y} is the TMS row")
    func expand() throws {
        let template = try TileTemplate("https://{s}.example.org/{time}/{frame}/{z}/{x}/{y}/{-y}.png")
        #expect(
            template.expand(z: 7, x: 30, y: 46, subdomain: "b", time: "202611211000", frame: 3)
                == "https://b.example.org/202611211000/3/7/30/46/81.png")
        #expect(template.placeholders == [.s, .time, .frame, .z, .x, .y, .minusY])
        #expect(template.addressesTiles)
    }

    @Test("expandFrame fills {time} and {frame} and leaves the tile placeholders for the player")
    func expandFrame() throws {
        let template = try TileTemplate("https://{s}.example.org/{time}/{frame}/{z}/{x}/{-y}.png")
        #expect(template.expandFrame(time: "t1", frame: 2) == "https://{s}.example.org/t1/2/{z}/{x}/{-y}.png")
    }

    @Test("an unknown placeholder is named with the known ones")
    func unknown() {
        let error = #expect(throws: TemplateError.self) { try TileTemplate("https://a/{zoom}/{x}/{y}.png") }
        #expect(error?.description.contains("unknown placeholder {zoom}") == true)
        #expect(error?.description.contains("{-y}") == true)
    }

    @Test("an unclosed brace is an error")
    func unclosed() {
        #expect(throws: TemplateError.self) { try TileTemplate("https://a/{z/{x}/{y}.png") }
    }

    @Test("a template without a row or column does not address tiles")
    func notTiles() throws {
        #expect(try !TileTemplate("https://a/{z}/{x}.png").addressesTiles)
        #expect(try TileTemplate("https://a/{z}/{x}/{-y}.png").addressesTiles)
        #expect(try TileTemplate("literal text").placeholders.isEmpty)
    }
}
