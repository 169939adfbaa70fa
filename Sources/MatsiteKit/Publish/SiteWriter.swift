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
        if previous.holds(bytes, at: relative), try link(relative) { return }
        let target = root.path + "/" + relative
        do {
            try FileWrite.write(bytes, to: target)
        } catch {
            // Folders are made when first needed, not checked before every file.
            try makeParent(of: target)
            try FileWrite.write(bytes, to: target)
        }
    }

    /// Hard-links the previous site's file at `old` (default: the same path) to `relative`
    /// in the new site, unread: for files whose bytes are known to be the same by other
    /// means. False when it is not there or cannot be linked.
    func link(from old: String? = nil, _ relative: String) throws -> Bool {
        guard let source = previous.regularFile(old ?? relative) else { return false }
        let target = root.path + "/" + relative
        let link = { () throws(SystemCallError) -> Void in
            _ = try systemCall("link", "cannot link \(target)") { Foundation.link(source.url.path, target) }
        }
        do {
            try link()
            return true
        } catch  where error.errno == ENOENT {
            // Folders are made when first needed.
            try makeParent(of: target)
            return (try? link()) != nil
        } catch {
            return false
        }
    }

    private func makeParent(of path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }
}
