import Foundation
import NIOHTTP1

/// A private HTTP cache on disk for tiles and capabilities documents (RFC 9111's rules
/// for a private cache, simplified to GET and one variant per key).
///
/// Entries are keyed by URL plus the configured request headers (which can change the
/// response). Each entry is one file written atomically (temp file + rename) holding a
/// JSON header line and the body; the header carries the body's SHA-256, so a truncated
/// or corrupt entry is detected, dropped and fetched again.
public final class HTTPCache: Sendable {
    /// A stored response.
    public struct Entry: Sendable {
        /// Headers of the stored response.
        public var headers: HTTPHeaders
        /// Body bytes.
        public var body: [UInt8]
        /// When the response was stored or last revalidated.
        public var storedAt: Date

        /// The entity tag, for `If-None-Match`.
        public var etag: String? { headers.first(name: "ETag") }
        /// The modification date, for `If-Modified-Since`.
        public var lastModified: String? { headers.first(name: "Last-Modified") }

        /// True while the entry may be used without asking the server.
        public func isFresh(now: Date = Date()) -> Bool {
            guard let lifetime = HTTPCache.freshnessLifetime(headers, storedAt: storedAt) else { return false }
            // A response that sat in a shared cache (a CDN) arrived already `Age` seconds old.
            let age = headers.first(name: "Age").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) } ?? 0
            return now.timeIntervalSince(storedAt) + age < lifetime
        }
    }

    /// The cache folder.
    public let directory: URL
    /// Size cap in bytes.
    public let maxSize: Int64
    private let keySalt: String

    /// A cache in `directory`; `varyHeaders` are the request headers sent with every request.
    public init(directory: URL, maxSize: Int64, varyHeaders: [String: String]) {
        self.directory = directory
        self.maxSize = maxSize
        keySalt = varyHeaders.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\($0.key.lowercased()):\($0.value)" }.joined(separator: "\n")
    }

    /// The stored entry for `url`, if present and intact (a damaged one is deleted).
    public func lookup(_ url: String) -> Entry? {
        let file = path(for: url)
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        guard let newline = data.firstIndex(of: 0x0A),
              let meta = try? JSONDecoder().decode(Meta.self, from: data[data.startIndex..<newline]) else {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        let body = [UInt8](data[(newline + 1)...])
        guard meta.url == url, body.count == meta.size, SHA256.hex(of: body) == meta.sha256 else {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        // Touch for least-recently-used eviction.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
        var headers = HTTPHeaders()
        for pair in meta.headers where pair.count == 2 { headers.add(name: pair[0], value: pair[1]) }
        return Entry(headers: headers, body: body, storedAt: Date(timeIntervalSince1970: meta.storedAt))
    }

    /// Stores a 200 response unless its headers forbid it (`no-store`).
    public func store(_ url: String, headers: HTTPHeaders, body: [UInt8]) {
        guard Self.mayStore(headers) else { return }
        write(url, headers: headers, body: body, storedAt: Date())
    }

    /// After a 304: keeps the body, takes the new validators and freshness.
    public func refresh(_ url: String, with notModified: HTTPHeaders, entry: Entry) {
        var headers = entry.headers
        // The 304 is the response's new age: the stored one's `Age` no longer applies.
        headers.remove(name: "Age")
        for name in ["Cache-Control", "Expires", "ETag", "Last-Modified", "Date", "Age"] {
            if let value = notModified.first(name: name) { headers.replaceOrAdd(name: name, value: value) }
        }
        write(url, headers: headers, body: entry.body, storedAt: Date())
    }

    /// Evicts least recently used entries until the cache fits `maxSize`.
    public func trim() {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return }
        var entries = files.compactMap { file -> (URL, Int64, Date)? in
            guard let values = try? file.resourceValues(forKeys: Set(keys)) else { return nil }
            return (file, Int64(values.fileSize ?? 0), values.contentModificationDate ?? .distantPast)
        }
        var total = entries.reduce(Int64(0)) { $0 + $1.1 }
        guard total > maxSize else { return }
        entries.sort { $0.2 < $1.2 }
        for (file, size, _) in entries where total > maxSize {
            try? FileManager.default.removeItem(at: file)
            total -= size
        }
    }
}

extension HTTPCache {
    /// How long a response stays fresh, from `Cache-Control`, `Expires` or, failing
    /// those, RFC 9111's heuristic (a tenth of the time since `Last-Modified`, at most a day).
    /// nil means "revalidate every time". Without a `Date` header the response is dated
    /// when it was stored (`storedAt`), as RFC 9111 has a cache do, not when it is looked up.
    static func freshnessLifetime(_ headers: HTTPHeaders, storedAt: Date) -> TimeInterval? {
        let directives = cacheControl(headers)
        if directives["no-cache"] != nil || directives["no-store"] != nil { return nil }
        if let maxAge = directives["max-age"].flatMap({ $0.flatMap(Double.init) }) { return maxAge }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let date = headers.first(name: "Date").flatMap(formatter.date(from:)) ?? storedAt
        if let expires = headers.first(name: "Expires") {
            guard let when = formatter.date(from: expires) else { return nil }
            return when.timeIntervalSince(date)
        }
        if let modified = headers.first(name: "Last-Modified").flatMap(formatter.date(from:)) {
            return min(date.timeIntervalSince(modified) / 10, 86400)
        }
        return nil
    }

    static func mayStore(_ headers: HTTPHeaders) -> Bool {
        cacheControl(headers)["no-store"] == nil
    }

    static func cacheControl(_ headers: HTTPHeaders) -> [String: String?] {
        var directives: [String: String?] = [:]
        for value in headers[canonicalForm: "Cache-Control"] {
            let parts = value.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first?.lowercased(), !name.isEmpty else { continue }
            directives[name] = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
        }
        return directives
    }
}

private struct Meta: Codable {
    var url: String
    var storedAt: Double
    var size: Int
    var sha256: String
    var headers: [[String]]
}

private extension HTTPCache {
    func path(for url: String) -> URL {
        directory.appendingPathComponent(SHA256.hex(of: url + "\n" + keySalt))
    }

    func write(_ url: String, headers: HTTPHeaders, body: [UInt8], storedAt: Date) {
        let meta = Meta(url: url, storedAt: storedAt.timeIntervalSince1970, size: body.count, sha256: SHA256.hex(of: body),
                        headers: headers.map { [$0.name, $0.value] })
        guard var data = try? JSONEncoder().encode(meta) else { return }
        data.append(0x0A)
        data.append(contentsOf: body)
        let final = path(for: url)
        let temp = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        do {
            // Created with the first entry: a build that fetches nothing leaves no folder.
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: temp)
            if rename(temp.path, final.path) != 0 { try? FileManager.default.removeItem(at: temp) }
        } catch {
            try? FileManager.default.removeItem(at: temp)
        }
    }
}
