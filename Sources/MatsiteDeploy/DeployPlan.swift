import Foundation
import MatsiteCapabilities

/// One file of the built site, as deploy compares it.
struct SiteFile: Sendable, Equatable {
    /// Path relative to the site folder, `/`-separated.
    var path: String
    var size: Int
    var sha256: String
}

/// What one deploy will do: the uploads of each wave, the deletes, and the files waiting
/// out their grace period. Made from the site, the target's listing and its ledger only,
/// so a deploy that was killed and is run again plans from what is really there.
struct DeployPlan: Sendable {
    /// A group of files uploaded by one transfer, in order.
    struct Batch: Sendable {
        var wave: DeployWave
        var files: [SiteFile]
        var bytes: Int { files.reduce(0) { $0 + $1.size } }
    }

    /// A file out of the site whose grace period has not run out.
    struct Pending: Sendable, Equatable {
        var path: String
        var since: Date
        /// Seconds until it may be deleted.
        var left: Double
    }

    /// Uploads, in order: wave by wave; within the manifest and page waves, the
    /// animations' files before the site's own, which link to them.
    var batches: [Batch] = []
    /// Site files already on the target with the same bytes.
    var unchanged = 0
    /// Target files to delete now (out of the site for longer than the grace period).
    var deletes: [String] = []
    /// Files due for deletion but held back by `max_deletes`.
    var heldByCap = 0
    /// Files out of the site, still in their grace period.
    var pending: [Pending] = []
    /// What a killed deploy left on the target (rclone's `*.partial` files, matsite's
    /// staging folders): never part of a site nor read by anyone, deleted at once.
    var leftovers: [String] = []
    /// Site files sent to a path the target already has a file at: a reader may be reading
    /// it, so where rclone would write it in place it goes through a temporary name.
    var replacing: Set<String> = []
    /// The ledger before any upload: the files about to be replaced are dropped from it,
    /// so a deploy killed mid-way leaves them unknown (compared again) rather than
    /// vouched for with their old bytes.
    var interimLedger: DeployLedger
    /// The ledger once every step succeeded.
    var finalLedger: DeployLedger
    /// Whether the target's ledger must be written at all (not for an unchanged site).
    var ledgerChanged: Bool

    var uploadCount: Int { batches.reduce(0) { $0 + $1.files.count } }
    var uploadBytes: Int { batches.reduce(0) { $0 + $1.bytes } }

    /// Files and bytes uploaded per wave.
    func totals(_ wave: DeployWave) -> (files: Int, bytes: Int) {
        batches.filter { $0.wave == wave }.reduce((0, 0)) { ($0.0 + $1.files.count, $0.1 + $1.bytes) }
    }

    /// Plans a deploy.
    ///
    /// - Parameters:
    ///   - site: every file of the built site.
    ///   - remote: the target's files (path to size), the ledger and dot-files left out.
    ///   - ledger: the target's ledger, nil when it has none.
    ///   - now: the time the grace periods are measured against.
    ///
    /// A file is compared at its own path only. Frames and their tiles are named by their
    /// content, so a moved window leaves the kept ones unchanged at their paths; a file whose
    /// bytes the target holds under another name (two tiles alike) is uploaded, as a copy on
    /// the server would cost a request just the same.
    init(site: [SiteFile], remote: [String: Int], ledger: DeployLedger?, now: Date, graceSeconds: Double, maxDeletes: Int) {
        let old = ledger ?? DeployLedger()
        var final = DeployLedger()
        var interim = old
        var uploads: [DeployWave: [SiteFile]] = [:]
        for file in site.sorted(by: { $0.path < $1.path }) {
            final.files[file.path] = .init(sha256: file.sha256, size: file.size)
            let known = old.files[file.path]
            if let size = remote[file.path], size == file.size, known == .init(sha256: file.sha256, size: file.size) {
                unchanged += 1
                continue
            }
            if remote[file.path] != nil { replacing.insert(file.path) }
            uploads[DeployWave.of(file.path), default: []].append(file)
            interim.files[file.path] = nil
        }
        for wave in DeployWave.allCases {
            guard let files = uploads[wave], !files.isEmpty else { continue }
            if wave == .manifests || wave == .pages {
                // The site's own index links to every animation's: it goes last.
                let nested = files.filter { $0.path.contains("/") }, top = files.filter { !$0.path.contains("/") }
                for part in [nested, top] where !part.isEmpty { batches.append(Batch(wave: wave, files: part)) }
            } else {
                batches.append(Batch(wave: wave, files: files))
            }
        }
        // Out of the site: deleted once unreferenced for the grace period, oldest first,
        // at most maxDeletes per run.
        let inSite = Set(site.map(\.path))
        var due: [(path: String, since: Date)] = []
        for path in remote.keys.sorted() where !inSite.contains(path) {
            if Self.isLeftover(path) {
                leftovers.append(path)
                continue
            }
            let since = old.unreferenced[path].flatMap { try? TimeInstant.parse($0).date } ?? now
            final.unreferenced[path] = Self.ledgerTime(since)
            if let entry = old.files[path] { final.files[path] = entry }
            let age = now.timeIntervalSince(since)
            if age >= graceSeconds {
                due.append((path, since))
            } else {
                pending.append(Pending(path: path, since: since, left: graceSeconds - age))
            }
        }
        due.sort { ($0.since, $0.path) < ($1.since, $1.path) }
        deletes = due.prefix(maxDeletes).map(\.path)
        heldByCap = due.count - deletes.count
        for path in deletes {
            final.unreferenced[path] = nil
            final.files[path] = nil
        }
        interimLedger = interim
        finalLedger = final
        ledgerChanged = final != old || ledger == nil
    }
}

extension DeployPlan {
    /// The folder at the target's root where matsite stages files that replace others on a
    /// target rclone writes in place; `matsite-staging-<id>/`.
    static let stagingPrefix = "matsite-staging-"

    /// A time as the ledger writes it: UTC, whole seconds (`2026-11-25T12:13:00Z`).
    static func ledgerTime(_ date: Date) -> String {
        TimeInstant(millisecondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded(.down)) * 1000).iso8601
    }

    /// Whether a target path is what an interrupted deploy left: rclone's temporary upload
    /// (`name.<8 hex>.partial`) or a file in a staging folder.
    static func isLeftover(_ path: String) -> Bool {
        if path.hasPrefix(stagingPrefix), path.contains("/") { return true }
        let parts = path.split(separator: ".")
        guard parts.count >= 3, parts[parts.count - 1] == "partial" else { return false }
        let tag = parts[parts.count - 2]
        return tag.count == 8 && tag.allSatisfy { $0.isASCII && $0.isHexDigit }
    }
}
