import Foundation

/// The site the last build published, read so that unchanged frames are kept instead of
/// stitched again (hard-linked into the new site: same bytes, same file).
struct PreviousSite: Sendable {
    let output: URL
    private let frames: [String: [String: AnimationManifest.Frame]]
    /// The output folder's real path (the folder itself may be a symlink, nothing below it).
    private let realOutput: String?

    init(output: URL) {
        self.output = output
        realOutput = Self.realPath(output.path)
        var frames: [String: [String: AnimationManifest.Frame]] = [:]
        let decoder = JSONDecoder.manifest
        if let index = try? Data(contentsOf: output.appendingPathComponent("manifest.json")),
           let site = try? decoder.decode(SiteManifest.self, from: index) {
            for entry in site.animations where ConfigLoaderSlug.isSlug(entry.id) {
                guard let data = try? Data(contentsOf: output.appendingPathComponent(entry.id).appendingPathComponent("manifest.json")),
                      let manifest = try? decoder.decode(AnimationManifest.self, from: data) else { continue }
                frames[entry.id] = Dictionary(manifest.frames.map { ($0.inputHash, $0) }, uniquingKeysWith: { a, _ in a })
            }
        }
        self.frames = frames
    }

    /// The previous frame made from exactly these inputs, if its file is still there with
    /// the size its manifest gives (a file changed in place, say by an optimiser run over the
    /// site, would otherwise be kept under a manifest entry that no longer describes it).
    /// Only the size is compared: hashing every kept frame would slow the unchanged rebuild.
    func frame(animation: String, inputHash: String) -> AnimationManifest.Frame? {
        guard let frame = frames[animation]?[inputHash], Self.safeRelative(frame.url) else { return nil }
        guard let file = regularFile(animation: animation, relative: frame.url), file.size == frame.bytes else { return nil }
        return frame
    }

    /// The previous poster's bytes.
    func poster(animation: String) -> [UInt8]? {
        guard frames[animation] != nil, let file = regularFile(animation: animation, relative: "poster.png") else { return nil }
        return FileManager.default.contents(atPath: file.url.path).map { [UInt8]($0) }
    }

    /// Hard-links (or copies) a previous file into the new site.
    func link(animation: String, relative: String, to target: URL) -> Bool {
        guard let source = regularFile(animation: animation, relative: relative)?.url else { return false }
        if Foundation.link(source.path, target.path) == 0 { return true }
        return (try? FileManager.default.copyItem(at: source, to: target)) != nil
    }

    /// `<output>/<animation>/<relative>` with its size when it is a regular file reached
    /// through no symlink below the output folder: a planted link (the file, or a folder on
    /// the way such as `frames/`) must not bring outside files into the new site.
    private func regularFile(animation: String, relative: String) -> (url: URL, size: Int)? {
        let file = output.appendingPathComponent(animation).appendingPathComponent(relative)
        var status = stat()
        guard let realOutput, lstat(file.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
              Self.realPath(file.path) == realOutput + "/" + animation + "/" + relative else { return nil }
        return (file, Int(status.st_size))
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A manifest URL that stays inside its animation's folder.
    static func safeRelative(_ path: String) -> Bool {
        !path.hasPrefix("/") && !path.split(separator: "/").contains("..") && path.hasPrefix("frames/")
    }
}

/// The id rule, shared with the config loader.
enum ConfigLoaderSlug {
    static func isSlug(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.count <= 64 else { return false }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789")
        return allowed.contains(first) && id.unicodeScalars.allSatisfy { allowed.contains($0) || $0 == "-" }
    }
}

/// Compares two published trees.
enum TreeComparison {
    /// True when both folders hold the same files with the same bytes.
    static func equal(_ a: URL, _ b: URL) -> Bool {
        guard let left = files(a), let right = files(b), left.keys.sorted() == right.keys.sorted() else { return false }
        for (path, leftSize) in left {
            guard right[path] == leftSize else { return false }
            let fa = a.appendingPathComponent(path), fb = b.appendingPathComponent(path)
            var sa = stat(), sb = stat()
            if stat(fa.path, &sa) == 0, stat(fb.path, &sb) == 0, sa.st_ino == sb.st_ino, sa.st_dev == sb.st_dev { continue }
            guard FileManager.default.contentsEqual(atPath: fa.path, andPath: fb.path) else { return false }
        }
        return true
    }

    /// Total bytes of the files under a folder.
    static func size(of folder: URL) -> Int64 {
        (files(folder) ?? [:]).values.reduce(0, +)
    }

    private static func files(_ root: URL) -> [String: Int64]? {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey]) else { return nil }
        var out: [String: Int64] = [:]
        let prefix = root.standardizedFileURL.resolvingSymlinksInPath().path.count + 1
        for case let file as URL in walker {
            guard let values = try? file.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey]), values.isRegularFile == true else { continue }
            out[String(file.standardizedFileURL.resolvingSymlinksInPath().path.dropFirst(prefix))] = Int64(values.fileSize ?? 0)
        }
        return out
    }
}
