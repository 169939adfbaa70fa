import Foundation

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
        /// Files whose bytes the target already holds under another name of the same wave
        /// (a frame renumbered by a moved window): copied there, not uploaded.
        var copies: [Copy] = []
        var bytes: Int { files.reduce(0) { $0 + $1.size } }
    }

    /// A site file made from a target file with the same bytes.
    struct Copy: Sendable, Equatable {
        var from: String
        var file: SiteFile
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
    var copyCount: Int { batches.reduce(0) { $0 + $1.copies.count } }
    var uploadBytes: Int { batches.reduce(0) { $0 + $1.bytes } }

    /// Files and bytes uploaded, and files copied on the target, per wave.
    func totals(_ wave: DeployWave) -> (files: Int, bytes: Int, copies: Int) {
        batches.filter { $0.wave == wave }.reduce((0, 0, 0)) { ($0.0 + $1.files.count, $0.1 + $1.bytes, $0.2 + $1.copies.count) }
    }

    /// Plans a deploy.
    ///
    /// - Parameters:
    ///   - site: every file of the built site.
    ///   - remote: the target's files (path to size), the ledger and dot-files left out.
    ///   - ledger: the target's ledger, nil when it has none.
    ///   - now: the time the grace periods are measured against.
    ///   - serverSideCopy: whether the target can copy its own files (S3, GCS, Azure):
    ///     then a file whose bytes it holds under another name is copied, not uploaded.
    init(
        site: [SiteFile], remote: [String: Int], ledger: DeployLedger?, now: Date, graceSeconds: Double, maxDeletes: Int,
        serverSideCopy: Bool = false
    ) {
        let old = ledger ?? DeployLedger()
        var final = DeployLedger()
        var interim = old
        var uploads: [DeployWave: [SiteFile]] = [:]
        var copies: [DeployWave: [Copy]] = [:]
        // Target files the ledger vouches for, by content and wave; those whose bytes stay
        // through this deploy first (a fixed-name file being replaced can still be a source:
        // the copies are ordered to read it before it is written).
        var held: [String: String] = [:]
        if serverSideCopy {
            let bytes = Dictionary(site.map { ($0.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
            let vouched = old.files.filter { remote[$0.key] == $0.value.size }
            let stable = { (path: String, entry: DeployLedger.Entry) in bytes[path] == nil || bytes[path] == entry.sha256 }
            let ranked = vouched.sorted { a, b in
                let (sa, sb) = (stable(a.key, a.value), stable(b.key, b.value))
                return sa != sb ? sa : a.key < b.key
            }
            for (path, entry) in ranked {
                let key = "\(DeployWave.of(path).rawValue) \(entry.sha256) \(entry.size)"
                if held[key] == nil { held[key] = path }
            }
        }
        for file in site.sorted(by: { $0.path < $1.path }) {
            final.files[file.path] = .init(sha256: file.sha256, size: file.size)
            let known = old.files[file.path]
            if let size = remote[file.path], size == file.size, known == .init(sha256: file.sha256, size: file.size) {
                unchanged += 1
                continue
            }
            let wave = DeployWave.of(file.path)
            if remote[file.path] != nil { replacing.insert(file.path) }
            if let from = held["\(wave.rawValue) \(file.sha256) \(file.size)"] {
                copies[wave, default: []].append(Copy(from: from, file: file))
            } else {
                uploads[wave, default: []].append(file)
            }
            interim.files[file.path] = nil
        }
        for wave in DeployWave.allCases {
            let (levels, cyclic) = Self.ordered(copies[wave] ?? [])
            for level in levels { batches.append(Batch(wave: wave, files: [], copies: level)) }
            let files = (uploads[wave] ?? []) + cyclic.map(\.file)
            if files.isEmpty { continue }
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
            let since = old.unreferenced[path].flatMap(TimeFormat.parseISO) ?? now
            final.unreferenced[path] = TimeFormat.iso(since)
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

    /// Whether a target path is what an interrupted deploy left: rclone's temporary upload
    /// (`name.<8 hex>.partial`) or a file in a staging folder.
    static func isLeftover(_ path: String) -> Bool {
        if path.hasPrefix(stagingPrefix), path.contains("/") { return true }
        let parts = path.split(separator: ".")
        guard parts.count >= 3, parts[parts.count - 1] == "partial" else { return false }
        let tag = parts[parts.count - 2]
        return tag.count == 8 && tag.allSatisfy { $0.isASCII && $0.isHexDigit }
    }

    /// Orders copies so that each reads its source before anything writes over it: a moved
    /// window shifts fixed-name files along a chain (`tiles/0000` takes `tiles/0001`'s old
    /// bytes, which take `tiles/0002`'s...). Returns the copies in levels (a level's copies
    /// may run at once; level 0 first) and those caught in a cycle, to upload instead.
    static func ordered(_ copies: [Copy]) -> (levels: [[Copy]], cyclic: [Copy]) {
        var readers: [String: [Int]] = [:]
        for (i, copy) in copies.enumerated() { readers[copy.from, default: []].append(i) }
        var level = [Int?](repeating: nil, count: copies.count)
        var visiting = Set<Int>()
        var cyclic = Set<Int>()
        // A copy runs after every copy that reads the path it writes.
        func depth(_ i: Int) -> Int? {
            if let known = level[i] { return known }
            if cyclic.contains(i) || visiting.contains(i) { return nil }
            visiting.insert(i)
            defer { visiting.remove(i) }
            var deepest = -1
            for r in readers[copies[i].file.path] ?? [] where r != i {
                guard let d = depth(r) else {
                    cyclic.insert(i)
                    return nil
                }
                deepest = max(deepest, d)
            }
            level[i] = deepest + 1
            return deepest + 1
        }
        for i in copies.indices { _ = depth(i) }
        var levels: [[Copy]] = []
        for (i, copy) in copies.enumerated() {
            guard let l = level[i], !cyclic.contains(i) else { continue }
            while levels.count <= l { levels.append([]) }
            levels[l].append(copy)
        }
        // A copy whose reader fell into a cycle must still run after it: uploads come last.
        return (levels.filter { !$0.isEmpty }, copies.indices.filter { level[$0] == nil || cyclic.contains($0) }.map { copies[$0] })
    }
}
