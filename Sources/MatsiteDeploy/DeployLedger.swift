import Foundation

/// What `matsite deploy` knows about a target, kept on the target itself
/// (`matsite-deploy.json`, written last) so that any machine deploying there next, a
/// fresh CI runner included, compares against it and keeps the grace period's clock.
struct DeployLedger: Codable, Equatable, Sendable {
    /// A file as matsite uploaded it.
    struct Entry: Codable, Equatable, Sendable {
        var sha256: String
        var size: Int
    }

    /// The ledger's name at the target's root; never uploaded from the site, never deleted.
    /// No leading dot: some servers leave dot-files out of their listings (nginx's WebDAV),
    /// and a ledger not listed is a target whose every file is sent again.
    static let name = "matsite-deploy.json"
    /// The name before: read when the target has no ledger under `name`, deleted once the
    /// ledger is written under `name`.
    static let legacyName = ".matsite-deploy.json"

    var version = 1
    /// The base's id, naming its journal's entries (``LedgerJournal``); nil in a ledger
    /// written by an older matsite, and in the ledger as deploy works with it.
    var id: String?
    /// Every file matsite uploaded and believes is there, by site path.
    var files: [String: Entry] = [:]
    /// Files on the target that the site no longer has, with the time each was first seen
    /// so (ISO 8601): deleted once that is longer ago than the grace period.
    var unreferenced: [String: String] = [:]

    /// Reads a ledger; nil for bytes that are not one (a fresh target, or a damaged
    /// ledger: then every file is compared as unknown and uploaded again, which is safe).
    static func decode(_ data: Data) -> DeployLedger? {
        guard let ledger = try? JSONDecoder().decode(DeployLedger.self, from: data), ledger.version == 1 else { return nil }
        return ledger
    }

    /// The ledger as written to the target: sorted keys, so equal ledgers are equal bytes.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}
