import Foundation

/// Writes the files of the staged site. A file whose bytes equal the previous site's file
/// at the same path is hard-linked instead of written: an unchanged rebuild writes no file
/// data, and the final comparison of the two trees sees one inode and reads nothing.
struct SiteWriter: Sendable {
    /// The staging folder.
    let root: URL
    /// The site being replaced.
    let previous: PreviousSite

    /// Puts `bytes` at `relative` (a path below the site root), creating folders.
    func put(_ bytes: [UInt8], at relative: String) throws {
        let target = root.path + "/" + relative
        if previous.holds(bytes, at: relative), let old = previous.regularFile(relative) {
            if Foundation.link(old.url.path, target) == 0 { return }
            if errno == ENOENT {
                try makeParent(of: target)
                if Foundation.link(old.url.path, target) == 0 { return }
            }
        }
        do {
            try FileWrite.write(bytes, to: target)
        } catch {
            // Folders are made when first needed, not checked before every file.
            try makeParent(of: target)
            try FileWrite.write(bytes, to: target)
        }
    }

    /// Hard-links the previous site's file at `relative` into the new site, unread: for
    /// files whose bytes are known to be the same by other means. False when it is not there.
    func link(_ relative: String) throws -> Bool {
        guard let old = previous.regularFile(relative) else { return false }
        let target = root.path + "/" + relative
        if Foundation.link(old.url.path, target) == 0 { return true }
        guard errno == ENOENT else { return false }
        try makeParent(of: target)
        return Foundation.link(old.url.path, target) == 0
    }

    private func makeParent(of path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }
}
