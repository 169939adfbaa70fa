import Foundation
import MatsiteCapabilities

/// A frame index document that cannot be used: names the document (URL or file), the
/// path inside it (`radar.past[3].time`) and what is wrong.
struct FrameIndexError: ClassifiedError, CustomStringConvertible, Sendable, Equatable {
    /// The document's URL or file.
    let document: String
    /// Where in the document; empty for the whole of it.
    let path: String
    /// What is wrong.
    let message: String
    /// `.config` when the document is fine but the config's limits refuse it.
    var exitClass: ExitClass = .failed

    /// An error.
    init(document: String, path: String, message: String, exitClass: ExitClass = .failed) {
        self.document = document
        self.path = path
        self.message = message
        self.exitClass = exitClass
    }

    var description: String {
        "frame index \(document): " + (path.isEmpty ? "" : "\(path): ") + message
    }
}

/// Reads a `frames.index` document into frames: the list at `items`, each item's time and
/// fields, the root's globals. The document comes from a server matsite does not control,
/// so size, nesting, types, order and the values that go into URLs are all checked.
enum FrameIndex {
    /// Largest document accepted.
    static let maxBytes = 16 << 20
    /// Deepest nesting accepted (RainViewer's index nests 4 deep).
    static let maxDepth = 32
    /// Longest field value accepted.
    static let maxFieldLength = 2048

    /// The frames of a document, oldest first: items after `now` are not frames yet, and
    /// `latest` keeps the newest N; with a forecast list (`items: { observed, forecast }`),
    /// its items after the newest observed one follow as forecast frames.
    static func frames(
        from bytes: [UInt8], config: FrameIndexConfig, maxItems: Int, now: TimeInstant,
        timeFormat: TimeFormat
    ) throws(FrameIndexError) -> [SourceFrame] {
        let name = config.name
        func fail(_ path: String, _ message: String) -> FrameIndexError {
            FrameIndexError(document: name, path: path, message: message)
        }
        guard bytes.count <= maxBytes else { throw fail("", "the document is \(bytes.count) bytes, over the \(maxBytes >> 20) MiB limit") }
        if let depth = nestingOver(maxDepth, in: bytes) {
            throw fail("", "nested deeper than \(maxDepth) levels (at byte \(depth)); not a frame index")
        }
        let root: JSONValue
        do { root = try JSONDecoder().decode(JSONValue.self, from: Data(bytes)) } catch {
            let snippet = String(decoding: bytes.prefix(40), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
            throw fail("", "not JSON (it starts with \"\(snippet)\")")
        }
        let itemsPath = config.items
        let items = try list(at: itemsPath, in: root, fail: fail)
        var globals: [String: String] = [:]
        for (placeholder, field) in config.globals.sorted(by: { $0.key < $1.key }) {
            globals[placeholder] = try text(try value(at: field, in: root, fail: fail), path: field, fail: fail)
        }
        var frames: [SourceFrame] = []
        for item in try read(items, at: itemsPath, config: config, globals: globals, fail: fail) where item.time <= now {
            frames.append(SourceFrame(index: frames.count, time: item.time, timeText: timeFormat.format(item.time), fields: item.fields))
        }
        guard !frames.isEmpty else {
            throw fail(itemsPath, "every listed time is after the build's clock (\(now.iso8601)); nothing is published yet")
        }
        if let latest = config.latest, frames.count > latest {
            frames = frames.suffix(latest).enumerated().map { position, frame in
                var frame = frame
                frame.index = position
                return frame
            }
        }
        // The forecast list's items after the newest observed one (a nowcast starts where
        // the observations end, whatever the clock), oldest first.
        if let forecastPath = config.forecastItems, let newest = frames.last?.time {
            let listed = try read(
                list(at: forecastPath, in: root, fail: fail, allowEmpty: true), at: forecastPath, config: config, globals: globals, fail: fail)
            for item in listed where item.time > newest {
                frames.append(
                    SourceFrame(index: frames.count, time: item.time, timeText: timeFormat.format(item.time), fields: item.fields, kind: .forecast))
            }
        }
        // What is built is limited, not what the feed lists (`latest` keeps a long archive's
        // newest few; the document's size is bounded above). The feed is fine; the config's
        // limit refuses it: a config error, as a rolling window over the limit is.
        guard frames.count <= maxItems else {
            throw FrameIndexError(
                document: name, path: itemsPath,
                message: "\(frames.count) frames, over the limit of \(maxItems) (limits.max_frames; `latest: N` keeps the newest N)",
                exitClass: .config)
        }
        return frames
    }

    /// The list at `itemsPath`.
    static func list(
        at itemsPath: String, in root: JSONValue, fail: (String, String) -> FrameIndexError, allowEmpty: Bool = false
    ) throws(FrameIndexError) -> [JSONValue] {
        let list = try value(at: itemsPath, in: root, fail: fail)
        guard case .array(let items) = list else {
            throw fail(itemsPath.isEmpty ? "(the document)" : itemsPath, "expected a list of frames, found \(list.kind)")
        }
        guard !items.isEmpty || allowEmpty else { throw fail(itemsPath, "the list is empty: the feed lists no frames") }
        return items
    }

    /// Each item's time and fields (with `globals`), their times increasing.
    static func read(
        _ items: [JSONValue], at itemsPath: String, config: FrameIndexConfig, globals: [String: String], fail: (String, String) -> FrameIndexError
    ) throws(FrameIndexError) -> [(time: TimeInstant, fields: [String: String])] {
        var out: [(time: TimeInstant, fields: [String: String])] = []
        var previous: (TimeInstant, String)?
        for (i, item) in items.enumerated() {
            let itemPath = "\(itemsPath.isEmpty ? "" : itemsPath)[\(i)]"
            let timePath = config.time.isEmpty ? itemPath : "\(itemPath).\(config.time)"
            let instant = try time(try value(at: config.time, in: item, base: itemPath, fail: fail), path: timePath, fail: fail)
            if let previous {
                let (last, lastPath) = previous
                guard instant != last else { throw fail(timePath, "duplicate time \(instant.iso8601) (also \(lastPath))") }
                guard instant > last else {
                    throw fail(timePath, "times out of order: \(instant.iso8601) comes after \(last.iso8601) (\(lastPath)); the list must run oldest first")
                }
            }
            previous = (instant, timePath)
            var fields = globals
            for (placeholder, field) in config.fields.sorted(by: { $0.key < $1.key }) {
                let fieldValue = try value(at: field, in: item, base: itemPath, fail: fail)
                fields[placeholder] = try text(fieldValue, path: "\(itemPath).\(field)", fail: fail)
            }
            out.append((instant, fields))
        }
        return out
    }

    /// The value at a dotted path (empty: the value itself).
    static func value(
        at path: String, in root: JSONValue, base: String = "",
        fail: (String, String) -> FrameIndexError
    ) throws(FrameIndexError) -> JSONValue {
        guard !path.isEmpty else { return root }
        var current = root
        var walked = base
        for key in path.split(separator: ".").map(String.init) {
            let here = walked.isEmpty ? key : "\(walked).\(key)"
            guard case .object(let object) = current else {
                throw fail(here, "expected \(walked.isEmpty ? "the document" : walked) to be an object with \"\(key)\", found \(current.kind)")
            }
            guard let next = object[key] else {
                let keys = object.keys.sorted().prefix(12).joined(separator: ", ")
                throw fail(here, "missing (keys here: \(keys.isEmpty ? "none" : keys))")
            }
            current = next
            walked = here
        }
        return current
    }

    /// A time: Unix seconds (a number) or ISO 8601 text.
    static func time(_ value: JSONValue, path: String, fail: (String, String) -> FrameIndexError) throws(FrameIndexError) -> TimeInstant {
        switch value {
        case .number(let seconds):
            // Years 1 to 9999: anything else is not a feed's frame time.
            guard seconds.isFinite, seconds > -62_135_596_800, seconds < 253_402_300_800 else {
                throw fail(path, "\(seconds) is not a Unix time in seconds")
            }
            return TimeInstant(millisecondsSinceEpoch: Int64((seconds * 1000).rounded()))
        case .string(let text):
            guard let instant = TimeFormat.instant(text) else {
                throw fail(path, "\"\(text.prefix(64))\" is not an ISO 8601 time like 2026-11-21T10:00:00Z")
            }
            return instant
        default:
            throw fail(path, "expected a Unix time in seconds or an ISO 8601 time, found \(value.kind)")
        }
    }

    /// A value that fills a URL placeholder: text or a whole number, one line, no spaces.
    static func text(_ value: JSONValue, path: String, fail: (String, String) -> FrameIndexError) throws(FrameIndexError) -> String {
        let text: String
        switch value {
        case .string(let string): text = string
        case .number(let number) where number.rounded() == number && abs(number) < 1e15: text = String(Int64(number))
        default: throw fail(path, "expected text or a whole number for a URL placeholder, found \(value.kind)")
        }
        guard text.utf8.count <= maxFieldLength else { throw fail(path, "\(text.utf8.count) bytes long; a URL part is at most \(maxFieldLength)") }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0.properties.isWhitespace }) else {
            throw fail(path, "holds spaces or control characters, which cannot go into a URL")
        }
        return text
    }

    /// The byte offset where nesting first goes past `limit` levels, or nil. Strings are
    /// skipped; the decoder itself would recurse once per level.
    static func nestingOver(_ limit: Int, in bytes: [UInt8]) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return offset }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }
}

/// A JSON value as a frame index holds it.
enum JSONValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// What it is, for messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): "the number \(value)"
        case .string(let value): "the text \"\(value.prefix(40))\""
        case .array(let list): "a list of \(list.count)"
        case .object: "an object"
        }
    }
}
