/// A JSON document written straight into bytes: the point levels hold millions of numbers,
/// which `JSONEncoder` (and `String(describing:)` per number) would make many times slower.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    /// A whole number.
    mutating func int(_ value: Int) {
        if value < 0 {
            bytes.append(0x2D)
            // Int.min never occurs here (counts, indices, zooms).
            int(-value)
            return
        }
        if value < 10 {
            bytes.append(0x30 + UInt8(value))
            return
        }
        // Digits come out last first: write them, then turn them around in place.
        let first = bytes.count
        var v = value
        while v > 0 {
            bytes.append(0x30 + UInt8(v % 10))
            v /= 10
        }
        bytes[first...].reverse()
    }

    /// A number with at most `places` decimals, trailing zeros dropped (degrees to 1e-5 are
    /// about a metre: finer than a pixel at zoom 16).
    mutating func fixed(_ value: Double, places: Int = 5) {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        var scaled = Int((value * Double(scale)).rounded())
        if scaled < 0 {
            bytes.append(0x2D)
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
        bytes.append(0x2E)
        var divisor = scale / 10
        while divisor > 0 {
            bytes.append(0x30 + UInt8(fraction / divisor % 10))
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
        bytes.append(0x22)
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
                bytes.append(hex[Int(b >> 4)])
                bytes.append(hex[Int(b & 15)])
            default: bytes.append(b)
            }
        }
        bytes.append(0x22)
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
