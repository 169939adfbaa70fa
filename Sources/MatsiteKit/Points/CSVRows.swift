/// Rows of RFC 4180 CSV: comma-separated, fields optionally in double quotes (`""` is a
/// quote inside them, and quoted fields may span lines), CRLF or LF line ends.
struct CSVRows {
    /// One row and the line it starts on (1-based).
    struct Row {
        var fields: [String]
        var line: Int
    }

    private let bytes: [UInt8]
    private let end: Int
    /// Where the next row starts, and its line.
    private(set) var position = 0
    private(set) var line = 1

    init(_ bytes: [UInt8]) {
        // A UTF-8 byte order mark is not part of the first column's name.
        self.bytes = bytes
        end = bytes.count
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// The rows of `bytes[start..<end]`, the first on line `line`: one piece of `pieces`.
    init(_ bytes: [UInt8], piece: Range<Int>, line: Int) {
        self.bytes = bytes
        end = piece.upperBound
        position = piece.lowerBound
        self.line = line
    }

    /// The next row, or nil at the end.
    mutating func next(fail: (String, String) -> PointError) throws(PointError) -> Row? {
        var i = position
        defer { position = i }
        let bytes = self.bytes, end = self.end
        guard i < end else { return nil }
        let start = line
        var fields: [String] = []
        var field: [UInt8] = []
        while true {
            if i < end, bytes[i] == 0x22, field.isEmpty {
                // A quoted field.
                i += 1
                while true {
                    guard i < end else { throw fail("row \(start)", "a quoted field is not closed (a \" is missing)") }
                    let b = bytes[i]
                    if b == 0x22 {
                        if i + 1 < end, bytes[i + 1] == 0x22 {
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
                guard i == end || [0x2C, 0x0A, 0x0D].contains(bytes[i]) else {
                    throw fail("row \(start)", "text after a quoted field's closing quote")
                }
            }
            while i < end, bytes[i] != 0x2C, bytes[i] != 0x0A, bytes[i] != 0x0D {
                field.append(bytes[i])
                i += 1
            }
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            if i < end, bytes[i] == 0x2C {
                i += 1
                continue
            }
            if i < end, bytes[i] == 0x0D { i += 1 }
            if i < end, bytes[i] == 0x0A { i += 1 }
            line += 1
            return Row(fields: fields, line: start)
        }
    }

    /// Splits `bytes[start...]` into about `parts` pieces of similar size that begin where
    /// rows begin, each with its first line: pieces can then be read side by side and
    /// give the rows a reading from `start` gives. The bytes are followed as `next` reads
    /// them (a quote opens a quoted field only at a field's start; `""` inside one is a
    /// quote), so a line feed inside a quoted field never ends a piece. One piece when a
    /// carriage return ends a row alone (`next` counts it as a line, and the line numbers
    /// of later pieces would be wrong).
    static func pieces(_ bytes: [UInt8], from start: Int, line: Int, parts: Int) -> [(range: Range<Int>, line: Int)] {
        let whole = [(range: start..<bytes.count, line: line)]
        guard parts > 1, bytes.count - start > parts else { return whole }
        let size = (bytes.count - start) / parts
        var out: [(range: Range<Int>, line: Int)] = []
        var first = start, firstLine = line, lines = line
        var quoted = false, fieldStart = true
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if quoted {
                if b == 0x22 {
                    if i < bytes.count, bytes[i] == 0x22 { i += 1 } else { quoted = false }
                } else if b == 0x0A {
                    lines += 1
                }
                continue
            }
            switch b {
            case 0x22 where fieldStart:
                quoted = true
                fieldStart = false
            case 0x2C:
                fieldStart = true
            case 0x0D:
                guard i < bytes.count, bytes[i] == 0x0A else { return whole }
                fieldStart = true
            case 0x0A:
                lines += 1
                fieldStart = true
                if i - first >= size, out.count < parts - 1, i < bytes.count {
                    out.append((first..<i, firstLine))
                    first = i
                    firstLine = lines
                }
            default:
                fieldStart = false
            }
        }
        out.append((first..<bytes.count, firstLine))
        return out
    }
}
