import Foundation
import MatsiteCapabilities
import MatsiteImaging

/// The site the last build published, read so that unchanged frames are kept instead of
/// stitched again (hard-linked into the new site: same bytes, same file).
struct PreviousSite: Sendable {
    let output: URL
    private let frames: [String: [String: AnimationManifest.Frame]]
    /// Each animation's frames by source hash (those that have one).
    private let bySource: [String: [String: AnimationManifest.Frame]]
    /// Each animation's (and layer's) newest frame time.
    private let newest: [String: TimeInstant]
    /// Each animation's last frame's input hash (its poster was drawn from that frame).
    private let lastFrames: [String: String]
    /// Each animation's manifest, as the site index lists them.
    private let manifests: [String: AnimationManifest]
    /// The levels each animation's (and each layer's, `<animation>/<layer>`) frames were
    /// published at.
    private let pyramids: [String: AnimationManifest.Pyramid]
    /// Its regular files reached through no symlink below the output folder (the folder
    /// itself may be a symlink), listed once: a planted link (a file, or a folder on the
    /// way such as `frames/`) must not bring outside files into the new site.
    let files: [String: TreeComparison.File]

    init(output: URL) {
        self.output = output
        files = TreeComparison.files(output) ?? [:]
        var frames: [String: [String: AnimationManifest.Frame]] = [:]
        var bySource: [String: [String: AnimationManifest.Frame]] = [:]
        var newest: [String: TimeInstant] = [:]
        var lastFrames: [String: String] = [:]
        var manifests: [String: AnimationManifest] = [:]
        var pyramids: [String: AnimationManifest.Pyramid] = [:]
        let decoder = JSONDecoder.manifest
        if let index = try? Data(contentsOf: output.appendingPathComponent("manifest.json")),
            let site = try? decoder.decode(SiteManifest.self, from: index)
        {
            for entry in site.animations where ConfigLoader.isSlug(entry.id) {
                guard let data = try? Data(contentsOf: output.appendingPathComponent(entry.id).appendingPathComponent("manifest.json")),
                    let manifest = try? decoder.decode(AnimationManifest.self, from: data)
                else { continue }
                frames[entry.id] = Dictionary(manifest.frames.map { ($0.inputHash, $0) }, uniquingKeysWith: { a, _ in a })
                bySource[entry.id] = Self.bySource(manifest.frames)
                newest[entry.id] = manifest.frames.compactMap(\.time).max()
                lastFrames[entry.id] = manifest.frames.last?.inputHash
                manifests[entry.id] = manifest
                pyramids[entry.id] = manifest.pyramid
                // A layer's frames are found as a one-source animation's are: by
                // `<animation>/<layer>`, their URLs relative to the layer's folder.
                for layer in manifest.layers ?? [] where ConfigLoader.isSlug(layer.id) {
                    let key = "\(entry.id)/\(layer.id)", folder = "\(layer.id)/"
                    let kept = layer.frames.filter { $0.url.hasPrefix(folder) }.map { frame in
                        var frame = frame
                        frame.url = String(frame.url.dropFirst(folder.count))
                        frame.tiles = frame.tiles.flatMap { $0.hasPrefix(folder) ? String($0.dropFirst(folder.count)) : nil }
                        frame.levels = frame.levels.map { levels in
                            levels.compactMap { level in
                                guard level.url.hasPrefix(folder) else { return nil }
                                var level = level
                                level.url = String(level.url.dropFirst(folder.count))
                                return level
                            }
                        }
                        return frame
                    }
                    frames[key] = Dictionary(kept.map { ($0.inputHash, $0) }, uniquingKeysWith: { a, _ in a })
                    bySource[key] = Self.bySource(kept)
                    newest[key] = layer.frames.compactMap(\.time).max()
                    pyramids[key] = layer.pyramid
                }
            }
        }
        self.frames = frames
        self.bySource = bySource
        self.newest = newest
        self.lastFrames = lastFrames
        self.manifests = manifests
        self.pyramids = pyramids
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

    /// The previous frame made from the same URLs and settings (`FrameStitcher.sourceHash`),
    /// with its file still there as its manifest gives it.
    func frame(animation: String, sourceHash: String) -> AnimationManifest.Frame? {
        guard let frame = bySource[animation]?[sourceHash] else { return nil }
        return self.frame(animation: animation, inputHash: frame.inputHash)
    }

    /// The newest frame time of the animation's (or layer's) published frames.
    func newestTime(animation: String) -> TimeInstant? {
        newest[animation]
    }

    private static func bySource(_ frames: [AnimationManifest.Frame]) -> [String: AnimationManifest.Frame] {
        Dictionary(frames.compactMap { frame in frame.sourceHash.map { ($0, frame) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The animation's published manifest, when the site index lists it.
    func manifest(animation: String) -> AnimationManifest? {
        manifests[animation]
    }

    /// The folder (relative to the animation's) of the previous frame made from exactly
    /// these inputs, when it was published with exactly these levels: its tiles can be
    /// linked. Whether each tile is still there is for the caller to find out.
    func levelFolder(animation: String, inputHash: String, pyramid: FramePyramid, tileExt: String = "png") -> String? {
        let suffix = "/{z}/{x}/{y}.\(tileExt)"
        guard pyramids[animation] == AnimationManifest.Pyramid(pyramid), let frame = frames[animation]?[inputHash], let tiles = frame.tiles,
            tiles.hasSuffix(suffix)
        else { return nil }
        let folder = String(tiles.dropLast(suffix.count))
        return Self.safeRelative(folder) && !folder.contains("{") ? folder : nil
    }

    /// The reduced copies (`levels`) of the previous frame made from exactly these inputs,
    /// coarsest first, their URLs relative to the animation's (or layer's) folder; nil when
    /// it had none, or one of them names a file outside its `frames/`. Whether each file is
    /// still there is for the caller to find out.
    func reducedLevels(animation: String, inputHash: String) -> [AnimationManifest.Frame.Level]? {
        guard let levels = frames[animation]?[inputHash]?.levels, !levels.isEmpty, levels.allSatisfy({ Self.safeRelative($0.url) })
        else { return nil }
        return levels
    }

    /// True when the previous build's last frame of the animation had these inputs.
    func isLastFrame(animation: String, inputHash: String) -> Bool {
        lastFrames[animation] == inputHash
    }

    /// True when the previous build left a poster named `file` for the animation.
    func hasPoster(animation: String, file: String = "poster.png") -> Bool {
        frames[animation] != nil && regularFile(animation: animation, relative: file) != nil
    }

    /// Hard-links (or copies) a previous file into the new site.
    func link(animation: String, relative: String, to target: URL) -> Bool {
        guard let source = regularFile(animation: animation, relative: relative)?.url else { return false }
        // Another file system cannot hard-link: copy.
        if (try? systemCall("link", "cannot link \(target.path)") { Foundation.link(source.path, target.path) }) != nil { return true }
        return (try? FileManager.default.copyItem(at: source, to: target)) != nil
    }

    /// `<output>/<animation>/<relative>` with its size when it is one of `files`.
    private func regularFile(animation: String, relative: String) -> (url: URL, size: Int)? {
        regularFile(animation + "/" + relative)
    }

    /// The relative paths of its files below `prefix` (a folder, with its slash).
    func paths(under prefix: String) -> [String] {
        files.keys.filter { $0.hasPrefix(prefix) }
    }

    /// True when `<output>/<relative>` is one of `files` and holds exactly `bytes`.
    func holds(_ bytes: [UInt8], at relative: String) -> Bool {
        guard let file = regularFile(relative), file.size == bytes.count,
            let data = FileManager.default.contents(atPath: file.url.path), data.count == bytes.count
        else { return false }
        if bytes.isEmpty { return true }
        return data.withUnsafeBytes { old in bytes.withUnsafeBytes { new in memcmp(old.baseAddress!, new.baseAddress!, new.count) == 0 } }
    }

    /// `<output>/<relative>` with its size when it is one of `files`.
    func regularFile(_ relative: String) -> (url: URL, size: Int)? {
        guard let file = files[relative] else { return nil }
        return (output.appendingPathComponent(relative), Int(file.size))
    }

    /// A manifest URL that stays inside its animation's folder.
    static func safeRelative(_ path: String) -> Bool {
        !path.hasPrefix("/") && !path.split(separator: "/").contains("..") && path.hasPrefix("frames/")
    }
}

/// Compares two published trees.
enum TreeComparison {
    /// A regular file of a tree: size and identity (hard links share it).
    struct File: Equatable {
        var size: Int64
        var device: UInt64
        var inode: UInt64
    }

    /// True when two listed trees hold the same files with the same bytes. Files that are
    /// the same inode (linked from the previous site) are not read.
    static func equal(_ a: URL, _ left: [String: File], _ b: URL, _ right: [String: File]) -> Bool {
        guard left.count == right.count else { return false }
        for (path, file) in left {
            guard let other = right[path], other.size == file.size else { return false }
            if other.inode == file.inode && other.device == file.device { continue }
            guard FileManager.default.contentsEqual(atPath: a.path + "/" + path, andPath: b.path + "/" + path) else { return false }
        }
        return true
    }

    /// Every regular file below `root` (symlinks are not followed), by relative path; nil
    /// when `root` cannot be read. With `readdir` and `lstat` rather than a
    /// `FileManager` enumerator, which costs several times more per file.
    static func files(_ root: URL) -> [String: File]? {
        var out: [String: File] = [:]
        func walk(_ folder: String, _ prefix: String) -> Bool {
            guard let directory = opendir(folder) else { return false }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name == "." || name == ".." { continue }
                let path = folder + "/" + name
                var status = stat()
                // Gone since it was listed: not part of the tree.
                guard (try? systemCall("lstat", "cannot read \(path)") { lstat(path, &status) }) != nil else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFREG:
                    out[prefix + name] = File(size: Int64(status.st_size), device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
                case S_IFDIR:
                    _ = walk(path, prefix + name + "/")
                default:
                    continue
                }
            }
            return true
        }
        // The root itself may be a symlink (an output folder kept elsewhere).
        let resolved = FilePath.real(root.path) ?? root.path
        return walk(resolved, "") ? out : nil
    }
}
