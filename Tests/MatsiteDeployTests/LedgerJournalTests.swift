import Foundation
import Testing

@testable import MatsiteDeploy

/// The ledger as a base and a journal of changes: a move writes an entry of what changed,
/// entries are applied in order, stale ones ignored, and a compaction writes a new base once
/// the entries outweigh it. The transfers are tested against real servers in Tests/deploy.
@Suite("LedgerJournal")
struct LedgerJournalTests {
    static func ledger(_ count: Int, unreferenced: [String: String] = [:]) -> DeployLedger {
        var ledger = DeployLedger()
        for i in 0..<count { ledger.files["radar/tiles/\(i).png"] = .init(sha256: String(repeating: "a", count: 64), size: 100 + i) }
        ledger.unreferenced = unreferenced
        return ledger
    }

    /// The journal as a deploy would read it back from what `writes` put on the target.
    static func readBack(base: DeployLedger, entries: [(String, Data)]) -> LedgerJournal {
        LedgerJournal(
            base: base, baseBytes: base.encoded().count, listed: Dictionary(uniqueKeysWithValues: entries.map { ($0.0, $0.1.count) }),
            read: Dictionary(uniqueKeysWithValues: entries))
    }

    @Test("no base: the first write is a whole base; then each change is a small entry that reads back to the same ledger")
    func baseThenEntries() throws {
        var journal = LedgerJournal(base: nil, baseBytes: 0, listed: [:], read: [:])
        let first = Self.ledger(1000)
        let write = journal.write(first, newID: { "base1" })
        guard case .base(let base, let id) = write else {
            Issue.record("expected a base, got \(write)")
            return
        }
        #expect(id == "base1" && base.id == "base1")
        journal.wrote(write, bytes: base.encoded().count, ledger: first)
        var entries: [(String, Data)] = []
        var current = first
        for move in 0..<5 {
            var next = current
            next.files["radar/frames/new\(move).png"] = .init(sha256: "b", size: 7)
            next.unreferenced["radar/frames/old\(move).png"] = "2026-11-21T12:00:00Z"
            let w = journal.write(next)
            guard case .entry(let delta, let path) = w else {
                Issue.record("expected an entry, got \(w)")
                return
            }
            #expect(path == "matsite-deploy/base1.\(String(format: "%08d", move + 1)).json")
            let data = delta.encoded()
            // The change, not the ledger: a few hundred bytes against a base of ~150 KB.
            #expect(data.count < 300, "\(String(decoding: data, as: UTF8.self))")
            entries.append((path, data))
            journal.wrote(w, bytes: data.count, ledger: next)
            current = next
        }
        let back = Self.readBack(base: base, entries: entries)
        #expect(back.ledger == current)
        #expect(back.entries.count == 5 && back.stale.isEmpty)
        #expect(back.write(current) == .none)
    }

    @Test("a removal is written as null and read back as a removal")
    func removals() throws {
        var base = Self.ledger(3, unreferenced: ["gone.png": "2026-11-21T12:00:00Z"])
        base.id = "b"
        let journal = LedgerJournal(base: base, baseBytes: 50_000, listed: [:], read: [:])
        var next = journal.ledger
        next.files["radar/tiles/0.png"] = nil
        next.unreferenced["gone.png"] = nil
        guard case .entry(let delta, let path) = journal.write(next) else {
            Issue.record("expected an entry")
            return
        }
        let text = String(decoding: delta.encoded(), as: UTF8.self)
        #expect(text.contains("\"radar/tiles/0.png\":null") && text.contains("\"gone.png\":null"), "\(text)")
        let back = Self.readBack(base: base, entries: [(path, delta.encoded())])
        #expect(back.ledger == next)
    }

    @Test("entries of another base are stale: not applied, listed for deletion; a damaged entry ends the journal")
    func staleAndDamaged() {
        var base = Self.ledger(2)
        base.id = "new"
        var changed = base
        changed.id = nil
        changed.files["x.png"] = .init(sha256: "c", size: 1)
        let good = LedgerDelta(from: Self.ledger(2), to: changed).encoded()
        let journal = LedgerJournal(
            base: base, baseBytes: 10_000,
            listed: ["matsite-deploy/old.00000001.json": 10, "matsite-deploy/new.00000001.json": good.count, "matsite-deploy/new.00000002.json": 5],
            read: ["matsite-deploy/new.00000001.json": good, "matsite-deploy/new.00000002.json": Data("{oops".utf8)])
        #expect(journal.ledger.files["x.png"] != nil)
        #expect(journal.entries.map(\.path) == ["matsite-deploy/new.00000001.json"])
        #expect(Set(journal.stale) == ["matsite-deploy/old.00000001.json", "matsite-deploy/new.00000002.json"])
    }

    @Test("once the entries would outweigh the base, the write is a new base and the entries become stale")
    func compaction() {
        var base = Self.ledger(10)
        base.id = "small"
        var journal = LedgerJournal(base: base, baseBytes: base.encoded().count, listed: [:], read: [:])
        var current = journal.ledger
        var bases = 0
        for move in 0..<200 {
            current.files["radar/frames/\(move).png"] = .init(sha256: String(repeating: "f", count: 64), size: move)
            let write = journal.write(current, newID: { "id\(move)" })
            switch write {
            case .base(let b, _):
                bases += 1
                let before = journal.entries.map(\.path)
                journal.wrote(write, bytes: b.encoded().count, ledger: current)
                #expect(journal.entries.isEmpty && Set(before).isSubset(of: Set(journal.stale)))
            case .entry(let d, _):
                journal.wrote(write, bytes: d.encoded().count, ledger: current)
            case .none:
                Issue.record("a change wrote nothing")
            }
            #expect(journal.entries.count <= LedgerJournal.maxEntries)
        }
        // The base doubles between compactions at most: a handful, not one per move.
        #expect(bases >= 1 && bases < 20, "\(bases)")
    }
}
