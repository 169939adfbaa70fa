import Foundation
import Yams

/// Finds mapping keys that could make composing explode.
///
/// Aliases share their anchor's node, so values built from nested aliases (a "billion
/// laughs") stay small. But Yams hashes every mapping's keys to find duplicates, and
/// hashing walks a key in full: one key made of nested aliases costs time exponential in the
/// nesting (the config fuzzer found a 700-byte file taking 10 s). matsite's keys are plain
/// words, so in a document that defines anchors, aliases that are not a whole value
/// (followed by anything but the line's end, a comment or `,` `]` `}`), collection keys and
/// explicit (`? `) keys are refused before Yams sees them. Documents without anchors are not
/// scanned. Quoted scalars and comments are skipped; the check is textual and may refuse an
/// odd plain scalar, never accept an alias-built key.
enum YAMLKeyGuard {
    /// The 1-based line of the first such key, or nil.
    static func aliasBuiltKeyLine(in text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "&")) else { return nil }
        var line = 1
        var i = 0
        var lineStart = true
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        func isName(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
        /// After position j (spaces skipped), is there a ':' that makes a key?
        func colonFollows(_ j: Int) -> Bool {
            var k = j
            while k < bytes.count, isSpace(bytes[k]) { k += 1 }
            guard k < bytes.count, bytes[k] == UInt8(ascii: ":") else { return false }
            return k + 1 == bytes.count || isSpace(bytes[k + 1]) || [0x0A, 0x0D, 0x2C, 0x5D, 0x7D].contains(bytes[k + 1])
        }
        while i < bytes.count {
            let b = bytes[i]
            let previous: UInt8 = i > 0 ? bytes[i - 1] : 0x0A
            switch b {
            case 0x0A:
                line += 1
                lineStart = true
                i += 1
                continue
            case UInt8(ascii: "#") where isSpace(previous) || previous == 0x0A:
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                continue
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                // Skip a quoted scalar (only where one can start, not an apostrophe in a word).
                guard isSpace(previous) || [0x0A, 0x3A, 0x2C, 0x5B, 0x7B, 0x2D, 0x3F].contains(previous) else { break }
                var j = i + 1
                while j < bytes.count, bytes[j] != b {
                    if bytes[j] == 0x0A { line += 1 }
                    if b == UInt8(ascii: "\""), bytes[j] == UInt8(ascii: "\\") { j += 1 }
                    j += 1
                }
                i = j + 1
                lineStart = false
                continue
            case UInt8(ascii: "*") where isSpace(previous) || [0x0A, 0x5B, 0x7B, 0x2C, 0x3F, 0x3A].contains(previous):
                // An alias may only be a whole value: followed by the end of the line, a
                // comment, or the end of its flow entry. libyaml makes `*a text: x` (in flow
                // context) a key starting at the alias, so "not followed by ':'" is not enough.
                var j = i + 1
                while j < bytes.count, isName(bytes[j]) { j += 1 }
                guard j > i + 1 else { break }
                var k = j
                while k < bytes.count, isSpace(bytes[k]) { k += 1 }
                if k < bytes.count, ![0x0A, 0x0D, 0x23, 0x2C, 0x5D, 0x7D].contains(bytes[k]) { return line }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if colonFollows(i + 1) { return line }
            case UInt8(ascii: "?") where lineStart || isSpace(previous) || [0x5B, 0x7B, 0x2C].contains(previous):
                if i + 1 == bytes.count || isSpace(bytes[i + 1]) || bytes[i + 1] == 0x0A { return line }
            default:
                break
            }
            if !isSpace(b) { lineStart = false }
            i += 1
        }
        return nil
    }
}
