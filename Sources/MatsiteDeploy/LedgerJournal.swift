import Foundation

/// The ledger on the target as a base and a journal of changes, so that a deploy writes
/// what it changed rather than the whole ledger again (224 KB for 1,686 files, growing with
/// every file in its grace period, where a moved window changes a few dozen entries).
///
/// - The base, `matsite-deploy.json`, is a whole ``DeployLedger`` carrying an `id`.
/// - Each change is an entry `matsite-deploy/<id>.<sequence>.json` (``LedgerDelta``):
///   the files and grace-period times set (or, as `null`, removed) since the entry before.
/// - Entries named after another base (one an older matsite rewrote, or one replaced by a
///   compaction) are stale: never applied, deleted when seen.
/// - Compaction: once the entries together outweigh the base (or number more than
///   ``maxEntries``: every deploy reads them all), the next write is a new base under a new
///   id, and the entries go. A move's writes so cost its change, plus the base amortised
///   over the moves between compactions (at most ``maxEntries`` / 2: two entries a move).
struct LedgerJournal: Sendable, Equatable {
    /// The folder the entries live in, at the target's root.
    static let folder = "matsite-deploy"
    /// Entries kept before a compaction at the latest (each costs a read per deploy).
    static let maxEntries = 32

    /// The ledger as the base and its entries make it.
    var ledger: DeployLedger
    /// The base's id; nil when the target has no base (or one without an id).
    var baseID: String?
    /// The base's size in bytes on the target.
    var baseBytes = 0
    /// The live entries' paths (relative to the target) and sizes, in order.
    var entries: [(path: String, size: Int)] = []
    /// Entries of another base: deleted when the journal is next compacted or written.
    var stale: [String] = []

    static func == (a: LedgerJournal, b: LedgerJournal) -> Bool {
        a.ledger == b.ledger && a.baseID == b.baseID && a.entries.map(\.path) == b.entries.map(\.path) && a.stale == b.stale
    }

    /// A target with no ledger at all.
    init() {
        ledger = DeployLedger()
    }

    /// Whether a target path is one of the journal's entries.
    static func isEntry(_ path: String) -> Bool {
        path.hasPrefix(folder + "/")
    }

    /// An entry's path: `matsite-deploy/<base id>.<sequence, 8 digits>.json`.
    static func entryPath(base: String, sequence: Int) -> String {
        "\(folder)/\(base).\(String(format: "%08d", sequence)).json"
    }

    /// `(base id, sequence)` of an entry's path; nil for any other path.
    static func parseEntry(_ path: String) -> (base: String, sequence: Int)? {
        guard isEntry(path), path.hasSuffix(".json") else { return nil }
        let parts = path.dropFirst(folder.count + 1).dropLast(".json".count).split(separator: ".")
        guard parts.count == 2, let sequence = Int(parts[1]) else { return nil }
        return (String(parts[0]), sequence)
    }

    /// The journal read from the target: its base (nil for none) and the entries the listing
    /// shows (path to size) with the bytes of those read (`read`: path to bytes).
    init(base: DeployLedger?, baseBytes: Int, listed: [String: Int], read: [String: Data]) {
        ledger = base ?? DeployLedger()
        ledger.id = nil
        baseID = base?.id
        self.baseBytes = baseBytes
        var live: [(path: String, sequence: Int, size: Int)] = []
        for (path, size) in listed {
            if let entry = Self.parseEntry(path), entry.base == baseID {
                live.append((path, entry.sequence, size))
            } else {
                stale.append(path)
            }
        }
        stale.sort()
        live.sort { $0.sequence < $1.sequence }
        for item in live {
            // An entry that cannot be read or decoded ends the journal there: what it and
            // those after it said is unknown, so those files are compared again (and sent).
            guard let data = read[item.path], let delta = LedgerDelta.decode(data) else {
                stale.append(contentsOf: live.drop { $0.path != item.path }.map(\.path))
                break
            }
            delta.apply(to: &ledger)
            entries.append((item.path, item.size))
        }
    }

    /// What to write to bring the target's ledger to `new`.
    enum Write: Equatable {
        /// Nothing changed.
        case none
        /// A whole base under a new id; then the entries (all now stale) may go.
        case base(DeployLedger, id: String)
        /// One entry at `path`.
        case entry(LedgerDelta, path: String)
    }

    /// The write that records `new`: an entry of the change, or a whole base when there is
    /// none yet or the entries would outweigh it.
    /// `asBase`: a whole base even when nothing changed, where the target has none (a
    /// ledger read under its old name, written under the new).
    func write(_ new: DeployLedger, asBase: Bool = false, newID: () -> String = LedgerJournal.newID) -> Write {
        guard new != ledger || (asBase && baseID == nil) else { return .none }
        guard let baseID else {
            var base = new
            let id = newID()
            base.id = id
            return .base(base, id: id)
        }
        let delta = LedgerDelta(from: ledger, to: new)
        let size = delta.encoded().count
        let journalBytes = entries.reduce(0) { $0 + $1.size } + size
        if journalBytes > max(baseBytes, 4096) || entries.count + 1 > Self.maxEntries {
            var base = new
            let id = newID()
            base.id = id
            return .base(base, id: id)
        }
        let sequence = (entries.last.flatMap { Self.parseEntry($0.path)?.sequence } ?? 0) + 1
        return .entry(delta, path: Self.entryPath(base: baseID, sequence: sequence))
    }

    /// The journal once `write` is on the target (`bytes`: what was written).
    mutating func wrote(_ write: Write, bytes: Int, ledger new: DeployLedger) {
        switch write {
        case .none:
            return
        case .base(_, let id):
            stale.append(contentsOf: entries.map(\.path))
            entries = []
            baseID = id
            baseBytes = bytes
        case .entry(_, let path):
            entries.append((path, bytes))
        }
        ledger = new
        ledger.id = nil
    }

    /// A fresh id for a base: 16 hex digits.
    static func newID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)).lowercased()
    }
}

/// One journal entry: the ledger's entries set since the one before (`null`: removed).
struct LedgerDelta: Codable, Equatable, Sendable {
    var version = 1
    var files: [String: DeployLedger.Entry?] = [:]
    var unreferenced: [String: String?] = [:]

    /// The change from `old` to `new`.
    init(from old: DeployLedger, to new: DeployLedger) {
        for (path, entry) in new.files where old.files[path] != entry { files[path] = .some(entry) }
        for path in old.files.keys where new.files[path] == nil { files[path] = .some(nil) }
        for (path, time) in new.unreferenced where old.unreferenced[path] != time { unreferenced[path] = .some(time) }
        for path in old.unreferenced.keys where new.unreferenced[path] == nil { unreferenced[path] = .some(nil) }
    }

    func apply(to ledger: inout DeployLedger) {
        for (path, entry) in files { ledger.files[path] = entry }
        for (path, time) in unreferenced { ledger.unreferenced[path] = time }
    }

    static func decode(_ data: Data) -> LedgerDelta? {
        guard let delta = try? JSONDecoder().decode(LedgerDelta.self, from: data), delta.version == 1 else { return nil }
        return delta
    }

    /// Sorted keys, `null` for a removal.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    enum CodingKeys: String, CodingKey {
        case version, files, unreferenced
    }

    func encode(to encoder: any Encoder) throws {
        // Optional values in a dictionary encode as `null` only when written out so.
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        var f = c.nestedContainer(keyedBy: AnyKey.self, forKey: .files)
        for (path, entry) in files {
            if let entry { try f.encode(entry, forKey: AnyKey(path)) } else { try f.encodeNil(forKey: AnyKey(path)) }
        }
        var u = c.nestedContainer(keyedBy: AnyKey.self, forKey: .unreferenced)
        for (path, time) in unreferenced {
            if let time { try u.encode(time, forKey: AnyKey(path)) } else { try u.encodeNil(forKey: AnyKey(path)) }
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        let f = try c.nestedContainer(keyedBy: AnyKey.self, forKey: .files)
        for key in f.allKeys {
            let entry = try f.decodeNil(forKey: key) ? nil : f.decode(DeployLedger.Entry.self, forKey: key)
            files[key.stringValue] = .some(entry)
        }
        let u = try c.nestedContainer(keyedBy: AnyKey.self, forKey: .unreferenced)
        for key in u.allKeys {
            let time = try u.decodeNil(forKey: key) ? nil : u.decode(String.self, forKey: key)
            unreferenced[key.stringValue] = .some(time)
        }
    }

    /// A coding key for any string.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// Writes a deploy's ledger changes to the target through its ``LedgerJournal``.
struct LedgerWriter {
    var journal: LedgerJournal
    let scratch: URL
    /// Whether a base goes through a staging folder (WebDAV, where rclone writes in place).
    let stageBase: Bool
    private var count = 0

    init(journal: LedgerJournal, scratch: URL, stageBase: Bool) {
        self.journal = journal
        self.scratch = scratch
        self.stageBase = stageBase
    }

    /// Records `ledger` on the target: an entry of the change, or a new base.
    mutating func record(_ ledger: DeployLedger, asBase: Bool = false, deployer: Deployer, rclone: Rclone) throws {
        let write = journal.write(ledger, asBase: asBase)
        count += 1
        let file = scratch.appendingPathComponent("ledger-\(count).json")
        switch write {
        case .none:
            return
        case .base(let base, _):
            let data = base.encoded()
            try data.write(to: file)
            try deployer.put(file, as: DeployLedger.name, staged: stageBase, rclone: rclone)
            journal.wrote(write, bytes: data.count, ledger: ledger)
        case .entry(let delta, let path):
            let data = delta.encoded()
            try data.write(to: file)
            try deployer.put(file, as: path, staged: false, rclone: rclone)
            journal.wrote(write, bytes: data.count, ledger: ledger)
        }
    }

    /// Deletes the entries a new base made stale, or another base's.
    mutating func removeStale(deployer: Deployer, rclone: Rclone) throws {
        guard !journal.stale.isEmpty else { return }
        try deployer.deleteQuietly(
            journal.stale, list: scratch.appendingPathComponent("stale.txt"), what: .staleJournalEntries, rclone: rclone)
        journal.stale = []
        // The journal's folder, if that emptied it (file servers keep empty folders).
        if journal.entries.isEmpty {
            _ = try rclone.run(
                RcloneArguments.removeEmptyFolders(DeployTarget.join(deployer.deploy.target, LedgerJournal.folder), keepRoot: false) + rclone.flags)
        }
    }
}
