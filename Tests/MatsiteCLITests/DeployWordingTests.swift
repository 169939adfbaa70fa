import Testing

@testable import MatsiteCLI
@testable import MatsiteDeploy

/// The console's words for what a deploy reports: the lines users and scripts (Tests/deploy)
/// read on stderr, from the deployer's typed events.
@Suite("Deploy wording")
struct DeployWordingTests {
    @Test("the plan: scan, rclone, waves, a dry run's files, deletes, the cap and the grace period")
    func plan() {
        #expect(
            Wording.deploy(.scanned(files: 12, site: "/srv/site", target: ":s3,access_key_id=***:bucket"))
                == "deploy: 12 site files in /srv/site -> :s3,access_key_id=***:bucket")
        #expect(Wording.deploy(.rclone(version: nil, path: "/usr/bin/rclone", origin: "PATH")) == "rclone: (version unknown) at /usr/bin/rclone (PATH)")
        #expect(Wording.deploy(.wavePlanned(.hashed, files: 3, bytes: 2048)).hasPrefix("wave 1 \(DeployWave.hashed.title): 3 files, "))
        #expect(Wording.deploy(.uploadPlanned(path: "radar/index.html", bytes: 10)).hasPrefix("  upload radar/index.html ("))
        #expect(Wording.deploy(.unchanged(files: 7)) == "7 files unchanged on the target")
        #expect(Wording.deploy(.deletesPlanned(files: 2, grace: "PT24H")) == "delete: 2 files out of the site for at least PT24H")
        #expect(Wording.deploy(.deletePlanned(path: "old.png")) == "  delete old.png")
        #expect(
            Wording.deploy(.heldByCap(files: 4, maxDeletes: 1))
                == "max_deletes (1) reached: 4 more files are due for deletion and wait for the next deploy")
        #expect(
            Wording.deploy(.pending(files: 2, soonest: 86_340))
                == "pending: 2 files out of the site, kept for their grace period (the first may go in 23h59m)")
        #expect(Wording.deploy(.keptPending(path: "a.png", left: 250)) == "  keep a.png (4m10s left)")
    }

    @Test("progress: batches, deletes, what could not be tidied, and rclone's own lines and notices")
    func progress() {
        #expect(Wording.deploy(.uploading(.manifests, files: 2, bytes: 100, staged: 0)).hasPrefix("uploading \(DeployWave.manifests.title): 2 files, "))
        #expect(Wording.deploy(.uploading(.manifests, files: 2, bytes: 100, staged: 1)).hasSuffix(" (1 through a temporary name)"))
        #expect(Wording.deploy(.removingLeftovers(files: 3)) == "removing 3 files an interrupted deploy left (temporary uploads)")
        #expect(Wording.deploy(.deleting(files: 5)) == "deleting 5 files")
        #expect(
            Wording.deploy(.notTidied(.stagingFolder(".matsite-staging-1a2b"), said: "403 Forbidden"))
                == "note: the staging folder .matsite-staging-1a2b could not be removed: 403 Forbidden")
        #expect(Wording.deploy(.notTidied(.emptyFolders, said: "")) == "note: empty folders could not be removed: ")
        #expect(
            Wording.deploy(.notTidied(.staleJournalEntries, said: "x")) == "note: old ledger journal entries could not be deleted: x")
        #expect(Wording.deploy(.rcloneSaid("Transferred: 1 / 2, 50%")) == "  rclone: Transferred: 1 / 2, 50%")
        #expect(Wording.deploy(.rcloneNotice("rclone does not check this SFTP server's host key")) == "note: rclone does not check this SFTP server's host key")
    }

    @Test("the closing line counts per wave, and says 'would' for a dry run")
    func closing() {
        var summary = Deployer.Summary(
            waves: [(.hashed, 2, 2000), (.fixed, 0, 0)], unchanged: 5, deleted: 1, heldByCap: 0, pending: 3, ledgerWritten: true,
            dryRun: false)
        let line = Wording.deployed(summary)
        #expect(line.hasPrefix("uploaded 2 files, "), "\(line)")
        #expect(line.contains(": \(DeployWave.hashed.title) 2 ("), "\(line)")
        #expect(!line.contains(DeployWave.fixed.title), "\(line)")
        #expect(line.hasSuffix("; 5 unchanged; deleted 1; 3 in their grace period"), "\(line)")
        summary.dryRun = true
        summary.heldByCap = 4
        #expect(Wording.deployed(summary).hasPrefix("would upload 2 files, "))
        #expect(Wording.deployed(summary).hasSuffix("; 5 unchanged; would delete 1, 4 held by max_deletes; 3 in their grace period"))
    }
}
