import Foundation
import Testing

@testable import MatsiteKit

/// The hand-written JSON of the point levels reads back as what was written.
@Suite("JSONBytes")
struct JSONBytesTests {
    @Test("numbers, fixed decimals and escaped strings read back exactly")
    func roundTrip() throws {
        let ints = [0, 7, 10, 99, 1_000_000, -1, -42, Int(Int32.max)]
        let doubles = [0, 1.5, -1.5, 0.00001, -179.99999, 85.05113, 12.3456789, -0.000001, 1e6]
        let strings: [String?] = ["plain", "quote \" back \\ slash", "<script>&</script>", "tab\tline\nend", "\u{1}\u{1F}", "é ✓ 雨", nil]
        var json = JSONBytes()
        json.raw("{")
        json.column("i", ints) { $0.int($1) }
        json.raw(",")
        json.column("d", doubles) { $0.fixed($1) }
        json.raw(",")
        json.column("s", strings) { $0.string($1) }
        json.raw("}")
        let text = String(decoding: json.bytes, as: UTF8.self)
        #expect(!text.contains("<") && !text.contains(">"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any])
        #expect(object["i"] as? [Int] == ints)
        let read = try #require(object["d"] as? [Double])
        #expect(zip(read, doubles).allSatisfy { abs($0 - ($1 * 1e5).rounded() / 1e5) < 1e-9 }, "\(read)")
        let back = try #require(object["s"] as? [Any])
        #expect(back.prefix(6).map { $0 as? String } == strings.prefix(6).map { $0 })
        #expect(back[6] is NSNull)
    }

    @Test("a counting writer counts exactly the bytes a writer writes")
    func counting() {
        func write(_ json: inout JSONBytes) {
            json.raw("{\"zoom\":")
            json.int(12)
            json.raw(",")
            json.column("i", [0, 7, 10, 99, 100, 1_000_000, -1, -42, Int(Int32.max)]) { $0.int($1) }
            json.raw(",")
            json.column("d", [0, 1.5, -1.5, 0.00001, -179.99999, 85.05113, 12.3456789, -0.000001, 1e6]) { $0.fixed($1) }
            json.raw(",")
            json.column("s", ["plain", "quote \" \\", "<b>", "tab\tline\n", "\u{1}", "é ✓ 雨", nil]) { $0.string($1) }
            json.raw("}\n")
        }
        var bytes = JSONBytes()
        var counted = JSONBytes(counting: true)
        write(&bytes)
        write(&counted)
        #expect(counted.bytes.isEmpty)
        #expect(counted.count == bytes.bytes.count && bytes.count == bytes.bytes.count)
        #expect(String(decoding: bytes.bytes, as: UTF8.self).contains("\"i\":[0,7,10,99,100,1000000,-1,-42,2147483647]"))
    }
}
