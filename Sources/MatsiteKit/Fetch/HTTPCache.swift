import Foundation
import NIOHTTP1

/// A private HTTP cache on disk for tiles and capabilities documents (RFC 9111's rules
/// for a private cache, simplified to GET and one variant per key).
///
/// "No tile here" answers (404, 204) are stored too: a feed's missing tiles would otherwise
/// be asked for again on every build. They stay fresh for their explicit lifetime
/// (`Cache-Control: max-age`, `Expires`) or, when the server gives none, for
/// `http.missing_ttl_s`; then they are revalidated like any entry.
///
/// `Vary` is honoured: the request headers a response varies on are stored with it, and a
/// request whose values differ is a miss. A response with `Vary: *` is not stored.
///
/// Entries are keyed by URL plus the configured request headers (which can change the
/// response). Each entry is one file written atomically (temp file + rename) holding a
/// JSON header line and the body; the header carries the body's SHA-256, so a truncated
/// or corrupt entry is detected, dropped and fetched again. Entry files live in 256
/// folders by their name's first two hex digits (`CacheFolder`).
///
/// Beside the entries, an index (`index.sqlite`, see `CacheIndex`) keeps each entry's
/// content hash, size, expiry and last use, checked against the entry file's size,
/// modification time and inode. It lets an unchanged rebuild learn every fresh tile's
/// identity without opening a single entry (`freshDigests`), and gives eviction its clock:
/// a whole build ends with `finish(evictUnusedOlderThan:)`, which deletes the entries no
/// build used for that long but those this build used (looked up, stored, revalidated or
/// known fresh), so the cache stays the size of the work; `maxSize` is the backstop
/// (least recently used first). The index is only an accelerator for answers: a missing,
/// stale or damaged one costs reading the entries, never a wrong answer.
final class HTTPCache: Sendable {
    /// A stored response.
    struct Entry: Sendable {
        /// The stored status: 200, or 404/204 for a known absence.
        var status: Int
        /// Headers of the stored response.
        var headers: HTTPHeaders
        /// Body bytes.
        var body: [UInt8]
        /// When the response was stored or last revalidated.
        var storedAt: Date
        /// The body's SHA-256 (hex), as stored and verified.
        var sha256: String
        /// Seconds since 1970 until which it may be used without asking: from its headers,
        /// or later when a 304 since extended it (kept in the index, not in the file).
        var freshUntil: Double

        /// An entry; `sha256` is computed from `body` when not given. A 404/204 without an
        /// explicit lifetime stays fresh for `missingTTL` seconds.
        init(
            status: Int = 200, headers: HTTPHeaders, body: [UInt8], storedAt: Date, sha256: String? = nil,
            missingTTL: TimeInterval = 0
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.storedAt = storedAt
            self.sha256 = sha256 ?? SHA256.hex(of: body)
            freshUntil =
                status == 200
                ? HTTPCache.freshUntil(headers, storedAt: storedAt)
                : HTTPCache.missingFreshUntil(headers, storedAt: storedAt, ttl: missingTTL)
        }

        /// The entity tag, for `If-None-Match`.
        var etag: String? { headers.first(name: "ETag") }
        /// The modification date, for `If-Modified-Since`.
        var lastModified: String? { headers.first(name: "Last-Modified") }

        /// True while the entry may be used without asking the server.
        func isFresh(now: Date = Date()) -> Bool {
            now.timeIntervalSince1970 < freshUntil
        }
    }

    /// How long an entry no build used is kept by a whole build's eviction: long enough
    /// for a concurrent shard's tiles, or a failed build's retried an hour later.
    static let evictionGrace: TimeInterval = 3600

    /// The cache folder.
    let directory: URL
    /// Size cap in bytes.
    let maxSize: Int64
    private let keySalt: String
    private let index: CacheIndex
    private let folder: CacheFolder
    private let clock: @Sendable () -> Date

    /// A cache in `directory`; `varyHeaders` are the request headers sent with every
    /// request. `clock` dates uses and eviction (tests and benchmarks simulate days).
    init(directory: URL, maxSize: Int64, varyHeaders: [String: String], clock: @escaping @Sendable () -> Date = Date.init) {
        self.directory = directory
        self.maxSize = maxSize
        keySalt = varyHeaders.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\($0.key.lowercased()):\($0.value)" }.joined(separator: "\n")
        folder = CacheFolder(directory)
        index = CacheIndex(folder: folder, clock: clock)
        self.clock = clock
    }

    /// Write transactions the index committed (an unchanged rebuild's should be none).
    var indexWrites: Int { index.writes }

    /// The content hashes and sizes of the entries for `urls` when all are fresh, without
    /// reading them: from the index, provided each entry file still has the size,
    /// modification time and inode the index recorded (a file changed since, by anyone, is
    /// read the slow way). nil as soon as one is missing, stale or changed.
    func freshDigests(_ urls: [String], now: Date = Date()) -> [TileDigest]? {
        let names = urls.map(key(for:))
        let clock = now.timeIntervalSince1970
        guard let records = index.records(names), records.allSatisfy({ $0.sha256 != nil && $0.freshUntil > clock }) else { return nil }
        // One directory handle for the batch: each check is then a two-component lookup.
        let handle = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard handle >= 0 else { return nil }
        defer { close(handle) }
        for (name, record) in zip(names, records) where FileStamp(in: handle, name: CacheFolder.relativePath(name)) != record.stamp {
            return nil
        }
        index.used(names, records)
        return records.map { TileDigest(sha256: $0.sha256 ?? "", size: $0.size) }
    }

    /// The stored entry for `url`, if present and intact (a damaged one is deleted) and, when
    /// the response varied on request headers, stored for the same values as `request`'s
    /// (names lowercased: the headers the fetcher sends).
    func lookup(_ url: String, request: [String: String] = [:]) -> Entry? {
        let name = key(for: url)
        let path = folder.entryPath(name)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let newline = data.firstIndex(of: 0x0A),
            let meta = try? JSONDecoder().decode(Meta.self, from: data[data.startIndex..<newline])
        else {
            drop(name)
            return nil
        }
        let body = [UInt8](data[(newline + 1)...])
        guard meta.url == url, body.count == meta.size, SHA256.hex(of: body) == meta.sha256 else {
            drop(name)
            return nil
        }
        var headers = HTTPHeaders()
        for pair in meta.headers where pair.count == 2 { headers.add(name: pair[0], value: pair[1]) }
        for name in Self.varyNames(headers) where meta.vary?[name] != request[name] { return nil }
        let status = meta.status ?? 200
        var entry = Entry(
            status: status, headers: headers, body: body, storedAt: Date(timeIntervalSince1970: meta.storedAt),
            sha256: meta.sha256)
        if let freshUntil = meta.freshUntil { entry.freshUntil = freshUntil }
        // Verified: (re)index it, so that the next build need not read it while it is fresh,
        // keeping a freshness that a 304 extended; or just note its use.
        if let stamp = FileStamp(path: path) {
            let known = index.record(name)
            if let known, known.stamp == stamp, known.sha256 == entry.sha256 {
                entry.freshUntil = max(entry.freshUntil, known.freshUntil)
            }
            let fresh = record(entry, stamp: stamp)
            if let known, known.stamp == stamp, known.sha256 == fresh.sha256, known.freshUntil == fresh.freshUntil {
                index.used([name], [known])
            } else {
                index.set(name, fresh)
            }
        }
        return entry
    }

    /// Stores a 200, 204 or 404 response unless its headers forbid it (`no-store`,
    /// `Vary: *`); returns the body's SHA-256 when stored. `request` holds the request
    /// headers sent (names lowercased), kept for those the response varies on; `missingTTL`
    /// is how long a 404/204 without an explicit lifetime stays fresh.
    @discardableResult
    func store(
        _ url: String, status: Int = 200, headers: HTTPHeaders, body: [UInt8],
        request: [String: String] = [:], missingTTL: TimeInterval = 0
    ) -> String? {
        guard [200, 204, 404].contains(status), Self.mayStore(headers) else { return nil }
        let entry = Entry(status: status, headers: headers, body: body, storedAt: Date(), missingTTL: missingTTL)
        write(url, entry, request: request)
        return entry.sha256
    }

    /// After a 304: keeps the body, takes the new validators and freshness. When the
    /// validators are the ones stored, only the freshness changed: the index records it
    /// and the entry file is left alone (rewriting 1,500 entries on every revalidating
    /// rebuild cost more than the requests). Should the index be lost, the entry is merely
    /// revalidated once more.
    func refresh(
        _ url: String, with notModified: HTTPHeaders, entry: Entry, request: [String: String] = [:],
        missingTTL: TimeInterval = 0
    ) {
        var headers = entry.headers
        // The 304 is the response's new age: the stored one's `Age` no longer applies.
        headers.remove(name: "Age")
        for name in ["Cache-Control", "Expires", "ETag", "Last-Modified", "Date", "Age"] {
            if let value = notModified.first(name: name) { headers.replaceOrAdd(name: name, value: value) }
        }
        let refreshed = Entry(
            status: entry.status, headers: headers, body: entry.body, storedAt: Date(), sha256: entry.sha256,
            missingTTL: missingTTL)
        let name = key(for: url)
        if Self.indexable(refreshed), refreshed.etag == entry.etag, refreshed.lastModified == entry.lastModified,
            let stamp = FileStamp(path: folder.entryPath(name)), index.record(name)?.stamp == stamp
        {
            index.set(name, record(refreshed, stamp: stamp))
            return
        }
        write(url, refreshed, request: request)
    }

    /// Ends a build's use of the cache: writes what the index learnt; with a grace (a whole
    /// build that planned every animation), deletes the entries no build used for longer
    /// than it (plus the index's use resolution) and this build did not use; then, when
    /// this build changed the cache, evicts least recently used entries until the folder
    /// (index included) fits `maxSize`, and removes temporary files a killed build left.
    /// A shard or a failed build passes no grace: it evicts nothing.
    func finish(evictUnusedOlderThan grace: TimeInterval? = nil) {
        let changed = index.changed
        if let grace {
            index.evict(unusedSince: clock().timeIntervalSince1970 - grace - CacheIndex.useResolution)
        } else {
            index.flush()
        }
        if changed {
            index.trim(to: maxSize)
            removeKilledBuildsTemporaryFiles()
        }
        index.close()
    }
}

/// A cached body's identity: its SHA-256 (hex) and size.
struct TileDigest: Sendable, Hashable {
    /// SHA-256 of the bytes, lowercase hex.
    var sha256: String
    /// Byte count.
    var size: Int

    /// A digest.
    init(sha256: String, size: Int) {
        self.sha256 = sha256
        self.size = size
    }

    /// The digest of `bytes`.
    init(of bytes: [UInt8]) {
        self.init(sha256: SHA256.hex(of: bytes), size: bytes.count)
    }
}

extension HTTPCache {
    /// The time (seconds since 1970) until which a response stored at `storedAt` may be
    /// used without asking; 0 when it must be revalidated every time. A response that sat
    /// in a shared cache (a CDN) arrived already `Age` seconds old.
    static func freshUntil(_ headers: HTTPHeaders, storedAt: Date) -> Double {
        guard let lifetime = freshnessLifetime(headers, storedAt: storedAt) else { return 0 }
        let age = headers.first(name: "Age").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) } ?? 0
        return storedAt.timeIntervalSince1970 + lifetime - age
    }

    /// How long a response stays fresh, from `Cache-Control`, `Expires` or, failing
    /// those, RFC 9111's heuristic (a tenth of the time since `Last-Modified`, at most a day).
    /// nil means "revalidate every time". Without a `Date` header the response is dated
    /// when it was stored (`storedAt`), as RFC 9111 has a cache do, not when it is looked up.
    static func freshnessLifetime(_ headers: HTTPHeaders, storedAt: Date) -> TimeInterval? {
        let directives = cacheControl(headers)
        if directives["no-cache"] != nil || directives["no-store"] != nil { return nil }
        if let maxAge = directives["max-age"].flatMap({ $0.flatMap(Double.init) }) { return maxAge }
        let date = headers.first(name: "Date").flatMap(HTTPDate.parse) ?? storedAt
        if let expires = headers.first(name: "Expires") {
            guard let when = HTTPDate.parse(expires) else { return nil }
            return when.timeIntervalSince(date)
        }
        if let modified = headers.first(name: "Last-Modified").flatMap(HTTPDate.parse) {
            return min(date.timeIntervalSince(modified) / 10, 86400)
        }
        return nil
    }

    /// The time until which a 404/204 may be used without asking: its explicit lifetime
    /// (`max-age`, `Expires`; not the `Last-Modified` heuristic, which says nothing about an
    /// absence) or, without one, `ttl` seconds from when it was stored.
    static func missingFreshUntil(_ headers: HTTPHeaders, storedAt: Date, ttl: TimeInterval) -> Double {
        let directives = cacheControl(headers)
        if directives["no-cache"] != nil || directives["no-store"] != nil { return 0 }
        let explicit = directives["max-age"] != nil || headers.first(name: "Expires") != nil
        if explicit { return freshUntil(headers, storedAt: storedAt) }
        return storedAt.timeIntervalSince1970 + ttl
    }

    /// `no-store` forbids storing; so does `Vary: *` (the response may differ on anything).
    static func mayStore(_ headers: HTTPHeaders) -> Bool {
        cacheControl(headers)["no-store"] == nil && !varyNames(headers).contains("*")
    }

    /// The request header names (lowercased) a response varies on.
    static func varyNames(_ headers: HTTPHeaders) -> [String] {
        headers[canonicalForm: "Vary"].map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// Whether the index may answer for the entry without its file being read (and its
    /// `Vary` checked): a 200 that varies on nothing, or only on headers matsite never sends
    /// (`Accept-Encoding`) or sends the same for every request of a config (configured
    /// headers are part of the key). Absences go through `lookup`, which keeps the index's
    /// digests a statement about tiles that exist.
    static func indexable(_ entry: Entry) -> Bool {
        entry.status == 200 && varyNames(entry.headers).allSatisfy { $0 == "accept-encoding" }
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
    /// Absent in entries written before absences were cached: those are all 200s.
    var status: Int?
    /// The freshness a 404/204 got when stored (its TTL came from the config then).
    var freshUntil: Double?
    /// The request's values of the headers the response varies on (absent ones left out).
    var vary: [String: String]?
}

private extension HTTPCache {
    func key(for url: String) -> String {
        SHA256.hex(of: url + "\n" + keySalt)
    }

    /// The entry file's path (a string: `URL.appendingPathComponent` costs more than the
    /// `lstat` it is for).
    /// The entry's row: its digest only when the row may answer for it (`indexable`).
    func record(_ entry: Entry, stamp: FileStamp) -> CacheIndex.Record {
        CacheIndex.Record(
            sha256: Self.indexable(entry) ? entry.sha256 : nil, size: entry.body.count, freshUntil: entry.freshUntil,
            lastUsed: clock().timeIntervalSince1970, stamp: stamp)
    }

    func drop(_ name: String) {
        unlink(folder.entryPath(name))
        index.remove(name)
    }

    /// Temporary files older than an hour were left by a build killed mid-write (a live
    /// one's are seconds old).
    func removeKilledBuildsTemporaryFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let hourAgo = Date().timeIntervalSince1970 - 3600
        for name in names where name.hasPrefix(".tmp-") {
            let path = folder.path + "/" + name
            if let stamp = FileStamp(path: path), stamp.modified < hourAgo { unlink(path) }
        }
    }

    func write(_ url: String, _ entry: Entry, request: [String: String]) {
        let varied = Self.varyNames(entry.headers)
        let meta = Meta(
            url: url, storedAt: entry.storedAt.timeIntervalSince1970, size: entry.body.count, sha256: entry.sha256,
            headers: entry.headers.map { [$0.name, $0.value] },
            status: entry.status == 200 ? nil : entry.status,
            freshUntil: entry.status == 200 ? nil : entry.freshUntil,
            vary: varied.isEmpty ? nil : request.filter { varied.contains($0.key) })
        guard var data = try? JSONEncoder().encode(meta) else { return }
        data.append(0x0A)
        data.append(contentsOf: entry.body)
        let name = key(for: url)
        let final = folder.entryPath(name)
        let temp = folder.path + "/.tmp-\(UUID().uuidString)"
        do {
            // Created with the first entry: a build that fetches nothing leaves no folder.
            try FileManager.default.createDirectory(atPath: folder.shardPath(name), withIntermediateDirectories: true)
            try FileWrite.write(data, to: temp)
            guard rename(temp, final) == 0 else {
                unlink(temp)
                return
            }
            // Every entry gets a row (eviction's clock); only an indexable one's carries its
            // digest, so that a replaced entry is never answered for by its old row.
            if let stamp = FileStamp(path: final) { index.set(name, record(entry, stamp: stamp)) } else { index.remove(name) }
        } catch {
            unlink(temp)
        }
    }
}
