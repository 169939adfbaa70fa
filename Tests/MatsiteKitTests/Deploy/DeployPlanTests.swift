import Foundation
import Testing

@testable import MatsiteKit

/// The deploy plan: which wave a file goes in, what is sent again, and when a file that
/// left the site is deleted. The transfers themselves are tested against real SFTP and S3
/// servers in Tests/deploy.
@Suite("DeployPlan")
struct DeployPlanTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func file(_ path: String, _ content: String) -> SiteFile {
        SiteFile(path: path, size: content.utf8.count, sha256: "sha-" + content)
    }

    static let site = [
        file("index.html", "index"), file("manifest.json", "site"), file("radar/index.html", "page"),
        file("radar/embed.html", "embed"), file("radar/manifest.json", "anim"), file("radar/poster.png", "poster"),
        file("radar/frames/0000-1a2b3c4d.png", "f0"), file("radar/frames/0001-5e6f7a8b.png", "f1"),
        file("radar/tiles/0000/7/3/4.png", "t0"), file("assets/player.0dc16f30.js", "js"),
        file("assets/leaflet-8162c049/leaflet.css", "css"),
    ]

    /// The target after a successful deploy of `site`.
    static func deployed(_ site: [SiteFile]) -> ([String: Int], DeployLedger) {
        let plan = DeployPlan(site: site, remote: [:], ledger: nil, now: now, graceSeconds: 86400, maxDeletes: 1000)
        return (Dictionary(uniqueKeysWithValues: site.map { ($0.path, $0.size) }), plan.finalLedger)
    }

    @Test("each path goes in its wave: hashed names first, pages last")
    func waves() {
        #expect(DeployWave.of("radar/frames/0003-1a2b3c4d.png") == .hashed)
        // Named by content only: a frame, its pyramid folder, its fallback tiles' folder.
        #expect(DeployWave.of("radar/frames/1a2b3c4d5e6f7a8b.png") == .hashed)
        #expect(DeployWave.of("radar/frames/1a2b3c4d5e6f7a8b/7/3/4.png") == .hashed)
        #expect(DeployWave.of("radar/tiles/1a2b3c4d5e6f7a8b/7/37/53.png") == .hashed)
        #expect(DeployWave.of("radar/frames/0003-1a2b3c4d/7/3/4.png") == .hashed)
        #expect(DeployWave.of("assets/player.0dc16f30.js") == .hashed)
        #expect(DeployWave.of("assets/leaflet-8162c049/images/layers.png") == .hashed)
        #expect(DeployWave.of("radar/points/reports/z05-0123456789ab.json") == .hashed)
        #expect(DeployWave.of("radar/legend-89abcdef.png") == .hashed)
        #expect(DeployWave.of("radar/loop-0123456789abcdef.mp4") == .hashed)
        #expect(DeployWave.of("radar/tiles/0011/7/37/53.png") == .fixed)
        #expect(DeployWave.of("radar/poster.png") == .fixed)
        #expect(DeployWave.of("assets/demo-basemap/3/1/2.png") == .fixed)
        #expect(DeployWave.of("storm-20261121/poster.png") == .fixed)
        #expect(DeployWave.of("manifest.json") == .manifests)
        #expect(DeployWave.of("radar/manifest.json") == .manifests)
        #expect(DeployWave.of("radar/embed.html") == .pages)
        #expect(DeployWave.of("index.html") == .pages)
    }

    @Test("a first deploy uploads everything, animations' manifests and pages before the site's")
    func firstDeploy() {
        let plan = DeployPlan(site: Self.site, remote: [:], ledger: nil, now: Self.now, graceSeconds: 86400, maxDeletes: 1000)
        #expect(plan.uploadCount == Self.site.count)
        #expect(plan.batches.map(\.wave) == [.hashed, .fixed, .manifests, .manifests, .pages, .pages])
        #expect(plan.batches[3].files.map(\.path) == ["manifest.json"])
        #expect(plan.batches[5].files.map(\.path) == ["index.html"])
        #expect(plan.ledgerChanged)
    }

    @Test("an unchanged site uploads nothing and leaves the ledger as it is")
    func unchanged() {
        let (remote, ledger) = Self.deployed(Self.site)
        let plan = DeployPlan(site: Self.site, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 86400, maxDeletes: 1000)
        #expect(plan.uploadCount == 0)
        #expect(plan.unchanged == Self.site.count)
        #expect(!plan.ledgerChanged)
    }

    @Test("a file the ledger does not vouch for, or whose size on the target differs, is sent again")
    func unknownOrTorn() {
        var (remote, ledger) = Self.deployed(Self.site)
        ledger.files["radar/poster.png"] = nil
        remote["radar/frames/0001-5e6f7a8b.png"] = 1
        remote["radar/manifest.json"] = nil
        let plan = DeployPlan(site: Self.site, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 86400, maxDeletes: 1000)
        #expect(Set(plan.batches.flatMap(\.files).map(\.path)) == ["radar/poster.png", "radar/frames/0001-5e6f7a8b.png", "radar/manifest.json"])
        // Until the deploy finishes, the ledger no longer vouches for what is being replaced.
        #expect(plan.interimLedger.files["radar/manifest.json"] == nil)
        #expect(plan.interimLedger.files["index.html"] != nil)
    }

    @Test("a file out of the site waits out the grace period, then goes; the cap holds back the rest")
    func graceAndCap() {
        let (remote, ledger) = Self.deployed(Self.site)
        let moved = Self.site.filter { !$0.path.hasPrefix("radar/frames/") } + [Self.file("radar/frames/0000-99999999.png", "f2")]
        let first = DeployPlan(site: moved, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 3600, maxDeletes: 1)
        #expect(first.deletes.isEmpty)
        #expect(first.pending.map(\.path) == ["radar/frames/0000-1a2b3c4d.png", "radar/frames/0001-5e6f7a8b.png"])
        #expect(first.pending.allSatisfy { $0.left == 3600 })
        var after = remote
        for file in moved { after[file.path] = file.size }
        let early = DeployPlan(
            site: moved, remote: after, ledger: first.finalLedger, now: Self.now + 1800, graceSeconds: 3600, maxDeletes: 1)
        #expect(early.deletes.isEmpty && early.pending.count == 2 && early.uploadCount == 0)
        #expect(!early.ledgerChanged)
        let late = DeployPlan(
            site: moved, remote: after, ledger: first.finalLedger, now: Self.now + 3600, graceSeconds: 3600, maxDeletes: 1)
        #expect(late.deletes == ["radar/frames/0000-1a2b3c4d.png"])
        #expect(late.heldByCap == 1)
        #expect(late.finalLedger.unreferenced.keys.sorted() == ["radar/frames/0001-5e6f7a8b.png"])
        #expect(late.finalLedger.files["radar/frames/0000-1a2b3c4d.png"] == nil)
    }

    @Test("a file back in the site leaves the grace list")
    func backInSite() {
        let (remote, ledger) = Self.deployed(Self.site)
        let smaller = Array(Self.site.dropLast())
        let gone = DeployPlan(site: smaller, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 60, maxDeletes: 10)
        #expect(gone.finalLedger.unreferenced.count == 1)
        let back = DeployPlan(site: Self.site, remote: remote, ledger: gone.finalLedger, now: Self.now + 120, graceSeconds: 60, maxDeletes: 10)
        #expect(back.deletes.isEmpty && back.finalLedger.unreferenced.isEmpty && back.uploadCount == 0)
    }

    @Test("deploy: is read with its defaults, and a bad key names its line")
    func config() throws {
        let base = ConfigLoaderTests.yaml()
        let config = try ConfigLoader.parse(Data((base + "deploy:\n  target: \"s3site:bucket/www\"\n").utf8), file: "site.yml")
        #expect(config.deploy?.target == "s3site:bucket/www")
        #expect(config.deploy?.graceSeconds == 86400 && config.deploy?.maxDeletes == 1000)
        let tuned = try ConfigLoader.parse(
            Data((base + "deploy: { target: \"w:/srv\", grace: PT0S, max_deletes: 5, rclone_flags: [--bwlimit=1M] }\n").utf8), file: "site.yml")
        #expect(tuned.deploy?.graceSeconds == 0 && tuned.deploy?.maxDeletes == 5 && tuned.deploy?.rcloneFlags == ["--bwlimit=1M"])
        let error = #expect(throws: ConfigError.self) {
            try ConfigLoader.parse(Data((base + "deploy:\n  target: w:/srv\n  grace: 2 days\n").utf8), file: "site.yml")
        }
        #expect(error?.keyPath == "deploy.grace" && error?.line == ConfigLoaderTests.lines.count + 3)
        let missing = #expect(throws: ConfigError.self) {
            try ConfigLoader.parse(Data((base + "deploy:\n  grace: PT1H\n").utf8), file: "site.yml")
        }
        #expect(missing?.keyPath == "deploy.target")
        #expect(config.deploy?.create == false && config.deploy?.rclone == nil)
        let create = try ConfigLoader.parse(Data((base + "deploy: { target: \"w:/srv\", create: true, rclone: /opt/rclone }\n").utf8), file: "site.yml")
        #expect(create.deploy?.create == true && create.deploy?.rclone == "/opt/rclone")
    }
}

extension DeployPlanTests {
    @Test("a renumbered file is copied on the target, its source read before it is replaced")
    func copies() {
        let site = [Self.file("a/frames/0000-aaaaaaaa.png", "A"), Self.file("a/tiles/0000/1.png", "T1")]
        let (remote, ledger) = Self.deployed(site)
        // The window moves: frame A is now 0001, a new frame 0000; tiles/0000 takes tiles/0001's old role.
        let moved = [
            Self.file("a/frames/0000-bbbbbbbb.png", "B"), Self.file("a/frames/0001-aaaaaaaa.png", "A"),
            Self.file("a/tiles/0000/1.png", "T0"), Self.file("a/tiles/0001/1.png", "T1"),
        ]
        let plan = DeployPlan(
            site: moved, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 60, maxDeletes: 10, serverSideCopy: true)
        let copies = plan.batches.flatMap(\.copies).map { "\($0.from) -> \($0.file.path)" }
        #expect(copies == ["a/frames/0000-aaaaaaaa.png -> a/frames/0001-aaaaaaaa.png", "a/tiles/0000/1.png -> a/tiles/0001/1.png"])
        // tiles/0000 is read by that copy before its own new bytes are uploaded.
        #expect(Set(plan.batches.flatMap(\.files).map(\.path)) == ["a/frames/0000-bbbbbbbb.png", "a/tiles/0000/1.png"])
        let tilesCopy = plan.batches.firstIndex { $0.copies.contains { $0.file.path == "a/tiles/0001/1.png" } }
        let tilesUpload = plan.batches.firstIndex { $0.files.contains { $0.path == "a/tiles/0000/1.png" } }
        #expect(tilesCopy! < tilesUpload!)
        let plain = DeployPlan(site: moved, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 60, maxDeletes: 10)
        #expect(plain.copyCount == 0 && plain.uploadCount == 4)
    }

    @Test("what an interrupted deploy left is deleted at once, not kept for a grace period; replaced files are known")
    func leftovers() {
        let (remote, ledger) = Self.deployed(Self.site)
        var after = remote
        after["radar/manifest.json.a1a6e4e9.partial"] = 10
        after["matsite-staging-0a1b2c3d/radar/index.html"] = 5
        after["radar/notes.partial"] = 3
        let plan = DeployPlan(site: Self.site, remote: after, ledger: ledger, now: Self.now, graceSeconds: 86400, maxDeletes: 1000)
        #expect(plan.leftovers.sorted() == ["matsite-staging-0a1b2c3d/radar/index.html", "radar/manifest.json.a1a6e4e9.partial"])
        #expect(plan.pending.map(\.path) == ["radar/notes.partial"])
        #expect(plan.finalLedger.unreferenced["radar/manifest.json.a1a6e4e9.partial"] == nil)
        let changed =
            Self.site.map { $0.path == "radar/manifest.json" ? Self.file($0.path, "anim2") : $0 } + [Self.file("radar/frames/0002-0c0c0c0c.png", "f3")]
        let replace = DeployPlan(site: changed, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 86400, maxDeletes: 1000)
        #expect(replace.replacing == ["radar/manifest.json"])
    }

    @Test("a chain of copies runs reader first, and a cycle is uploaded instead")
    func copyOrder() {
        func copy(_ from: String, _ to: String) -> DeployPlan.Copy {
            DeployPlan.Copy(from: from, file: Self.file(to, to))
        }
        // t2 <- t3, t1 <- t2, t0 <- t1: t0's copy first (it reads t1 before t1 is written).
        let chain = DeployPlan.ordered([copy("t3", "t2"), copy("t1", "t0"), copy("t2", "t1")])
        #expect(chain.levels.map { $0.map(\.file.path) } == [["t0"], ["t1"], ["t2"]])
        #expect(chain.cyclic.isEmpty)
        let swap = DeployPlan.ordered([copy("x", "y"), copy("y", "x"), copy("z", "w")])
        #expect(swap.levels.map { $0.map(\.file.path) } == [["w"]])
        #expect(Set(swap.cyclic.map(\.file.path)) == ["x", "y"])
    }
}
