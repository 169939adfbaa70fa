import Foundation
import Testing

@testable import MatsiteDeploy

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
        file("radar/frames/1a2b3c4d00000000.png", "f0"), file("radar/frames/5e6f7a8b00000000.png", "f1"),
        file("radar/tiles/0f0f0f0f00000000/7/3/4.png", "t0"), file("assets/player.0dc16f30.js", "js"),
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
        // A frame's reduced copies, in the same folder.
        #expect(DeployWave.of("radar/frames/1a2b3c4d5e6f7a8b/r1.png") == .hashed)
        #expect(DeployWave.of("radar/frames/1a2b3c4d5e6f7a8b/r2.webp") == .hashed)
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
        remote["radar/frames/5e6f7a8b00000000.png"] = 1
        remote["radar/manifest.json"] = nil
        let plan = DeployPlan(site: Self.site, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 86400, maxDeletes: 1000)
        #expect(Set(plan.batches.flatMap(\.files).map(\.path)) == ["radar/poster.png", "radar/frames/5e6f7a8b00000000.png", "radar/manifest.json"])
        // Until the deploy finishes, the ledger no longer vouches for what is being replaced.
        #expect(plan.interimLedger.files["radar/manifest.json"] == nil)
        #expect(plan.interimLedger.files["index.html"] != nil)
    }

    @Test("a file out of the site waits out the grace period, then goes; the cap holds back the rest")
    func graceAndCap() {
        let (remote, ledger) = Self.deployed(Self.site)
        let moved = Self.site.filter { !$0.path.hasPrefix("radar/frames/") } + [Self.file("radar/frames/9999999900000000.png", "f2")]
        let first = DeployPlan(site: moved, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 3600, maxDeletes: 1)
        #expect(first.deletes.isEmpty)
        #expect(first.pending.map(\.path) == ["radar/frames/1a2b3c4d00000000.png", "radar/frames/5e6f7a8b00000000.png"])
        #expect(first.pending.allSatisfy { $0.left == 3600 })
        var after = remote
        for file in moved { after[file.path] = file.size }
        let early = DeployPlan(
            site: moved, remote: after, ledger: first.finalLedger, now: Self.now + 1800, graceSeconds: 3600, maxDeletes: 1)
        #expect(early.deletes.isEmpty && early.pending.count == 2 && early.uploadCount == 0)
        #expect(!early.ledgerChanged)
        let late = DeployPlan(
            site: moved, remote: after, ledger: first.finalLedger, now: Self.now + 3600, graceSeconds: 3600, maxDeletes: 1)
        #expect(late.deletes == ["radar/frames/1a2b3c4d00000000.png"])
        #expect(late.heldByCap == 1)
        #expect(late.finalLedger.unreferenced.keys.sorted() == ["radar/frames/5e6f7a8b00000000.png"])
        #expect(late.finalLedger.files["radar/frames/1a2b3c4d00000000.png"] == nil)
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
}

extension DeployPlanTests {
    @Test("a moved window sends its new frame and tiles, manifests and pages; kept frames are unchanged, nothing is copied")
    func movedWindow() {
        let site = [
            Self.file("a/frames/aaaaaaaaaaaaaaaa.png", "A"), Self.file("a/frames/bbbbbbbbbbbbbbbb.png", "B"),
            Self.file("a/tiles/1111111111111111/5/1/1.png", "TA"), Self.file("a/tiles/2222222222222222/5/1/1.png", "TB"),
            Self.file("a/manifest.json", "m1"), Self.file("a/index.html", "p1"),
        ]
        let (remote, ledger) = Self.deployed(site)
        // A leaves the window, C comes in; its tile has the same bytes as B's (two tiles alike).
        let moved = [
            Self.file("a/frames/bbbbbbbbbbbbbbbb.png", "B"), Self.file("a/frames/cccccccccccccccc.png", "C"),
            Self.file("a/tiles/2222222222222222/5/1/1.png", "TB"), Self.file("a/tiles/3333333333333333/5/1/1.png", "TB"),
            Self.file("a/manifest.json", "m2"), Self.file("a/index.html", "p2"),
        ]
        let plan = DeployPlan(site: moved, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 60, maxDeletes: 10)
        #expect(plan.batches.map(\.wave) == [.hashed, .manifests, .pages])
        #expect(plan.batches[0].files.map(\.path) == ["a/frames/cccccccccccccccc.png", "a/tiles/3333333333333333/5/1/1.png"])
        #expect(plan.unchanged == 2 && plan.uploadCount == 4)
        #expect(plan.replacing == ["a/index.html", "a/manifest.json"])
        #expect(plan.pending.map(\.path) == ["a/frames/aaaaaaaaaaaaaaaa.png", "a/tiles/1111111111111111/5/1/1.png"])
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
            Self.site.map { $0.path == "radar/manifest.json" ? Self.file($0.path, "anim2") : $0 } + [Self.file("radar/frames/0c0c0c0c00000000.png", "f3")]
        let replace = DeployPlan(site: changed, remote: remote, ledger: ledger, now: Self.now, graceSeconds: 86400, maxDeletes: 1000)
        #expect(replace.replacing == ["radar/manifest.json"])
    }
}
