import Foundation

/// A hard-linked copy of the built site, taken under the build's output lock, that a
/// deploy reads from: a build publishing meanwhile swaps the output folder, and a deploy
/// reading it by path could then send one build's manifest with another's frames.
/// Linking costs no copy of the bytes; the folder sits beside the output (links need the
/// same file system) and is removed when the deploy ends.
struct SiteSnapshot {
    /// The snapshot's folder.
    let root: URL

    /// Links every file of `site` (dot-files and `leaving` left out) into a fresh snapshot
    /// folder, holding what `lock` returns (the build's lock on `site`) meanwhile.
    static func take(
        of site: URL, leaving: Set<String>, lock: @Sendable (URL) async throws -> any Sendable
    ) async throws -> SiteSnapshot {
        let parent = site.deletingLastPathComponent()
        let prefix = ".\(site.lastPathComponent).matsite-deploy-"
        removeAbandoned(in: parent, prefix: prefix)
        let root = parent.appendingPathComponent(prefix + String(getpid()))
        try? FileManager.default.removeItem(at: root)
        let held = try await lock(site)
        defer { withExtendedLifetime(held) {} }
        let source = site.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: source) else {
            throw DeployError.siteUnreadable(folder: source)
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false)
        while let relative = walker.nextObject() as? String {
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                walker.skipDescendants()
                continue
            }
            if leaving.contains(relative) { continue }
            let from = URL(fileURLWithPath: source).appendingPathComponent(relative)
            let to = root.appendingPathComponent(relative)
            let values = try from.resourceValues(forKeys: [.isDirectoryKey, .isRegularFileKey])
            if values.isDirectory == true {
                try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
            } else if values.isRegularFile == true {
                try FileManager.default.linkItem(at: from, to: to)
            }
        }
        return SiteSnapshot(root: root)
    }

    /// Removes the snapshot.
    func remove() {
        try? FileManager.default.removeItem(at: root)
    }

    /// Snapshots left by deploys that were killed (their process is gone).
    private static func removeAbandoned(in parent: URL, prefix: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
    }
}
