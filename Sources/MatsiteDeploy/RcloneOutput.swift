import Foundation
import MatsiteSupport

/// rclone's stderr as `matsite deploy` passes it on: secrets masked, its timestamp
/// dropped (matsite's reporter has its own clock), notices that say nothing to a matsite
/// user dropped, and those that do said once, in matsite's words. Errors are kept whole.
struct RcloneOutput: Sendable {
    let mask: SecretMask
    /// Notes already said this deploy (each rclone call repeats its notices).
    private let said = LockedBox<Set<String>>([])

    /// Output for a deploy whose secrets `mask` knows.
    init(mask: SecretMask) {
        self.mask = mask
    }

    /// A line as shown; empty for a line dropped.
    func callAsFunction(_ line: String) -> String {
        var text = Self.withoutTimestamp(mask(line))
        // rclone's level for what it always says (its stats, its summaries); errors keep theirs.
        if text.hasPrefix("NOTICE:") { text = text.dropFirst("NOTICE:".count).trimmingCharacters(in: .whitespaces) }
        switch Self.classify(text) {
        case .keep: return text
        case .drop: return ""
        case .note(let note):
            return said.withLock { $0.insert(note).inserted } ? Self.notePrefix + note : ""
        }
    }

    /// The notice in a shown line (`note: ...`, as `callAsFunction` makes it); nil for
    /// rclone's own lines.
    static func notice(_ shown: String) -> String? {
        shown.hasPrefix(notePrefix) ? String(shown.dropFirst(notePrefix.count)) : nil
    }

    /// How a notice starts in a shown line, apart from rclone's own.
    static let notePrefix = "note: "

    /// What becomes of one of rclone's lines.
    enum Fate: Equatable {
        case keep
        case drop
        /// Said once per deploy, in these words.
        case note(String)
    }

    static func classify(_ line: String) -> Fate {
        // Targets in RCLONE_CONFIG_* variables or on the command line have no config file
        // to read, nor to save what rclone learns about a server into.
        if line.contains("Config file") && line.contains("not found") { return .drop }
        if line.contains("Can't save config") { return .drop }
        // The stats rclone prints as it ends: matsite's own line has said what the batch was.
        if line.contains(" / "), line.contains(", 100%,") { return .drop }
        if line.contains("No host key validation is being performed") {
            return .note(
                "rclone does not check this SFTP server's host key: set known_hosts_file (or RCLONE_CONFIG_<NAME>_KNOWN_HOSTS_FILE) "
                    + "to a known_hosts file holding it (docs/deploy.md)")
        }
        return .keep
    }

    /// rclone's line without its leading `2026/11/24 04:05:56 `.
    static func withoutTimestamp(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, parts[0].count == 10, parts[0].filter({ $0 == "/" }).count == 2 else { return line }
        return String(parts[2])
    }
}
