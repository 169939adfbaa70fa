import Foundation
import MatsiteImaging

extension Builder {
    /// A layer as the previous build published it, its files linked into the new site, its
    /// frames mapped onto this build's timeline (within its `max_age`), its manifest entry
    /// kept (`KeptLayer`); nil when it was never published, or no published frame falls
    /// within reach of the timeline.
    func keepPublished(_ layerPlan: LayerPlan, of plan: AnimationPlan, loader: any TileLoader, writer: SiteWriter) throws -> LayerContext? {
        guard let layer = layerPlan.layer else { return nil }
        let id = plan.config.id, layerId = layer.id
        guard let published = writer.previous.manifest(animation: id)?.layers?.first(where: { $0.id == layerId }) else { return nil }
        let times = published.frames.compactMap(\.time), timeline = plan.frames.compactMap(\.time)
        guard times.count == published.frames.count, timeline.count == plan.frames.count else { return nil }
        let kinds = published.frames.map { $0.kind == FrameKind.forecast.rawValue ? FrameKind.forecast : .observed }
        let placed =
            if let future = layerPlan.future {
                Timeline.map(timeline, frames: Array(zip(times, kinds)), maxAge: layerPlan.maxAge, future: future)
            } else {
                Timeline.map(timeline, frames: times, maxAge: layerPlan.maxAge)
            }
        let (used, mapping) = Timeline.used(placed)
        guard !used.isEmpty else { return nil }
        // Its files as published (the layer's folder, whole), in place of what this build
        // staged of it before it failed.
        try? FileManager.default.removeItem(at: writer.root.appendingPathComponent(id).appendingPathComponent(layerId))
        for path in writer.previous.paths(under: "\(id)/\(layerId)/").sorted() where try !writer.link(path) { return nil }
        let folder = "\(layerId)/"
        var entry = published
        entry.frames = used.enumerated().map { position, index in
            var frame = published.frames[index]
            frame.index = position
            return frame
        }
        entry.skipped = nil
        let frames = entry.frames.map { frame in
            PublishedFrame(
                index: frame.index, time: frame.time, durationMs: frame.durationMs, file: String(frame.url.dropFirst(folder.count)),
                bytes: frame.bytes, sha256: frame.sha256, inputHash: frame.inputHash, sourceHash: frame.sourceHash,
                fallbackHash: frame.fallbackHash, levelTiles: frame.tiles.map { String($0.dropFirst(folder.count)) },
                levels: (frame.levels ?? []).map {
                    ReducedLevel(file: String($0.url.dropFirst(folder.count)), width: $0.width, height: $0.height, bytes: $0.bytes)
                },
                coarsest: frame.coarsest.map {
                    ReducedLevel(file: String($0.url.dropFirst(folder.count)), width: $0.width, height: $0.height, bytes: $0.bytes)
                },
                // A box that is not one (a hand-edited manifest) is left out, not trapped on.
                coarser: (frame.coarsest?.levels ?? []).compactMap {
                    guard $0.x0 >= 0, $0.y0 >= 0, $0.width > 0, $0.height > 0 else { return nil }
                    return CoarseImage(
                        file: String($0.url.dropFirst(folder.count)),
                        level: PyramidLevel(zoom: $0.zoom, x0: $0.x0, y0: $0.y0, width: $0.width, height: $0.height), bytes: $0.bytes)
                })
        }
        var kept = LayerPlan(
            layer: layer, plan: layerPlan.plan, mapping: mapping, maxAge: layerPlan.maxAge, notes: layerPlan.notes, future: layerPlan.future)
        kept.kept = used.map { (kinds[$0], published.frames[$0].run.flatMap(TimeFormat.instant), published.frames[$0].time) }
        var context = LayerContext(
            layer: kept, site: config, legendImage: nil, loader: loader, writer: writer, reporter: reporter,
            frames: frames)
        context.products.add(KeptLayer(entry: entry))
        return context
    }
}

/// A layer kept as the previous build published it: its manifest entry as published (its
/// frames renumbered for this timeline), which the manifest maps as it is.
struct KeptLayer: Product {
    var entry: AnimationManifest.Layer
}
