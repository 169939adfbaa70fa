import Foundation
import MatsiteDeploy
import MatsiteKit

/// How the command line words what a deploy reports: its plan, its progress, what rclone
/// said, and the line `matsite deploy` ends with. Targets and rclone's lines come masked.
extension Wording {
    /// One line per event.
    static func deploy(_ event: DeployEvent) -> String {
        switch event {
        case .scanned(let files, let site, let target):
            "deploy: \(files) site files in \(site) -> \(target)"
        case .rclone(let version, let path, let origin):
            "rclone: \(version ?? "(version unknown)") at \(path) (\(origin))"
        case .writesInPlace(let features):
            "warning: \(features.readerNote.text)"
        case .wavePlanned(let wave, let files, let bytes):
            "wave \(wave.rawValue) \(wave.title): \(files) files, \(ByteCount.text(bytes))"
        case .uploadPlanned(let path, let bytes):
            "  upload \(path) (\(ByteCount.text(bytes)))"
        case .unchanged(let files):
            "\(files) files unchanged on the target"
        case .deletesPlanned(let files, let grace):
            "delete: \(files) files out of the site for at least \(grace)"
        case .deletePlanned(let path):
            "  delete \(path)"
        case .heldByCap(let files, let maxDeletes):
            "max_deletes (\(maxDeletes)) reached: \(files) more files are due for deletion and wait for the next deploy"
        case .pending(let files, let soonest):
            "pending: \(files) files out of the site, kept for their grace period (the first may go in \(span(soonest)))"
        case .keptPending(let path, let left):
            "  keep \(path) (\(span(left)) left)"
        case .uploading(let wave, let files, let bytes, let staged):
            "uploading \(wave.title): \(files) files, \(ByteCount.text(bytes))"
                + (staged == 0 ? "" : " (\(staged) through a temporary name)")
        case .removingLeftovers(let files):
            "removing \(files) files an interrupted deploy left (temporary uploads)"
        case .deleting(let files):
            "deleting \(files) files"
        case .notTidied(let leftover, let said):
            "note: \(notTidied(leftover)): \(said)"
        case .rcloneSaid(let line):
            "  rclone: " + line
        case .rcloneNotice(let notice):
            "note: " + notice
        }
    }

    /// What was left on the target, as the note says it.
    static func notTidied(_ leftover: DeployEvent.Leftover) -> String {
        switch leftover {
        case .stagingFolder(let folder): "the staging folder \(folder) could not be removed"
        case .oldLedger(let name): "the old ledger \(name) could not be deleted"
        case .emptyFolders: "empty folders could not be removed"
        case .staleJournalEntries: "old ledger journal entries could not be deleted"
        }
    }

    /// The line `matsite deploy` ends with.
    static func deployed(_ s: Deployer.Summary) -> String {
        let verb = s.dryRun ? "would upload" : "uploaded"
        let perWave = s.waves.filter { $0.files > 0 }.map { "\($0.wave.title) \($0.files) (\(ByteCount.text($0.bytes)))" }
        let detail = perWave.isEmpty ? "" : ": " + perWave.joined(separator: ", ")
        let held = s.heldByCap > 0 ? ", \(s.heldByCap) held by max_deletes" : ""
        return "\(verb) \(s.uploaded.files) files, \(ByteCount.text(s.uploaded.bytes))\(detail); \(s.unchanged) unchanged; "
            + "\(s.dryRun ? "would delete" : "deleted") \(s.deleted)\(held); \(s.pending) in their grace period"
    }

    /// A grace period's remainder for people: 23h59m, 4m10s.
    static func span(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.rounded()))
        if s >= 3600 { return "\(s / 3600)h\(String(format: "%02d", s % 3600 / 60))m" }
        return s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
    }
}
