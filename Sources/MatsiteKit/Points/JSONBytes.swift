/// A JSON document written straight into bytes: the point levels hold millions of numbers,
/// which `JSONEncoder` (and `String(describing:)` per number) would make many times slower.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []
    /// Counting only: the bytes are counted, not kept (a document's size, learnt without
    /// holding it).
    private let counting: Bool
    private var counted = 0

    init(capacity: Int = 0) {
        counting = false
        bytes.reserveCapacity(capacity)
    }

    /// A writer that only counts the bytes it is given.
    init(counting: Bool) {
        self.counting = counting
    }

    /// How many bytes were written (or counted).
    var count: Int { counting ? counted : bytes.count }

    mutating func raw(_ text: String) {
        if counting { counted += text.utf8.count } else { bytes.append(contentsOf: text.utf8) }
    }

    mutating func byte(_ b: UInt8) {
        if counting { counted += 1 } else { bytes.append(b) }
    }

    /// A whole number, its digits written first to last (no slice of the bytes is taken:
    /// turning digits around in place costs a copy check per number, millions a level).
    mutating func int(_ value: Int) {
        // Int.min never occurs here (counts, indices, zooms).
        var v = value
        if v < 0 {
            byte(0x2D)
            v = -v
        }
        var divisor = 1
        while divisor <= v / 10 { divisor *= 10 }
        while divisor > 0 {
            let digit = v / divisor
            byte(0x30 + UInt8(truncatingIfNeeded: digit))
            v -= digit * divisor
            divisor /= 10
        }
    }

    /// A number with at most `places` decimals, trailing zeros dropped (degrees to 1e-5 are
    /// about a metre: finer than a pixel at zoom 16).
    mutating func fixed(_ value: Double, places: Int = 5) {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        var scaled = Int((value * Double(scale)).rounded())
        if scaled < 0 {
            byte(0x2D)
            scaled = -scaled
        }
        int(scaled / scale)
        var fraction = scaled % scale
        guard fraction != 0 else { return }
        var places = places
        while fraction % 10 == 0 {
            fraction /= 10
            places -= 1
            scale /= 10
        }
        byte(0x2E)
        var divisor = scale / 10
        while divisor > 0 {
            byte(0x30 + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }

    /// A JSON string (or null); `<` and `>` are escaped too, so the text can never close a
    /// script element wherever it ends up.
    mutating func string(_ text: String?) {
        guard let text else {
            raw("null")
            return
        }
        byte(0x22)
        for b in text.utf8 {
            switch b {
            case 0x22: raw("\\\"")
            case 0x5C: raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x3C: raw("\\u003c")
            case 0x3E: raw("\\u003e")
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                raw("\\u00")
                byte(hex[Int(b >> 4)])
                byte(hex[Int(b & 15)])
            default: byte(b)
            }
        }
        byte(0x22)
    }

    /// `"name":[v0,v1,...]` for a column of values.
    mutating func column<C: Collection>(_ name: String, _ values: C, _ write: (inout JSONBytes, C.Element) -> Void) {
        string(name)
        byte(0x3A)
        byte(0x5B)
        var first = true
        for value in values {
            if !first { byte(0x2C) }
            first = false
            write(&self, value)
        }
        byte(0x5D)
    }
}
