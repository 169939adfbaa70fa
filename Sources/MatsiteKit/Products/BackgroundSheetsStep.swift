import Foundation
import MatsiteCapabilities
import MatsiteImaging
import MatsiteSupport

/// A multi-level animation's first backgrounds (each frame's smallest image of its coarsest
/// level: what a phone fetches of every frame before it may play) also in sheets of up to
/// `cells` frames, stacked top to bottom (`frames/sheet-<hash>.png`, docs/player.md
/// "Background sheets"): a page asks for a few files instead of one per frame.
///
/// Frames go to sheets by time, in spans of `cells` steps of the loop from the epoch, so a
/// sheet stops changing once its span is past: a viewer who comes back finds all but the
/// newest sheet in their cache. A sheet whose frames have started to leave the loop is kept
/// as it is (linked from the previous site, the departed frames' cells with it) for as long as
/// it holds every frame of its span still in the loop. Frames without times go by position.
/// One-source PNG animations only: a layered one's pages preload nothing, and a lossy
/// frame's backgrounds (WebP) would grow as PNG.
struct BackgroundSheetsStep: LayerStep {
    var stage: BuildStage { .publish }

    /// Frames a sheet holds at most.
    static let cells = 6

    func run(_ layer: inout LayerContext) async throws {
        guard layer.layer.layer == nil, layer.frames.count > 1 else { return }
        let firsts = layer.frames.map(\.firstBackground)
        guard let size = firsts.first??.size,
            firsts.allSatisfy({ $0?.size.width == size.width && $0?.size.height == size.height && $0?.file.hasSuffix(".png") == true })
        else { return }
        let animation = layer.animation.id, writer = layer.writer
        let files = firsts.map { $0!.file }
        // Where the previous build's frames had their backgrounds: by the background's file.
        var published: [String: SheetCell] = [:]
        for frame in writer.previous.manifest(animation: animation)?.frames ?? [] {
            if let first = frame.firstBackground, let cell = first.sheet, PreviousSite.safeRelative(cell.url) {
                published[first.url] = SheetCell(file: cell.url, y: cell.y)
            }
        }
        for group in Self.groups(times: layer.frames.map(\.time), size: Self.cells) {
            var distinct: [String] = []
            for i in group where !distinct.contains(files[i]) { distinct.append(files[i]) }
            guard distinct.count > 1 else { continue }
            let cells: [String: SheetCell]
            if let kept = kept(distinct, published: published, animation: animation, writer: writer) {
                cells = kept
            } else {
                cells = try await make(distinct, size: size, animation: animation, level: layer.animation.compressionLevel, writer: writer)
            }
            for i in group { layer.frames[i].sheet = cells[files[i]] }
        }
    }

    /// The frames that share a sheet, each group in the loop's order: by span of `size` steps
    /// (the median gap between the frames' times) counted from the epoch when every frame has
    /// a time, else by position; a span holding more than `size` (irregular times) is cut.
    static func groups(times: [TimeInstant?], size: Int) -> [[Int]] {
        let ms = times.compactMap { $0?.millisecondsSinceEpoch }
        var gaps = zip(ms.dropFirst(), ms).map { $0 - $1 }.filter { $0 > 0 }.sorted()
        let keys: [Int64]
        if ms.count == times.count, !gaps.isEmpty {
            gaps = [gaps[gaps.count / 2]]
            let span = gaps[0] * Int64(size)
            keys = ms.map { $0 >= 0 ? $0 / span : ($0 - span + 1) / span }
        } else {
            keys = times.indices.map { Int64($0 / size) }
        }
        var order: [Int64] = []
        var byKey: [Int64: [Int]] = [:]
        for (i, key) in keys.enumerated() {
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(i)
        }
        return order.flatMap { key in
            let members = byKey[key]!
            return stride(from: 0, to: members.count, by: size).map { Array(members[$0..<min($0 + size, members.count)]) }
        }
    }

    /// The previous build's sheet of these backgrounds, linked into the new site, when one
    /// sheet held them all and is still there.
    private func kept(_ files: [String], published: [String: SheetCell], animation: String, writer: SiteWriter) -> [String: SheetCell]? {
        guard let sheet = published[files[0]]?.file, files.allSatisfy({ published[$0]?.file == sheet }),
            (try? writer.link("\(animation)/\(sheet)")) == true
        else { return nil }
        return Dictionary(uniqueKeysWithValues: files.map { ($0, published[$0]!) })
    }

    /// A new sheet of these backgrounds (read from the staged site), named by its content.
    private func make(
        _ files: [String], size: (width: Int, height: Int), animation: String, level: Int, writer: SiteWriter
    ) async throws -> [String: SheetCell] {
        let folder = writer.root.path + "/" + animation + "/"
        var images: [[UInt8]] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: folder + file) else { throw LevelsError.unreadable(folder + file) }
            images.append(Array(data))
        }
        let cells = images
        let bytes = try await CPUPool.shared.run { () throws -> [UInt8] in
            do throws(ImageError) {
                return try ImageSheet.stack(cells, width: size.width, height: size.height, level: level)
            } catch {
                throw LevelsError.cannotMakeSheet(animation: animation, first: files[0], error)
            }
        }
        let file = "frames/sheet-\(SHA256.hex(of: bytes).prefix(FrameName.hashLength)).png"
        try writer.put(bytes, at: "\(animation)/\(file)")
        return Dictionary(uniqueKeysWithValues: files.enumerated().map { k, name in (name, SheetCell(file: file, y: k * size.height)) })
    }
}

extension PublishedFrame {
    /// Its first background: the smallest image of its coarsest level (`coarser.first`, else
    /// `coarsest`), with its size.
    var firstBackground: (file: String, size: (width: Int, height: Int))? {
        if let image = coarser.first { return (image.file, (image.level.width, image.level.height)) }
        return coarsest.map { ($0.file, ($0.width, $0.height)) }
    }
}

extension AnimationManifest.Frame {
    /// Its first background as the manifest lists it: url and sheet cell.
    var firstBackground: (url: String, sheet: Coarsest.SheetCell?)? {
        if let image = coarsest?.levels?.first { return (image.url, image.sheet) }
        return coarsest.map { ($0.url, $0.sheet) }
    }
}
