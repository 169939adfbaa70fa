import MatsiteCapabilities
import MatsiteImaging

/// The one place the build's values become the manifest's wire format: a new manifest
/// field is a property in `Manifest.swift` and a line here. Both shapes are mapped from the
/// stack here: a one-source animation's frames and products are its one layer's; a layered
/// animation's frames are its timeline's entries, and each layer has an entry of its own.
extension AnimationManifest {
    /// The manifest of a built animation: its settings and geometry, its frames (or
    /// timeline and layers), and what its steps made (fallback, levels, legend image,
    /// exports, point layers).
    init(_ built: AnimationContext) {
        if built.isLayered {
            self.init(animation: built.animation, layout: built.plan.layout, frames: [], site: built.site, skipped: built.plan.skipped)
            frames = built.timeline.entries.enumerated().map { index, entry in
                Frame(
                    index: index, url: "", time: entry.time?.wholeSeconds, durationMs: entry.durationMs, bytes: 0, sha256: "", inputHash: "",
                    layers: entry.frames
                ).of(kind: entry.kind, run: entry.run)
            }
            legend = built.animation.legend.map { Legend($0, image: nil) }
            layers = built.layers.map(Layer.init)
            // The page credits every source shown: the animation's own, then each layer's.
            attribution = built.animation.fullAttribution
            attributionHtml = Attribution.html(attribution)
        } else {
            let own = built.layers[0]
            self.init(animation: built.animation, layout: built.plan.layout, frames: own.frames, site: built.site, skipped: built.plan.skipped)
            fallback = own.products[FallbackTiles.self].map(Fallback.init)
            pyramid = own.products[FramePyramid.self].map(Pyramid.init)
            legend = built.animation.legend.map { Legend($0, image: own.products[PublishedLegendImage.self]?.name) }
            let entries = built.timeline.entries
            frames = frames.map { frame in
                guard entries.indices.contains(frame.index) else { return frame }
                return frame.of(kind: entries[frame.index].kind, run: entries[frame.index].run)
            }
        }
        now = built.now?.manifestText
        poster = built.posterFile
        exports = built.products[ExportedLoops.self].map(Exports.init)
        points = built.products[PublishedPointLayers.self].flatMap { $0.layers.isEmpty ? nil : $0.layers.map(PointLayer.init) }
    }

    /// An animation's settings, geometry and frames, with the site's base map and embed
    /// settings (the legend without its image).
    init(animation config: AnimationConfig, layout: FrameLayout, frames: [PublishedFrame], site: SiteConfig, skipped: [SkippedFrame] = []) {
        self.init(
            id: config.id, title: config.title, bounds: config.bbox, zoom: config.zoom,
            width: layout.width, height: layout.height, tileSize: layout.tileSize,
            attribution: config.attribution, attributionHtml: Attribution.html(config.attribution),
            crossfadeMs: config.crossfadeMs, loop: config.loop, poster: Poster.file(forFrame: frames.last?.file ?? ""),
            baseMap: site.baseMap.flatMap { BaseMap($0, animation: config) }, fallback: nil, embed: .init(allowedOrigins: site.embed.allowedOrigins),
            frames: frames.map(Frame.init), skipped: skipped.isEmpty ? nil : skipped,
            opacity: config.opacity, legend: config.legend.map { Legend($0, image: nil) }, timeZone: config.timeZone,
            timeLabel: config.timeLabel)
    }
}

extension AnimationManifest.Frame {
    /// A published frame, its time to the second.
    init(_ frame: PublishedFrame) {
        self.init(
            index: frame.index, url: frame.file, time: frame.time?.wholeSeconds, durationMs: frame.durationMs, bytes: frame.bytes,
            sha256: frame.sha256, missingTiles: frame.missingTiles.isEmpty ? nil : frame.missingTiles.map { .init($0.tile, reason: $0.reason) },
            inputHash: frame.inputHash, sourceHash: frame.sourceHash, fallbackHash: frame.fallbackHash, tiles: frame.levelTiles,
            blank: frame.blank ? true : nil,
            levels: frame.levels.isEmpty ? nil : frame.levels.map { .init(url: $0.file, width: $0.width, height: $0.height, bytes: $0.bytes) },
            coarsest: frame.coarsest.map { coarsest in
                .init(
                    url: coarsest.file, width: coarsest.width, height: coarsest.height, bytes: coarsest.bytes,
                    levels: frame.coarser.isEmpty
                        ? nil
                        : frame.coarser.enumerated().map { k, image in
                            .init(
                                url: image.file, zoom: image.level.zoom, x0: image.level.x0, y0: image.level.y0, width: image.level.width,
                                height: image.level.height, bytes: image.bytes, sheet: k == 0 ? frame.sheet.map(Self.cell) : nil)
                        },
                    sheet: frame.coarser.isEmpty ? frame.sheet.map(Self.cell) : nil)
            })
    }
}

extension AnimationManifest.Frame {
    static func cell(_ cell: SheetCell) -> Coarsest.SheetCell { .init(url: cell.file, y: cell.y) }

    /// The frame marked with its kind and run: nothing for an observed one (absent means
    /// observed), `kind: forecast` and its run for a forecast.
    func of(kind: FrameKind, run: TimeInstant?) -> Self {
        var frame = self
        frame.kind = kind == .forecast ? kind.rawValue : nil
        frame.run = kind == .forecast ? run?.manifestText : nil
        return frame
    }
}

extension AnimationManifest.Layer {
    /// A built layer: its settings and frames, each URL made relative to the animation's
    /// manifest (the layer's files are in its folder, `<layer id>/`); a layer kept as
    /// published, its entry as it was.
    init(_ built: LayerContext) {
        if let kept = built.products[KeptLayer.self] {
            self = kept.entry
            return
        }
        let folder = built.layer.folder
        let feed = built.animation.feed
        self.init(
            id: built.layer.layer?.id ?? "", title: built.animation.title, opacity: feed.opacity ?? 1,
            legend: feed.legend.map { AnimationManifest.Legend($0, image: built.products[PublishedLegendImage.self].map { folder + $0.name }) },
            attribution: feed.attribution, attributionHtml: Attribution.html(feed.attribution),
            frames: built.frames.map {
                var frame = AnimationManifest.Frame($0)
                if let planned = built.layer.plan.frames.first(where: { $0.index == frame.index }) {
                    frame = frame.of(kind: planned.kind, run: planned.run)
                }
                frame.url = folder + frame.url
                frame.tiles = frame.tiles.map { folder + $0 }
                frame.levels = frame.levels?.map { level in
                    var level = level
                    level.url = folder + level.url
                    return level
                }
                if var coarsest = frame.coarsest {
                    coarsest.url = folder + coarsest.url
                    coarsest.levels = coarsest.levels?.map { image in
                        var image = image
                        image.url = folder + image.url
                        return image
                    }
                    frame.coarsest = coarsest
                }
                return frame
            },
            pyramid: built.products[FramePyramid.self].map(AnimationManifest.Pyramid.init),
            fallback: built.products[FallbackTiles.self].map {
                var fallback = AnimationManifest.Fallback($0)
                // The site's own tiles are in the layer's folder; the source's URLs stay as they are.
                if $0.published { fallback.templates = fallback.templates.map { folder + $0 } }
                return fallback
            }, skipped: built.plan.skipped.isEmpty ? nil : built.plan.skipped,
            width: built.plan.layout.width, height: built.plan.layout.height, tileSize: built.plan.layout.tileSize)
    }
}

extension AnimationManifest.Fallback {
    /// The tiles the player falls back on; `published` only for the site's own.
    init(_ tiles: FallbackTiles) {
        self.init(
            templates: tiles.templates, minZoom: tiles.minZoom, maxNativeZoom: tiles.maxNativeZoom, subdomains: tiles.subdomains,
            published: tiles.published ? true : nil)
    }
}

extension AnimationManifest.Pyramid {
    /// The levels of a frame pyramid, coarsest first.
    init(_ pyramid: FramePyramid) {
        self.init(
            tileSize: PyramidLevel.tileSize, minZoom: pyramid.minZoom, maxZoom: pyramid.maxZoom,
            levels: pyramid.levels.map { .init(zoom: $0.zoom, x0: $0.x0, y0: $0.y0, width: $0.width, height: $0.height) })
    }
}

extension AnimationManifest.Legend {
    /// The config's legend, with its image's published URL (not the config's file path).
    init(_ legend: LegendConfig, image: String?) {
        self.init(
            unit: legend.unit, stops: legend.stops.map { .init(value: $0.value, color: $0.color, label: $0.label) }, image: image,
            imageAlt: legend.imageAlt)
    }
}

extension AnimationManifest.BaseMap {
    /// The player's background layer for the config's `base_map` under `animation`; nil
    /// when it has neither a URL nor the demo map.
    init?(_ map: BaseMapConfig, animation: AnimationConfig) {
        if map.demo {
            self.init(
                url: "../\(DemoBaseMap.folder)/{z}/{x}/{y}.png", attributionHtml: Attribution.html(map.attribution),
                maxZoom: 22, maxNativeZoom: DemoBaseMap.maxZoom, subdomains: [],
                detail: DemoBaseMap.Detail(animation).map {
                    Detail(
                        minZoom: $0.zooms.lowerBound, maxNativeZoom: $0.zooms.upperBound,
                        bounds: [$0.bbox.west, $0.bbox.south, $0.bbox.east, $0.bbox.north])
                })
        } else if let url = map.url {
            self.init(
                url: url, attributionHtml: Attribution.html(map.attribution), maxZoom: max(map.maxZoom, 22),
                maxNativeZoom: map.maxZoom, subdomains: map.subdomains)
        } else {
            return nil
        }
    }
}

extension AnimationManifest.MissingTile {
    /// A tile the frame lacks, with why.
    init(_ tile: TileCoordinate, reason: String) {
        self.init(z: tile.z, x: tile.x, y: tile.y, bounds: WebMercator.tileBounds(z: tile.z, x: tile.x, y: tile.y), reason: reason)
    }
}

extension AnimationManifest.Exports {
    /// The exported loops' URLs, relative to the manifest (the animation's folder).
    init(_ loops: ExportedLoops) {
        self.init(mp4: loops.files[.mp4], gif: loops.files[.gif], webp: loops.files[.webp])
    }
}

extension AnimationManifest.PointLayer {
    /// A published point layer's entry: its files' URLs are relative to the manifest (the
    /// animation's folder), as the layer gives them.
    init(_ layer: PublishedPointLayer) {
        self.init(
            id: layer.id, title: layer.title, count: layer.count, skipped: layer.skipped > 0 ? layer.skipped : nil, radiusPx: layer.radiusPx,
            minZoom: layer.minZoom, maxZoom: layer.maxZoom, timed: layer.timed, labeled: layer.labeled, popup: layer.popup,
            levels: layer.levels.map { .init(zoom: $0.zoom, url: $0.url, items: $0.items, bytes: $0.bytes, tiles: $0.tiles) },
            properties: layer.properties, inputs: layer.inputs,
            slots: layer.slots.map { .init(origin: $0.origin, stepMs: $0.stepMs, frames: $0.frames) })
    }
}

extension PublishedPointLayer {
    /// The previous site's layer, read back from its manifest entry (a layer that is
    /// linked rather than made again).
    init(_ entry: AnimationManifest.PointLayer) {
        self.init(
            id: entry.id, title: entry.title, count: entry.count, skipped: entry.skipped ?? 0, radiusPx: entry.radiusPx,
            minZoom: entry.minZoom, maxZoom: entry.maxZoom, labeled: entry.labeled, popup: entry.popup,
            levels: entry.levels.map { .init(zoom: $0.zoom, url: $0.url, items: $0.items, bytes: $0.bytes, tiles: $0.tiles) },
            properties: entry.properties, inputs: entry.inputs,
            slots: entry.slots.map { .init(origin: $0.origin, stepMs: $0.stepMs, frames: $0.frames) }, timed: entry.timed)
    }
}
