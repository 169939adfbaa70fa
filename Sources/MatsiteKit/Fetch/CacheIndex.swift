import Foundation

/// The tile cache's index: one record per entry with its content hash, body size, expiry,
/// last use and the entry file's stamp (size, modification time, inode) when the record was
/// written.
///
/// A record is believed only while the entry file's stamp still matches, so an entry
/// rewritten by another build, damaged in place or deleted is read the slow way (and
/// verified by its checksum) instead. The file is written whole (temp file + rename) at the
/// end of a build that changed something, merged with what other builds sharing the folder
/// saved meanwhile; a lost update costs a slow read next time, never a wrong answer.
///
/// Binary, because it is read on every build (a text form of 1,500 lines took longer to
/// parse than the rest of an unchanged rebuild): a 16-byte header (`matsite-index` and a
/// version byte, padded), then fixed 112-byte little-endian records:
///
///     entry name (32 raw bytes) | body SHA-256 (32) | body bytes (u64) | fresh until (f64,
///     seconds since 1970) | last used (f64) | file bytes (u64) | mtime ns (i64) | inode (u64)
struct CacheIndex {
    static let fileName = ".index"
    static let header: [UInt8] = Array("matsite-index".utf8) + [2, 0, 0]
    static let recordSize = 112

    struct Record: Equatable {
        var sha256: String
        var size: Int
        /// Seconds since 1970 until which the entry is fresh (0: revalidate every time).
        var freshUntil: Double
        /// Seconds since 1970 of the last build that used it.
        var lastUsed: Double
        var stamp: FileStamp
    }

    let file: URL
    private var records: [String: Record] = [:]
    private var loaded = false
    /// Entries this build wrote, verified or used: its lines win a merge.
    private var touched: Set<String> = []
    /// Entries this build deleted.
    private var removed: Set<String> = []
    /// The index file's stamp when it was read: unchanged at the end, nobody else saved.
    private var readStamp: FileStamp?
    /// True once this build changed something worth saving.
    private(set) var changed = false

    /// How stale a last-use time may get before a use is worth saving: eviction needs
    /// no finer clock, and an unchanged rebuild then need not rewrite the index.
    static let useResolution: Double = 3600

    init(file: URL) {
        self.file = file
    }

    mutating func record(_ name: String) -> Record? {
        load()
        return records[name]
    }

    mutating func set(_ name: String, _ record: Record) {
        load()
        guard records[name] != record else { return }
        records[name] = record
        touched.insert(name)
        removed.remove(name)
        changed = true
    }

    mutating func used(_ name: String, at date: Date) {
        let now = date.timeIntervalSince1970.rounded(.down)
        guard let last = records[name]?.lastUsed, now - last >= Self.useResolution else { return }
        records[name]?.lastUsed = now
        touched.insert(name)
        changed = true
    }

    /// Forgets an entry; returns the bytes its record took in the index file.
    mutating func remove(_ name: String) -> Int64 {
        load()
        let bytes = records[name] == nil ? 0 : Int64(Self.recordSize)
        records[name] = nil
        touched.remove(name)
        removed.insert(name)
        changed = true
        return bytes
    }

    /// Merges the saved index (other builds may have written it since this one read it)
    /// into this one, keeping for each present entry the line that matches its file.
    mutating func reconcile(with files: [String: FileStamp]) {
        load()
        let saved = FileStamp(path: file.path) == readStamp ? records : Self.read(file).records
        var merged: [String: Record] = [:]
        for (name, stamp) in files where !removed.contains(name) {
            let ours = records[name], theirs = saved[name]
            guard var chosen = [touched.contains(name) ? ours : nil, theirs, ours].compactMap({ $0 }).first(where: { $0.stamp == stamp })
            else { continue }
            chosen.lastUsed = max(ours?.lastUsed ?? 0, theirs?.lastUsed ?? 0, chosen.lastUsed)
            merged[name] = chosen
        }
        records = merged
    }

    /// Bytes the index file will take.
    var encodedSize: Int64 {
        Int64(Self.header.count + records.count * Self.recordSize)
    }

    /// Writes the index atomically; a failure leaves the old one (or none), which is safe.
    func save() {
        var bytes = Self.header
        bytes.reserveCapacity(Self.header.count + records.count * Self.recordSize)
        for (name, record) in records.sorted(by: { $0.key < $1.key }) {
            guard let rawName = Hex.decode(name), let rawHash = Hex.decode(record.sha256), rawName.count == 32, rawHash.count == 32
            else { continue }
            bytes += rawName
            bytes += rawHash
            for word in [
                UInt64(record.size), record.freshUntil.bitPattern, record.lastUsed.bitPattern, UInt64(record.stamp.size),
                UInt64(bitPattern: record.stamp.modifiedNanoseconds), record.stamp.inode,
            ] {
                withUnsafeBytes(of: word.littleEndian) { bytes += $0 }
            }
        }
        let temp = file.deletingLastPathComponent().appendingPathComponent(".tmp-index-\(UUID().uuidString)")
        do {
            try FileWrite.write(bytes, to: temp)
            if rename(temp.path, file.path) != 0 { try? FileManager.default.removeItem(at: temp) }
        } catch {
            try? FileManager.default.removeItem(at: temp)
        }
    }

    private mutating func load() {
        guard !loaded else { return }
        loaded = true
        (records, readStamp) = Self.read(file)
    }

    /// The saved records and the file's stamp as read. A file of another version or a
    /// truncated one reads as empty (the entries are then read the slow way).
    private static func read(_ file: URL) -> (records: [String: Record], stamp: FileStamp?) {
        let stamp = FileStamp(path: file.path)
        guard let data = FileManager.default.contents(atPath: file.path), data.count >= header.count,
            data.prefix(header.count).elementsEqual(header), (data.count - header.count) % recordSize == 0
        else { return ([:], stamp) }
        let count = (data.count - header.count) / recordSize
        var records: [String: Record] = [:]
        records.reserveCapacity(count)
        data.withUnsafeBytes { raw in
            for i in 0..<count {
                let base = header.count + i * recordSize
                func word(_ n: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 64 + 8 * n, as: UInt64.self)) }
                let name = Hex.encode(UnsafeRawBufferPointer(rebasing: raw[base..<base + 32]))
                let hash = Hex.encode(UnsafeRawBufferPointer(rebasing: raw[base + 32..<base + 64]))
                records[name] = Record(
                    sha256: hash, size: Int(truncatingIfNeeded: word(0)), freshUntil: Double(bitPattern: word(1)),
                    lastUsed: Double(bitPattern: word(2)),
                    stamp: FileStamp(
                        size: Int64(bitPattern: word(3)), modifiedNanoseconds: Int64(bitPattern: word(4)),
                        inode: word(5)))
            }
        }
        return (records, stamp)
    }
}

/// Lowercase hex, both ways.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = digits[Int(byte >> 4)]
                out[2 * i + 1] = digits[Int(byte & 15)]
            }
            return bytes.count * 2
        }
    }

    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        for i in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = value(utf8[i]), let low = value(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}

/// What `lstat` says of a regular file, enough to notice it was changed or replaced.
struct FileStamp: Equatable {
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

    /// The stamp of `name` in an open folder (no symlink followed).
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
