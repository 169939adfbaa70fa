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
            if link(old.url.path, target) == 0 { return }
            if errno == ENOENT {
                try makeParent(of: target)
                if link(old.url.path, target) == 0 { return }
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

    private func makeParent(of path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }
}
