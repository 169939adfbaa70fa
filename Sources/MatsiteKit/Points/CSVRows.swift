/// Rows of RFC 4180 CSV: comma-separated, fields optionally in double quotes (`""` is a
/// quote inside them, and quoted fields may span lines), CRLF or LF line ends.
struct CSVRows {
    /// One row and the line it starts on (1-based).
    struct Row {
        var fields: [String]
        var line: Int
    }

    private let bytes: [UInt8]
    private var i = 0
    private var line = 1

    init(_ bytes: [UInt8]) {
        // A UTF-8 byte order mark is not part of the first column's name.
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    /// The next row, or nil at the end.
    mutating func next(fail: (String, String) -> PointError) throws(PointError) -> Row? {
        guard i < bytes.count else { return nil }
        let start = line
        var fields: [String] = []
        var field: [UInt8] = []
        while true {
            if i < bytes.count, bytes[i] == 0x22, field.isEmpty {
                // A quoted field.
                i += 1
                while true {
                    guard i < bytes.count else { throw fail("row \(start)", "a quoted field is not closed (a \" is missing)") }
                    let b = bytes[i]
                    if b == 0x22 {
                        if i + 1 < bytes.count, bytes[i + 1] == 0x22 {
                            field.append(0x22)
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    if b == 0x0A { line += 1 }
                    field.append(b)
                    i += 1
                }
                guard i == bytes.count || [0x2C, 0x0A, 0x0D].contains(bytes[i]) else {
                    throw fail("row \(start)", "text after a quoted field's closing quote")
                }
            }
            while i < bytes.count, bytes[i] != 0x2C, bytes[i] != 0x0A, bytes[i] != 0x0D {
                field.append(bytes[i])
                i += 1
            }
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            if i < bytes.count, bytes[i] == 0x2C {
                i += 1
                continue
            }
            if i < bytes.count, bytes[i] == 0x0D { i += 1 }
            if i < bytes.count, bytes[i] == 0x0A { i += 1 }
            line += 1
            return Row(fields: fields, line: start)
        }
    }
}
