import Foundation
import Yams

/// Turns Yams' and the byte reader's failures into config errors with a line.
enum YAMLDiagnostics {
    static func syntaxError(_ error: YamlError, file: String) -> ConfigError {
        switch error {
        case .scanner(let context, let problem, let mark, let yaml), .parser(let context, let problem, let mark, let yaml),
            .composer(let context, let problem, let mark, let yaml):
            // libyaml words a tab in the indentation as an odd character or token: say "tab".
            if let tab = indentingTab(in: yaml, near: mark.line) {
                return ConfigError(
                    file: file, line: tab.line, keyPath: "",
                    message: "a tab in the indentation (column \(tab.column)): YAML indents with spaces only; replace the tab with spaces")
            }
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return ConfigError(file: file, line: mark.line, keyPath: "", message: "YAML syntax error: \(detail)")
        case .reader(let problem, let offset, _, let yaml):
            // libyaml's reader (control characters, bad encodings) gives an offset, not a line.
            let line = offset.map { offset in 1 + yaml.utf8.prefix(max(0, offset)).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
            return ConfigError(file: file, line: line, keyPath: "", message: "YAML syntax error: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigError(
                file: file, line: context.mark.line, keyPath: "",
                message: "key given twice: \(duplicates.joined(separator: ", "))")
        default:
            return ConfigError(file: file, line: nil, keyPath: "", message: "YAML error: \(error)")
        }
    }

    /// A tab among the leading whitespace of line `line` (1-based) or the line before it,
    /// where libyaml stops at one: its line and column.
    static func indentingTab(in yaml: String, near line: Int) -> (line: Int, column: Int)? {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
        for number in [line, line - 1] where number >= 1 && number <= lines.count {
            let indentation = lines[number - 1].prefix { $0 == " " || $0 == "\t" }
            if let tab = indentation.firstIndex(of: "\t") { return (number, indentation.distance(from: indentation.startIndex, to: tab) + 1) }
        }
        return nil
    }

    static func firstInvalidUTF8(_ data: Data) -> (line: Int, offset: Int) {
        var line = 1
        let bytes = [UInt8](data)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let length = b < 0x80 ? 1 : b >> 5 == 0b110 ? 2 : b >> 4 == 0b1110 ? 3 : b >> 3 == 0b11110 ? 4 : 0
            guard length > 0, i + length <= bytes.count,
                bytes[(i + 1)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 })
            else { return (line, i) }
            if b == 0x0A { line += 1 }
            i += length
        }
        return (line, i)
    }

}
