import Foundation

/// `matsite deploy`: publishes a built site to `deploy.target` through rclone, in waves
/// (content-hashed files, fixed-name files, manifests, pages) so a viewer never gets a
/// page whose manifest or frames are not there yet; only what changed is sent; files that
/// left the site are deleted once the grace period has passed, at most `max_deletes` a run.
public struct Deployer: Sendable {
    /// Options of one run.
    public struct Options: Sendable {
        /// Print the plan, change nothing.
        public var dryRun = false
        /// The site folder (default: the config's `output:`).
        public var output: String?
        /// The time grace periods are measured against (default: now).
        public var now: Date?

        /// Every default.
        public init() {}
    }

    /// What a deploy did (or, for a dry run, would do).
    public struct Summary: Sendable {
        /// Per wave: files and bytes uploaded.
        public var waves: [(wave: DeployWave, files: Int, bytes: Int)]
        /// Files copied on the target from a file with the same bytes (no upload).
        public var copied: Int
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

        /// The line `matsite deploy` ends with.
        public var report: String {
            let verb = dryRun ? "would upload" : "uploaded"
            let perWave = waves.filter { $0.files > 0 }.map { "\($0.wave.title) \($0.files) (\(ByteCount.text($0.bytes)))" }
            let detail = perWave.isEmpty ? "" : ": " + perWave.joined(separator: ", ")
            let held = heldByCap > 0 ? ", \(heldByCap) held by max_deletes" : ""
            let copies = copied > 0 ? "; \(dryRun ? "would copy" : "copied") \(copied) on the target" : ""
            return "\(verb) \(uploaded.files) files, \(ByteCount.text(uploaded.bytes))\(detail)\(copies); \(unchanged) unchanged; "
                + "\(dryRun ? "would delete" : "deleted") \(deleted)\(held); \(pending) in their grace period"
        }
    }

    let config: SiteConfig
    let deploy: DeployConfig
    let options: Options
    let reporter: any BuildReporter

    /// A deployer for `config`'s `deploy:` section.
    ///
    /// - Throws: ``ConfigError`` when the config has no `deploy.target` or rclone is missing.
    public init(config: SiteConfig, options: Options, reporter: any BuildReporter) throws {
        guard let deploy = config.deploy else {
            throw ConfigError(
                file: config.file, line: nil, keyPath: "deploy.target",
                message: "missing: add a deploy: section with target: \"remote:bucket/path\" (an rclone remote path)")
        }
        self.config = config
        self.deploy = deploy
        self.options = options
        self.reporter = reporter
    }

    /// Plans and (unless a dry run) carries out the deploy.
    public func run() async throws -> Summary {
        let site = config.resolve(options.output ?? config.output).standardizedFileURL
        guard FileManager.default.fileExists(atPath: site.appendingPathComponent("manifest.json").path) else {
            throw ConfigError(
                file: config.file, line: nil, keyPath: "output",
                message: "\(site.path) holds no built site (no manifest.json): run matsite build first")
        }
        guard let executable = Rclone.locate(deploy.rclone) else {
            throw ConfigError(
                file: config.file, line: deploy.line, keyPath: "deploy.rclone",
                message: "rclone (\(deploy.rclone)) was not found: install it (apt-get install rclone) or set deploy.rclone to its path")
        }
        let rclone = Rclone(executable: executable, flags: deploy.rcloneFlags, redact: Rclone.redactor(for: deploy.target))
        let shownTarget = Rclone.redactedTarget(deploy.target)
        let snapshot = try await SiteSnapshot.take(of: site)
        defer { snapshot.remove() }
        let files = try Self.scan(snapshot.root)
        reporter.say("deploy: \(files.count) site files in \(site.path) -> \(shownTarget)")
        let (remote, ledger) = try listTarget(rclone)
        let now = options.now ?? Date()
        func planned(copying: Bool) -> DeployPlan {
            DeployPlan(
                site: files, remote: remote, ledger: ledger, now: now, graceSeconds: deploy.graceSeconds,
                maxDeletes: deploy.maxDeletes, serverSideCopy: copying)
        }
        var plan = planned(copying: true)
        // Asked only when it matters: a window that moved renumbers its frames.
        if plan.copyCount > 0, try !canCopy(rclone) { plan = planned(copying: false) }
        describe(plan)
        if !options.dryRun { try carryOut(plan, site: snapshot.root, rclone: rclone) }
        return Summary(
            waves: DeployWave.allCases.map { wave in
                let t = plan.totals(wave)
                return (wave, t.files, t.bytes)
            },
            copied: plan.copyCount, unchanged: plan.unchanged, deleted: plan.deletes.count, heldByCap: plan.heldByCap,
            pending: plan.pending.count, ledgerWritten: plan.ledgerChanged, dryRun: options.dryRun)
    }
}

extension Deployer {
    /// Every file of the site, hashed; dot-files (build internals) are not part of it.
    static func scan(_ site: URL) throws -> [SiteFile] {
        let root = site.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: root) else {
            throw DeployError("cannot read the site folder \(root)")
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
            let (hex, size) = try FileHash.sha256(of: url)
            files.append(SiteFile(path: relative, size: size, sha256: hex))
        }
        return files
    }

    /// The target's files (path to size, dot-files left out) and its ledger.
    func listTarget(_ rclone: Rclone) throws -> ([String: Int], DeployLedger?) {
        let listing = try rclone.run(["lsjson", "-R", "--files-only", "--no-mimetype", "--no-modtime"] + rclone.flags + [deploy.target])
        var remote: [String: Int] = [:]
        var hasLedger = false
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
                throw DeployError("rclone lsjson \(Rclone.redactedTarget(deploy.target)) answered something that is not its JSON listing")
            }
            for item in items {
                if item.path == DeployLedger.name { hasLedger = true }
                if item.path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                remote[item.path] = item.size
            }
        case 3:
            // rclone's "directory not found": a target not created yet is an empty one.
            break
        default:
            throw failure("listing the target", listing)
        }
        guard hasLedger else { return (remote, nil) }
        let read = try rclone.run(["cat"] + rclone.flags + [Rclone.join(deploy.target, DeployLedger.name)])
        guard read.status == 0 else { throw failure("reading the target's \(DeployLedger.name)", read) }
        return (remote, DeployLedger.decode(read.output))
    }

    /// Prints the plan: each wave, the deletes, the files waiting out their grace period.
    func describe(_ plan: DeployPlan) {
        for wave in DeployWave.allCases {
            let t = plan.totals(wave)
            let copies = t.copies > 0 ? " (and \(t.copies) copied on the target)" : ""
            reporter.say("wave \(wave.rawValue) \(wave.title): \(t.files) files, \(ByteCount.text(t.bytes))\(copies)")
            if options.dryRun {
                for batch in plan.batches where batch.wave == wave {
                    for copy in batch.copies { reporter.say("  copy \(copy.from) -> \(copy.file.path)") }
                    for file in batch.files { reporter.say("  upload \(file.path) (\(ByteCount.text(file.size)))") }
                }
            }
        }
        reporter.say("\(plan.unchanged) files unchanged on the target")
        reporter.say("delete: \(plan.deletes.count) files out of the site for at least \(deploy.graceText)")
        if options.dryRun { for path in plan.deletes { reporter.say("  delete \(path)") } }
        if plan.heldByCap > 0 {
            reporter.say(
                "max_deletes (\(deploy.maxDeletes)) reached: \(plan.heldByCap) more files are due for deletion and wait for the next deploy")
        }
        if !plan.pending.isEmpty {
            let soonest = plan.pending.map(\.left).min() ?? 0
            reporter.say("pending: \(plan.pending.count) files out of the site, kept for their grace period (the first may go in \(Self.span(soonest)))")
            if options.dryRun {
                for item in plan.pending { reporter.say("  keep \(item.path) (\(Self.span(item.left)) left)") }
            }
        }
    }

    /// Uploads wave by wave, deletes, then writes the ledger.
    func carryOut(_ plan: DeployPlan, site: URL, rclone: Rclone) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-deploy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        if plan.uploadCount > 0, plan.ledgerChanged {
            try writeLedger(plan.interimLedger, scratch: scratch, rclone: rclone)
        }
        for (number, batch) in plan.batches.enumerated() {
            if !batch.copies.isEmpty {
                try copy(batch, rclone: rclone, scratch: scratch)
                continue
            }
            reporter.say("uploading \(batch.wave.title): \(batch.files.count) files, \(ByteCount.text(batch.bytes))")
            let list = scratch.appendingPathComponent("batch-\(number).txt")
            try Data(batch.files.map { $0.path + "\n" }.joined().utf8).write(to: list)
            let result = try rclone.run(
                [
                    "copy", site.path, deploy.target, "--files-from-raw", list.path, "--no-traverse", "--no-check-dest",
                    "--header-upload", "Cache-Control: \(batch.wave.cacheControl)",
                    "--stats", "5s", "--stats-one-line", "--stats-log-level", "NOTICE",
                ] + rclone.flags,
                line: progressLine)
            guard result.status == 0 else { throw failure("uploading \(batch.wave.title)", result) }
        }
        if !plan.deletes.isEmpty {
            reporter.say("deleting \(plan.deletes.count) files")
            let list = scratch.appendingPathComponent("deletes.txt")
            try Data(plan.deletes.map { $0 + "\n" }.joined().utf8).write(to: list)
            let result = try rclone.run(["delete", deploy.target, "--files-from-raw", list.path] + rclone.flags)
            guard result.status == 0 else { throw failure("deleting files out of the site", result) }
            // Folders emptied by the deletes (file servers keep them; object stores have none).
            let tidy = try rclone.run(["rmdirs", deploy.target, "--leave-root"] + rclone.flags)
            if tidy.status != 0 { reporter.say("note: empty folders could not be removed: \(tidy.errors.last ?? "")") }
        }
        if plan.ledgerChanged { try writeLedger(plan.finalLedger, scratch: scratch, rclone: rclone) }
    }

    /// Whether the target's backend copies files itself (rclone's `Copy` feature).
    func canCopy(_ rclone: Rclone) throws -> Bool {
        let result = try rclone.run(["backend", "features"] + rclone.flags + [deploy.target])
        struct Answer: Decodable {
            var features: [String: Bool]
            enum CodingKeys: String, CodingKey { case features = "Features" }
        }
        guard result.status == 0, let answer = try? JSONDecoder().decode(Answer.self, from: result.output) else { return false }
        return answer.features["Copy"] ?? false
    }

    /// Copies on the target, a few rclone calls at a time: files that keep their name
    /// under another folder (`tiles/0001/5/16/10.png` to `tiles/0000/5/16/10.png`) go as
    /// one `rclone copy` per folder pair; renamed files (`frames/0001-<hash>.png` to
    /// `frames/0000-<hash>.png`) one `copyto` each.
    func copy(_ batch: DeployPlan.Batch, rclone: Rclone, scratch: URL) throws {
        reporter.say("copying \(batch.copies.count) \(batch.wave.title) on the target")
        var folders: [String: (from: String, to: String, names: [String])] = [:]
        var renamed: [DeployPlan.Copy] = []
        for item in batch.copies {
            let from = item.from.split(separator: "/"), to = item.file.path.split(separator: "/")
            var shared = 0
            while shared < min(from.count, to.count) - 1, from[from.count - 1 - shared] == to[to.count - 1 - shared] { shared += 1 }
            guard shared > 0 else {
                renamed.append(item)
                continue
            }
            let source = from.dropLast(shared).joined(separator: "/"), target = to.dropLast(shared).joined(separator: "/")
            folders["\(source)\n\(target)", default: (source, target, [])].names.append(to.suffix(shared).joined(separator: "/"))
        }
        var calls: [[String]] = renamed.map { item in
            ["copyto", Rclone.join(deploy.target, item.from), Rclone.join(deploy.target, item.file.path), "--no-check-dest"]
        }
        for (number, folder) in folders.values.sorted(by: { $0.to < $1.to }).enumerated() {
            let list = scratch.appendingPathComponent("copy-\(batch.wave.rawValue)-\(number)-\(UUID().uuidString).txt")
            try Data(folder.names.map { $0 + "\n" }.joined().utf8).write(to: list)
            calls.append([
                "copy", Rclone.join(deploy.target, folder.from), Rclone.join(deploy.target, folder.to), "--files-from-raw", list.path,
                "--no-traverse", "--no-check-dest",
            ])
        }
        let failures = LockedBox<[DeployError]>([])
        let width = 4
        let all = calls
        DispatchQueue.concurrentPerform(iterations: width) { lane in
            for index in stride(from: lane, to: all.count, by: width) {
                do {
                    let result = try rclone.run(all[index] + rclone.flags)
                    if result.status != 0 { failures.withLock { $0.append(failure("copying on the target (\(rclone.redact(all[index][1])))", result)) } }
                } catch let error as DeployError {
                    failures.withLock { $0.append(error) }
                } catch {
                    failures.withLock { $0.append(DeployError("copying on the target: \(error)")) }
                }
            }
        }
        if let first = failures.withLock({ $0.first }) { throw first }
    }

    func writeLedger(_ ledger: DeployLedger, scratch: URL, rclone: Rclone) throws {
        let file = scratch.appendingPathComponent("ledger.json")
        try ledger.encoded().write(to: file)
        let result = try rclone.run(
            [
                "copyto", file.path, Rclone.join(deploy.target, DeployLedger.name), "--no-check-dest",
                "--header-upload", "Cache-Control: no-store",
            ] + rclone.flags)
        guard result.status == 0 else { throw failure("writing the target's \(DeployLedger.name)", result) }
    }

    /// rclone's stats and errors, shown as progress (nothing when quiet).
    var progressLine: @Sendable (String) -> Void {
        let reporter = self.reporter
        return { line in
            // Its one-line stats read "... Transferred: ..."; its config notice is noise.
            if line.contains("Config file") && line.contains("not found") { return }
            reporter.say("  rclone: " + Self.withoutTimestamp(line))
        }
    }

    /// rclone's line without its leading `2026/11/24 04:05:56 ` (the reporter has its own clock).
    static func withoutTimestamp(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, parts[0].count == 10, parts[0].filter({ $0 == "/" }).count == 2 else { return line }
        return String(parts[2])
    }

    /// A grace period's remainder for people: 23h59m, 4m10s.
    static func span(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.rounded()))
        if s >= 3600 { return "\(s / 3600)h\(String(format: "%02d", s % 3600 / 60))m" }
        return s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
    }

    func failure(_ step: String, _ result: Rclone.Result) -> DeployError {
        let said = result.errors.filter { !($0.contains("Config file") && $0.contains("not found")) }.suffix(5)
        let detail = said.isEmpty ? "" : ":\n  " + said.joined(separator: "\n  ")
        return DeployError("deploy to \(Rclone.redactedTarget(deploy.target)) failed while \(step) (rclone exit \(result.status))\(detail)")
    }
}
