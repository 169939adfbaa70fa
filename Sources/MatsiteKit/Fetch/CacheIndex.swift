import Foundation
import GRDB

/// The tile cache's index: a SQLite database (`index.sqlite` in the cache folder, WAL mode)
/// with one row per entry: its content hash, body size, expiry, last use and the entry
/// file's stamp (size, modification time, inode) when the row was written.
///
/// A row is believed only while the entry file's stamp still matches, so an entry
/// rewritten by another build, damaged in place or deleted is read the slow way (and
/// verified by its checksum) instead. Rows are read by key and written in place (upserts,
/// `batchSize` to a transaction, the rest at the end of a build), so what a build costs
/// follows the entries it touches, not how many the folder holds; `last_used` is indexed
/// for eviction. Builds sharing the folder write their own rows; one that finds the
/// database busy waits up to `busyTimeout`.
///
/// The database is only an accelerator and eviction's clock: when it is missing, damaged
/// or of another version it is rebuilt from the entry files (`adopt`: a row per file, its
/// hash unknown until the entry is next read and verified), which costs slow reads, never
/// a wrong answer. The same walk moves the entries of the earlier flat layout into the
/// sharded one (`CacheFolder`) and removes that layout's binary `.index`.
final class CacheIndex: Sendable {
    static let fileName = "index.sqlite"
    /// The binary index of the flat layout, removed when the folder is adopted.
    static let legacyFileName = ".index"
    /// Bumped when the schema changes: a database of another version is rebuilt.
    static let schemaVersion = 1
    /// Changes kept in memory before they are written in one transaction.
    static let batchSize = 256
    /// How long a build waits for another one's write transaction.
    static let busyTimeout: TimeInterval = 60
    /// How stale a last-use time may get before a use is worth writing: eviction counts
    /// it in its grace, and an unchanged rebuild then need not write at all.
    static let useResolution: Double = 600
    /// How often a build that evicts walks the folder for entry files without a row (a
    /// killed build's last stores), so that those age out too.
    static let sweepInterval: Double = 86400

    struct Record: Equatable, Sendable {
        /// The body's SHA-256 (hex); nil when the row may not answer for the entry without
        /// its file being read (an absence, a response that varies, an entry not yet verified).
        var sha256: String?
        /// Body bytes (with `sha256`).
        var size: Int
        /// Seconds since 1970 until which the entry is fresh (0: revalidate every time).
        var freshUntil: Double
        /// Seconds since 1970 of the last build that used it.
        var lastUsed: Double
        var stamp: FileStamp
    }

    let folder: CacheFolder
    private let clock: @Sendable () -> Date
    private let state = LockedBox(State())
    private let opening = LockedBox(Opening())

    private struct State {
        /// Rows to write (nil: delete), newest change per entry.
        var pending: [String: Record?] = [:]
        /// Entries this build used: eviction spares them whatever their clock says.
        var used: Set<String> = []
        /// Used entries whose row's last use is older than `useResolution`.
        var bumps: Set<String> = []
        /// True once this build changed something.
        var changed = false
        /// Write transactions committed (what an idle build must not do).
        var writes = 0
    }

    private struct Opening {
        var queue: DatabaseQueue?
        var failed = false
        /// A query found the file damaged: rebuilt when next needed (or removed at `close`).
        var damaged = false
    }

    init(folder: CacheFolder, clock: @escaping @Sendable () -> Date = Date.init) {
        self.folder = folder
        self.clock = clock
    }

    /// True once this build stored, dropped or newly used an entry.
    var changed: Bool { state.withLock { $0.changed } }
    /// Write transactions this index committed.
    var writes: Int { state.withLock { $0.writes } }

    /// The rows of `names` in their order, or nil as soon as one has none.
    func records(_ names: [String]) -> [Record]? {
        var found: [String: Record] = [:]
        var unknown: [String] = []
        state.withLock { state in
            for name in names {
                if let change = state.pending[name] {
                    found[name] = change
                } else {
                    unknown.append(name)
                }
            }
        }
        if !unknown.isEmpty {
            guard let queue = database(create: false) else { return nil }
            let read = attempt {
                try queue.read { db in
                    var rows: [String: Record] = [:]
                    for chunk in stride(from: 0, to: unknown.count, by: 500) {
                        let part = unknown[chunk..<min(chunk + 500, unknown.count)]
                        let marks = Array(repeating: "?", count: part.count).joined(separator: ",")
                        let keys = part.compactMap { Hex.decode($0).map { Data($0) } }
                        for row in try Row.fetchAll(db, sql: "SELECT * FROM entry WHERE name IN (\(marks))", arguments: StatementArguments(keys)) {
                            if let pair = Self.record(row) { rows[pair.name] = pair.record }
                        }
                    }
                    return rows
                }
            }
            guard let read else { return nil }
            found.merge(read) { pending, _ in pending }
        }
        var out: [Record] = []
        out.reserveCapacity(names.count)
        for name in names {
            guard let record = found[name] else { return nil }
            out.append(record)
        }
        return out
    }

    func record(_ name: String) -> Record? {
        records([name])?.first
    }

    /// Writes (later, batched) `record` for `name`, which this build used.
    func set(_ name: String, _ record: Record) {
        let flush = state.withLock { state in
            state.used.insert(name)
            state.bumps.remove(name)
            state.pending[name] = record
            state.changed = true
            return state.pending.count + state.bumps.count >= Self.batchSize
        }
        if flush { self.flush() }
    }

    /// Notes that this build used `names`, whose rows say `records`.
    func used(_ names: [String], _ records: [Record?]) {
        let now = clock().timeIntervalSince1970
        let flush = state.withLock { state in
            for (name, record) in zip(names, records) {
                state.used.insert(name)
                if let record, now - record.lastUsed >= Self.useResolution, state.pending[name] == nil {
                    state.bumps.insert(name)
                    state.changed = true
                }
            }
            return state.pending.count + state.bumps.count >= Self.batchSize
        }
        if flush { self.flush() }
    }

    /// Forgets an entry (its file is gone or damaged).
    func remove(_ name: String) {
        state.withLock { state in
            state.pending[name] = .some(nil)
            state.bumps.remove(name)
            state.changed = true
        }
    }

    /// Writes the pending rows and last uses in one transaction. A failure loses them,
    /// which costs slow reads, never a wrong answer.
    func flush() {
        let (pending, bumps) = state.withLock { state in
            defer {
                state.pending = [:]
                state.bumps = []
            }
            return (state.pending, state.bumps)
        }
        guard !pending.isEmpty || !bumps.isEmpty, let queue = database(create: true) else { return }
        let now = clock().timeIntervalSince1970
        let written: Void? = attempt {
            try queue.write { db in
                for (name, change) in pending {
                    guard let key = Hex.decode(name).map({ Data($0) }) else { continue }
                    guard let record = change else {
                        try db.execute(sql: "DELETE FROM entry WHERE name = ?", arguments: [key])
                        continue
                    }
                    try db.execute(
                        sql: """
                            INSERT INTO entry (name, sha256, size, fresh_until, last_used, file_size, file_mtime, file_inode)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                            ON CONFLICT (name) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size,
                                fresh_until = excluded.fresh_until, last_used = max(last_used, excluded.last_used),
                                file_size = excluded.file_size, file_mtime = excluded.file_mtime, file_inode = excluded.file_inode
                            """,
                        arguments: [
                            key, record.sha256.flatMap(Hex.decode).map { Data($0) }, record.size, record.freshUntil,
                            record.lastUsed, record.stamp.size, record.stamp.modifiedNanoseconds,
                            Int64(bitPattern: record.stamp.inode),
                        ])
                }
                for name in bumps {
                    guard let key = Hex.decode(name).map({ Data($0) }) else { continue }
                    try db.execute(sql: "UPDATE entry SET last_used = max(last_used, ?) WHERE name = ?", arguments: [now, key])
                }
            }
        }
        if written != nil { state.withLock { $0.writes += 1 } }
    }

    /// Deletes the entries (rows and files) no build used since `cutoff`, but those this
    /// build used; returns how many went. Each row is deleted only if its last use is still
    /// older than `cutoff` inside the transaction, so an entry another build used meanwhile stays.
    @discardableResult
    func evict(unusedSince cutoff: Double) -> Int {
        flush()
        guard let queue = database(create: false) else { return 0 }
        sweepIfDue(queue)
        let used = state.withLock { $0.used }
        let candidates =
            attempt {
                try queue.read { db in
                    try Data.fetchAll(db, sql: "SELECT name FROM entry WHERE last_used < ? ORDER BY last_used", arguments: [cutoff])
                }
            }?.map { $0.withUnsafeBytes(Hex.encode) }.filter { !used.contains($0) } ?? []
        return delete(candidates, in: queue, onlyIfUnusedSince: cutoff)
    }

    /// Deletes least recently used entries until the entries and the index take at most
    /// `maxSize` bytes; returns how many went.
    @discardableResult
    func trim(to maxSize: Int64) -> Int {
        flush()
        guard let queue = database(create: false) else { return 0 }
        let oldestFirst = attempt {
            try queue.read { db -> [(String, Int64)] in
                let entries = try Int64.fetchOne(db, sql: "SELECT coalesce(sum(file_size), 0) FROM entry") ?? 0
                // The database's size once checkpointed (while open, new pages sit in its log).
                let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                var over = entries + max(pages * pageSize, folder.indexBytes()) - maxSize
                guard over > 0 else { return [] }
                var out: [(String, Int64)] = []
                let rows = try Row.fetchCursor(db, sql: "SELECT name, file_size FROM entry ORDER BY last_used")
                while over > 0, let row = try rows.next() {
                    let name = (row["name"] as Data).withUnsafeBytes(Hex.encode), size: Int64 = row["file_size"]
                    out.append((name, size))
                    // Not counting the row's own bytes: deleting rows seldom shrinks the file.
                    over -= size
                }
                return out
            }
        }
        guard let oldestFirst, !oldestFirst.isEmpty else { return 0 }
        return delete(oldestFirst.map(\.0), in: queue, onlyIfUnusedSince: nil)
    }

    /// Opens (and when needed creates, adopts or rebuilds) the database; nil while the
    /// cache folder does not exist (unless `create`) or when it cannot be opened at all.
    private func database(create: Bool) -> DatabaseQueue? {
        opening.withLock { opening in
            if opening.damaged {
                // Found damaged in use: rebuilt now, so that what this build learns is kept.
                opening.queue = nil
                opening.damaged = false
                removeDatabase()
            }
            if let queue = opening.queue { return queue }
            guard !opening.failed else { return nil }
            guard create || FileManager.default.fileExists(atPath: folder.path) else { return nil }
            do {
                try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
                opening.queue = try openOrRebuild()
            } catch {
                opening.failed = true
            }
            return opening.queue
        }
    }

    private func openOrRebuild() throws -> DatabaseQueue {
        do {
            return try prepared()
        } catch let error as DatabaseError where Self.isDamage(error) {
            // Damaged, foreign or of another version: start again from the entry files.
            // (Busy, full or unwritable is not damage: the index then stays off this build.)
            removeDatabase()
            return try prepared()
        }
    }

    /// What says the file is not this index: not a database, damaged, or another schema.
    private static func isDamage(_ error: DatabaseError) -> Bool {
        [ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_ERROR].contains(error.resultCode)
    }

    private func removeDatabase() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.indexPath + suffix) }
    }

    /// Ends the build's use of the database; one found damaged by the last query is
    /// removed, so that the next build rebuilds it.
    func close() {
        opening.withLock { opening in
            opening.queue = nil
            if opening.damaged {
                removeDatabase()
                opening.damaged = false
            }
        }
    }

    private func prepared() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.prepareDatabase { db in
            // WAL: readers never wait for a writer; NORMAL: a crash can lose the last
            // transactions, never damage the file. Both are no-ops once set.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let queue = try DatabaseQueue(path: folder.indexPath, configuration: configuration)
        let ready = try queue.read { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            guard version != 0 else { return false }
            guard version == Self.schemaVersion else { throw DatabaseError(message: "index of schema version \(version)") }
            return try Double.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'swept'") != nil
        }
        if !ready {
            let now = clock().timeIntervalSince1970
            try queue.write { db in
                // Another build may have done it while this one waited for the lock.
                if try Int.fetchOne(db, sql: "PRAGMA user_version") == 0 {
                    try db.execute(
                        sql: """
                            PRAGMA auto_vacuum = INCREMENTAL;
                            CREATE TABLE entry (
                                name BLOB PRIMARY KEY NOT NULL, sha256 BLOB, size INTEGER NOT NULL,
                                fresh_until REAL NOT NULL, last_used REAL NOT NULL,
                                file_size INTEGER NOT NULL, file_mtime INTEGER NOT NULL, file_inode INTEGER NOT NULL
                            ) WITHOUT ROWID;
                            CREATE INDEX entry_last_used ON entry (last_used);
                            CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value REAL NOT NULL) WITHOUT ROWID;
                            PRAGMA user_version = \(Self.schemaVersion);
                            """)
                }
                if try Double.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'swept'") == nil { try adopt(db, now: now) }
            }
            state.withLock { $0.writes += 1 }
        }
        return queue
    }

    /// Gives every entry file without a row one (hash unknown, last used when it was
    /// written), moving the flat layout's entries into their shards, and removes the
    /// flat layout's binary index.
    private func adopt(_ db: Database, now: Double) throws {
        for (name, stamp) in folder.entryFiles(moveFlat: true) {
            guard let key = Hex.decode(name) else { continue }
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO entry (name, sha256, size, fresh_until, last_used, file_size, file_mtime, file_inode)
                    VALUES (?, NULL, ?, 0, ?, ?, ?, ?)
                    """,
                arguments: [
                    Data(key), stamp.size, min(stamp.modified, now), stamp.size, stamp.modifiedNanoseconds,
                    Int64(bitPattern: stamp.inode),
                ])
        }
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('swept', ?)", arguments: [now])
        try? FileManager.default.removeItem(atPath: folder.path + "/" + Self.legacyFileName)
    }

    private func sweepIfDue(_ queue: DatabaseQueue) {
        let now = clock().timeIntervalSince1970
        let swept = attempt { try queue.read { db in try Double.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'swept'") } }
        guard let swept, now - (swept ?? 0) >= Self.sweepInterval else { return }
        let done: Void? = attempt { try queue.write { db in try adopt(db, now: now) } }
        if done != nil { state.withLock { $0.writes += 1 } }
    }

    private func delete(_ names: [String], in queue: DatabaseQueue, onlyIfUnusedSince cutoff: Double?) -> Int {
        var deleted = 0
        for chunk in stride(from: 0, to: names.count, by: 500) {
            let part = names[chunk..<min(chunk + 500, names.count)]
            let count = attempt {
                try queue.write { db -> Int in
                    var count = 0
                    for name in part {
                        guard let key = Hex.decode(name) else { continue }
                        if let cutoff {
                            try db.execute(sql: "DELETE FROM entry WHERE name = ? AND last_used < ?", arguments: [Data(key), cutoff])
                        } else {
                            try db.execute(sql: "DELETE FROM entry WHERE name = ?", arguments: [Data(key)])
                        }
                        guard db.changesCount > 0 else { continue }
                        unlink(folder.entryPath(name))
                        count += 1
                    }
                    return count
                }
            }
            guard let count else { break }
            state.withLock { $0.writes += 1 }
            deleted += count
        }
        if deleted > 0 { _ = attempt { try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA incremental_vacuum") } } }
        return deleted
    }

    /// Runs a database access; an error leaves the index unanswered for it (the slow way).
    private func attempt<T>(_ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            opening.withLock { $0.damaged = true }
            return nil
        } catch {
            return nil
        }
    }

    private static func record(_ row: Row) -> (name: String, record: Record)? {
        guard let name: Data = row["name"] else { return nil }
        let sha: Data? = row["sha256"]
        let inode: Int64 = row["file_inode"]
        return (
            name.withUnsafeBytes(Hex.encode),
            Record(
                sha256: sha.map { $0.withUnsafeBytes(Hex.encode) }, size: row["size"], freshUntil: row["fresh_until"],
                lastUsed: row["last_used"],
                stamp: FileStamp(size: row["file_size"], modifiedNanoseconds: row["file_mtime"], inode: UInt64(bitPattern: inode)))
        )
    }
}

/// The cache folder's layout: each entry (named by the SHA-256 of its key, 64 hex digits)
/// in a folder named by the name's first two digits (`3f/3fa9...`), so that no folder holds
/// more than about 1/256 of the entries; beside them the index (`index.sqlite`) and
/// temporary files (`.tmp-*`). One level: with eviction the cache holds about one window
/// of tiles, and a second level would cost a 4 KB folder per entry or two.
struct CacheFolder: Sendable {
    let path: String

    init(_ url: URL) {
        path = url.path
    }

    var indexPath: String { path + "/" + CacheIndex.fileName }

    /// The entry file's path relative to the cache folder.
    static func relativePath(_ name: String) -> String {
        String(name.prefix(2)) + "/" + name
    }

    func entryPath(_ name: String) -> String {
        path + "/" + Self.relativePath(name)
    }

    func shardPath(_ name: String) -> String {
        path + "/" + name.prefix(2)
    }

    /// Bytes the index's database takes (its write-ahead log is gone once no build has it open).
    func indexBytes() -> Int64 {
        FileStamp(path: indexPath)?.size ?? 0
    }

    /// Every entry file with its stamp; with `moveFlat`, entries of the flat layout (in the
    /// folder itself) are first moved into their shards.
    func entryFiles(moveFlat: Bool) -> [(String, FileStamp)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
        var out: [(String, FileStamp)] = []
        for name in names {
            if Self.isEntryName(name) {
                guard moveFlat, FileStamp(path: path + "/" + name) != nil else { continue }
                try? FileManager.default.createDirectory(atPath: shardPath(name), withIntermediateDirectories: true)
                guard rename(path + "/" + name, entryPath(name)) == 0, let stamp = FileStamp(path: entryPath(name)) else { continue }
                out.append((name, stamp))
            } else if name.utf8.count == 2, name.utf8.allSatisfy(Self.isHexDigit),
                let files = try? FileManager.default.contentsOfDirectory(atPath: path + "/" + name)
            {
                for file in files where Self.isEntryName(file) && file.hasPrefix(name) {
                    if let stamp = FileStamp(path: entryPath(file)) { out.append((file, stamp)) }
                }
            }
        }
        return out
    }

    static func isEntryName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy(isHexDigit)
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x61...0x66).contains(c)
    }
}

/// What `lstat` says of a regular file, enough to notice it was changed or replaced.
struct FileStamp: Equatable, Sendable {
    var size: Int64
    var modifiedNanoseconds: Int64
    var inode: UInt64

    /// Modification time in seconds since 1970.
    var modified: Double { Double(modifiedNanoseconds) / 1e9 }

    init(size: Int64, modifiedNanoseconds: Int64, inode: UInt64) {
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.inode = inode
    }

    /// The stamp of a regular file; nil for anything else or nothing.
    init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The stamp of `name` (a path relative to an open folder; its last component is not
    /// followed if it is a symbolic link).
    init?(in folder: Int32, name: String) {
        var status = stat()
        guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        self.init(status)
    }

    private init?(_ status: stat) {
        guard (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        size = Int64(status.st_size)
        #if os(Linux)
            let time = status.st_mtim
        #else
            let time = status.st_mtimespec
        #endif
        modifiedNanoseconds = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        inode = UInt64(status.st_ino)
    }
}
