import Foundation

// How request paths become files, and how files are labelled: kept apart from the server
// so each rule can be unit-tested without a socket.
extension StaticSiteServer {
    /// A request path decoded into safe segments, or why it was refused.
    public enum DecodedPath: Equatable, Sendable {
        /// Segments relative to the root (none for `/`); `trailingSlash` as in the request.
        case segments([String], trailingSlash: Bool)
        /// The path is malformed or tries to leave the root.
        case rejected(String)
    }

    /// Decodes a raw (percent-encoded) request path into segments relative to the root.
    ///
    /// Refused: a path not starting with `/`; a `.` or `..` segment, encoded or not; an
    /// encoded `/` or `\`, a NUL or other control character; bad percent-encoding or bytes
    /// that are not UTF-8. Empty segments (`a//b`) are dropped.
    public static func decode(path rawPath: String) -> DecodedPath {
        guard rawPath.hasPrefix("/") else { return .rejected("the path does not start with /") }
        var segments: [String] = []
        for rawSegment in rawPath.split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = percentDecode(rawSegment) else {
                return .rejected("bad percent-encoding in \(rawSegment)")
            }
            if segment == "." || segment == ".." {
                return .rejected("a . or .. segment")
            }
            // A decoded slash or backslash would let one URL segment become several path
            // segments (or a Windows-style separator) after the check above.
            if segment.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) {
                return .rejected("a separator or control character inside a segment")
            }
            segments.append(segment)
        }
        return .segments(segments, trailingSlash: rawPath.count > 1 && rawPath.hasSuffix("/"))
    }

    /// Whether a file's name says its content never changes under that name: a name that
    /// is `<8+ hex>.` or has `-<8+ hex>.` or `.<8+ hex>.` in it (`radar/frames/1a2b3c4d5e6f7a8b.png`,
    /// `assets/player.3f2a1b4c.js`), any file inside a hashed folder under `assets/`
    /// (`assets/leaflet-1a2b3c4d/leaflet.js`), or any file in a folder below an animation's
    /// named by a hash (a frame's levels or fallback tiles: `radar/tiles/1a2b3c4d5e6f7a8b/5/16/10.png`).
    /// Pages and manifests never are, whatever their names, because they are the entry
    /// points that point at the new hashes.
    public static func isContentHashed(_ segments: [String]) -> Bool {
        guard let name = segments.last else { return false }
        let lowered = name.lowercased()
        if lowered.hasSuffix(".html") || lowered.hasSuffix(".htm") || lowered == "manifest.json" {
            return false
        }
        if hasHashInfix(lowered) || (isHex(lowered.prefix { $0 != "." }) && lowered.contains(".")) {
            return true
        }
        // An animation's folder itself may look like a hash (`storm-20261121`): only the folders below it count.
        if segments.count > 2, segments[1..<(segments.count - 1)].contains(where: { isHex($0.lowercased()[...]) }) {
            return true
        }
        if let assets = segments.firstIndex(of: "assets") {
            let folders = segments[(assets + 1)..<(segments.count - 1)]
            return folders.contains(where: hasHashSuffix)
        }
        return false
    }

    /// The `Content-Type` for a file name, by extension; `application/octet-stream` when
    /// unknown (with `nosniff`, browsers then won't guess).
    public static func mimeType(forFileName name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        let ext = name[name.index(after: dot)...].lowercased()
        return mimeTypes[ext] ?? "application/octet-stream"
    }

    /// `Cache-Control` for a path's segments: a year and `immutable` for content-hashed
    /// files, `no-cache` (always revalidate) for everything else.
    public static func cacheControl(for segments: [String]) -> String {
        isContentHashed(segments) ? "public, max-age=31536000, immutable" : "no-cache"
    }
}

private extension StaticSiteServer {
    static let mimeTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "json": "application/json",
        "map": "application/json",
        "webmanifest": "application/manifest+json",
        "txt": "text/plain; charset=utf-8",
        "md": "text/markdown; charset=utf-8",
        "csv": "text/csv; charset=utf-8",
        "xml": "application/xml",
        "yml": "text/yaml; charset=utf-8",
        "yaml": "text/yaml; charset=utf-8",
        "png": "image/png",
        "apng": "image/apng",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "avif": "image/avif",
        "svg": "image/svg+xml",
        "ico": "image/x-icon",
        "woff2": "font/woff2",
        "woff": "font/woff",
        "ttf": "font/ttf",
        "otf": "font/otf",
        "wasm": "application/wasm",
        "pbf": "application/x-protobuf",
        "mvt": "application/vnd.mapbox-vector-tile",
        "geojson": "application/geo+json",
        "mp4": "video/mp4",
        "webm": "video/webm",
        "pdf": "application/pdf",
        "zip": "application/zip",
    ]

    /// `-<8+ hex>.` or `.<8+ hex>.` anywhere in the name.
    static func hasHashInfix(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: ".") {
                var end = index + 1
                while end < bytes.count, isHexDigit(bytes[end]) {
                    end += 1
                }
                if end - index - 1 >= 8, end < bytes.count, bytes[end] == UInt8(ascii: ".") {
                    return true
                }
            }
            index += 1
        }
        return false
    }

    /// `<name>-<8+ hex>` (a folder such as `leaflet-1a2b3c4d`).
    static func hasHashSuffix(_ folder: String) -> Bool {
        let bytes = Array(folder.lowercased().utf8)
        guard let dash = bytes.lastIndex(of: UInt8(ascii: "-")), dash > 0 else { return false }
        let hex = bytes[(dash + 1)...]
        return hex.count >= 8 && hex.allSatisfy(isHexDigit)
    }

    /// 8 or more hex digits and nothing else (a name's hash part).
    static func isHex(_ text: Substring) -> Bool {
        text.utf8.count >= 8 && text.utf8.allSatisfy(isHexDigit)
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// Strict percent-decoding: nil for a `%` not followed by two hex digits or for bytes
    /// that are not UTF-8 (so no overlong or half sequences reach the file system).
    static func percentDecode(_ segment: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.utf8.count)
        var iterator = segment.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
