import Foundation

/// Receives what a deploy does, as typed events: the deployer says what happened, the
/// command line words it (`MatsiteCLI/DeployWording.swift`), as a build's `BuildEvent`s.
/// Implementations must be thread-safe: rclone's lines come from its own threads.
package protocol DeployReporter: Sendable {
    /// One event.
    func report(_ event: DeployEvent)
}

/// What a deploy reports while it runs. Targets are shown with their secrets masked
/// (``SecretMask``); what rclone says comes masked too (``RcloneOutput``).
package enum DeployEvent: Sendable {
    /// The site's files were scanned: how many, in which folder, going where.
    case scanned(files: Int, site: String, target: String)
    /// The rclone that runs: its version (nil when it did not say), path and how it was found.
    case rclone(version: String?, path: String, origin: String)
    /// The target writes replaced files in place: a reader can catch part of one.
    case writesInPlace(TargetFeatures)
    /// The plan's wave: files and bytes to upload.
    case wavePlanned(DeployWave, files: Int, bytes: Int)
    /// A dry run's file to upload.
    case uploadPlanned(path: String, bytes: Int)
    /// Site files the target has already.
    case unchanged(files: Int)
    /// Files out of the site for at least `grace` (the config's text), to delete.
    case deletesPlanned(files: Int, grace: String)
    /// A dry run's file to delete.
    case deletePlanned(path: String)
    /// Files due for deletion past `max_deletes`, left for the next deploy.
    case heldByCap(files: Int, maxDeletes: Int)
    /// Files out of the site in their grace period; the first may go in `soonest` seconds.
    case pending(files: Int, soonest: Double)
    /// A dry run's file kept for its grace period, `left` seconds more.
    case keptPending(path: String, left: Double)
    /// A batch of a wave starts uploading; `staged` of its files go through a temporary name.
    case uploading(DeployWave, files: Int, bytes: Int, staged: Int)
    /// Files an interrupted deploy left (temporary uploads) are removed.
    case removingLeftovers(files: Int)
    /// Files out of the site past their grace period are deleted.
    case deleting(files: Int)
    /// Something deploy tidies was left on the target; `said` is rclone's last error line.
    case notTidied(Leftover, said: String)
    /// One of rclone's lines while it transfers (its stats, its errors).
    case rcloneSaid(String)
    /// One of rclone's notices, said once per deploy in matsite's words (``RcloneOutput``).
    case rcloneNotice(String)

    /// What a deploy could not tidy on the target (each is harmless and retried next time).
    package enum Leftover: Sendable, Equatable {
        /// A staging folder of this deploy's own.
        case stagingFolder(String)
        /// The ledger under its old name.
        case oldLedger(String)
        /// Folders the deletes emptied.
        case emptyFolders
        /// Entries of the ledger's journal a new base made stale.
        case staleJournalEntries
    }
}
