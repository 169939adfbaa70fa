import Foundation
import MatsiteCapabilities

/// `site/manifest.json`: the site index.
public struct SiteManifest: Codable, Sendable, Equatable {
    public var version = 1
    public var title: String
    public var generator: String
    public var animations: [Entry]

    /// One animation in the index.
    public struct Entry: Codable, Sendable, Equatable {
        public var id: String
        public var title: String
        public var page: String
        public var embed: String
        public var manifest: String
        public var poster: String
    }
}

/// `site/<id>/manifest.json`: one animation, as the player reads it.
public struct AnimationManifest: Codable, Sendable, Equatable {
    public var version = 1
    public var id: String
    public var title: String
    public var bounds: BoundingBox
    public var zoom: Int
    public var width: Int
    public var height: Int
    public var tileSize: Int
    public var attribution: String
    /// `attribution` with only text and http(s) links kept, safe to insert as HTML.
    public var attributionHtml: String
    public var crossfadeMs: Int
    public var loop: Bool
    public var poster: String
    public var baseMap: BaseMap?
    public var fallback: Fallback?
    public var embed: Embed
    public var frames: [Frame]
    /// Times left out of this build (a live feed's newest frames not published yet).
    public var skipped: [SkippedFrame]? = nil
    /// The animation layer's default opacity (0...1) in the player.
    public var opacity: Double? = nil
    /// Colour key drawn beside the player.
    public var legend: Legend? = nil
    /// IANA time zone for the player's time labels (absent: the viewer's).
    public var timeZone: String? = nil
    /// What the time label shows: `absolute`, `relative` ("12 min ago") or `both`.
    public var timeLabel: String? = nil
    /// The frames' levels, when they are published as tile pyramids (then every frame has `tiles`).
    public var pyramid: Pyramid? = nil

    /// The levels every frame is published at (docs/player.md, "Multi-level frames").
    public struct Pyramid: Codable, Sendable, Equatable {
        /// Edge of a level tile in pixels.
        public var tileSize: Int
        /// The coarsest level's zoom.
        public var minZoom: Int
        /// The finest level's zoom: the frame's own pixels.
        public var maxZoom: Int
        /// Coarsest first.
        public var levels: [Level]

        /// One level: the frame's box in global pixel coordinates at its zoom (256-pixel tiles).
        public struct Level: Codable, Sendable, Equatable {
            public var zoom: Int
            public var x0: Int
            public var y0: Int
            public var width: Int
            public var height: Int
        }
    }

    /// With `layers:`, the layers bottom to top (then `frames` is the timeline).
    public var layers: [Layer]? = nil

    /// One layer of a layered animation, as the player reads it.
    public struct Layer: Codable, Sendable, Equatable {
        public var id: String
        public var title: String
        /// The layer's default opacity (0...1).
        public var opacity: Double
        public var legend: Legend?
        public var attribution: String
        /// `attribution` with only text and http(s) links kept, safe to insert as HTML.
        public var attributionHtml: String
        /// The layer's frames, each once, oldest first; URLs relative to the manifest.
        public var frames: [Frame]
        /// The levels its frames are published at, when they are.
        public var pyramid: Pyramid?
        /// Its tiles for zooming past the frames' detail.
        public var fallback: Fallback?
        /// Its newest times left out of this build (not published yet).
        public var skipped: [SkippedFrame]?
        /// Its frames' pixels across and down, and its source's tile size: a layer of
        /// 512-pixel tiles makes frames twice the size of one of 256 (absent in manifests
        /// written before layers said their size).
        public var width: Int? = nil
        public var height: Int? = nil
        public var tileSize: Int? = nil
    }

    /// Point layers drawn over the frames, clustered at build time.
    public var points: [PointLayer]? = nil
    /// The loop as video and animated images (`export:`), relative to the manifest.
    public var exports: Exports? = nil
    /// The build's clock (ISO 8601 UTC, like the frame times): frames after it are
    /// forecasts. A rebuild that changes nothing else keeps the published one.
    public var now: String? = nil

    /// Exported loops' URLs, by format; absent formats were not asked for.
    public struct Exports: Codable, Sendable, Equatable {
        public var mp4: String?
        public var gif: String?
        public var webp: String?
    }

    /// A colour key: stops of value and colour, and the values' unit.
    public struct Legend: Codable, Sendable, Equatable {
        public var unit: String
        public var stops: [Stop]
        /// An image shown beside the stops: the published copy's URL (`legend-<hash>.<ext>`,
        /// relative to the manifest).
        public var image: String? = nil
        /// What the image shows, for readers who cannot see it.
        public var imageAlt: String? = nil

        /// One stop, written `[value, "#rrggbb"]` or `[value, "#rrggbb", "label"]` as in the config.
        public struct Stop: Codable, Sendable, Equatable {
            public var value: Double
            public var color: String
            public var label: String?

            /// Creates a stop.
            public init(value: Double, color: String, label: String? = nil) {
                self.value = value
                self.color = color
                self.label = label
            }

            /// Reads `[value, colour(, label)]`.
            public init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                value = try c.decode(Double.self)
                color = try c.decode(String.self)
                label = c.isAtEnd ? nil : try c.decode(String.self)
            }

            /// Writes `[value, colour(, label)]`.
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.unkeyedContainer()
                try c.encode(value)
                try c.encode(color)
                if let label { try c.encode(label) }
            }
        }
    }

    /// The player's background layer.
    public struct BaseMap: Codable, Sendable, Equatable {
        public var url: String
        public var attributionHtml: String
        public var maxZoom: Int
        public var maxNativeZoom: Int
        public var subdomains: [String]
        /// Deeper tiles of the same map around the animation (the demo base map), drawn over
        /// the world's coarser ones.
        public var detail: Detail? = nil

        /// Where the base map has deeper tiles than `maxNativeZoom`.
        public struct Detail: Codable, Sendable, Equatable {
            /// The first zoom with detail tiles.
            public var minZoom: Int
            /// The deepest; the player scales them up beyond.
            public var maxNativeZoom: Int
            /// `[west, south, east, north]` in degrees: tiles outside are not published.
            public var bounds: [Double]
        }
    }

    /// Tiles for zooming past the frames' detail.
    public struct Fallback: Codable, Sendable, Equatable {
        /// One `{z}/{x}/{y}` template per frame, in frame order: the site's own tiles
        /// (`tiles/<hash>/...`, relative to the manifest) or the source's URLs.
        public var templates: [String]
        public var minZoom: Int
        public var maxNativeZoom: Int
        public var subdomains: [String]
        /// True for tiles published with the site: they exist only over the bounds, so the
        /// player asks for no others. Absent for the source's own URLs.
        public var published: Bool? = nil
    }

    /// Embed page settings.
    public struct Embed: Codable, Sendable, Equatable {
        public var allowedOrigins: [String]
    }

    /// One pre-stitched frame.
    public struct Frame: Codable, Sendable, Equatable {
        public var index: Int
        public var url: String
        /// ISO 8601 in the JSON, to the second.
        public var time: TimeInstant?
        public var durationMs: Int
        public var bytes: Int
        public var sha256: String
        /// Tiles drawn transparent because they could not be had (`missing: transparent`).
        public var missingTiles: [MissingTile]?
        /// Hash of everything the frame was made from: equal means the frame can be reused.
        public var inputHash: String
        /// Hash of where the frame's tiles come from (their URLs) and how it is made:
        /// equal, and the frame settled, means a later build carries it forward unasked.
        public var sourceHash: String? = nil
        /// Hash of the frame's fallback tiles (when published): equal means they can be kept.
        public var fallbackHash: String? = nil
        /// The frame's level tiles, `{z}/{x}/{y}` filled per tile, relative to the manifest
        /// (when the animation has a `pyramid`).
        public var tiles: String? = nil
        /// A layered animation's timeline entry: per layer, the index of the layer frame
        /// shown, or nil. Such an entry has no file: `url`, `bytes`, `sha256` and
        /// `input_hash` are left out of the JSON (and empty here).
        public var layers: [Int?]? = nil
        /// True when every pixel of the frame is fully transparent (a source that answered
        /// this time with empty tiles); absent otherwise.
        public var blank: Bool? = nil
        /// The frame's reduced copies, coarsest first (`levels:`, docs/player.md "Reduced
        /// levels"); absent when it has none.
        public var levels: [Level]? = nil
        /// `forecast` for a frame (or timeline entry) after the manifest's `now`; absent
        /// for an observed one.
        public var kind: String? = nil
        /// The model run (ISO 8601 UTC) a forecast frame belongs to, where the source has
        /// runs: one run for all of a manifest's forecast frames.
        public var run: String? = nil
        /// With `tiles`: the coarsest level of the pyramid as one image (the level's box,
        /// `pyramid.levels[0]`'s width and height), `frames/<hash>/<min_zoom>.png`; absent
        /// for single-image frames and in manifests from before it was published.
        public var coarsest: Coarsest? = nil

        /// One reduced copy of the frame: halved, and halved again, in the frame's format.
        public struct Level: Codable, Sendable, Equatable {
            /// Relative to the manifest, like the frame's `url`: `frames/<hash>/r1.png`.
            public var url: String
            public var width: Int
            public var height: Int
            public var bytes: Int
        }

        /// The coarsest pyramid level as one image, and its halvings as images.
        public struct Coarsest: Codable, Sendable, Equatable {
            /// Relative to the manifest: `frames/<hash>/<min_zoom>.png`.
            public var url: String
            public var width: Int
            public var height: Int
            public var bytes: Int
            /// Its halvings, coarsest first, down to the first at most 640 pixels on its
            /// longer side: the pyramid's levels below `min_zoom` (each `coarser` than the
            /// one after it), `frames/<hash>/<zoom>.png`; absent when the coarsest level is
            /// at most 640 pixels, and in manifests from before them.
            public var levels: [Image]? = nil
            /// When this image (no halvings) is the frame's first background: where a sheet holds it too.
            public var sheet: SheetCell? = nil

            /// One halving: level `zoom`'s box (global pixels at that zoom) as one image.
            public struct Image: Codable, Sendable, Equatable {
                public var url: String
                public var zoom: Int
                public var x0: Int
                public var y0: Int
                public var width: Int
                public var height: Int
                public var bytes: Int
                /// When this halving (the smallest) is the frame's first background: where a sheet holds it too.
                public var sheet: SheetCell? = nil
            }

            /// A first background's pixels in a sheet of several frames' (docs/player.md,
            /// "Background sheets"): rows `y ..< y + height` of `url`
            /// (`frames/sheet-<hash>.png`, relative to the manifest), the image's width.
            public struct SheetCell: Codable, Sendable, Equatable {
                public var url: String
                public var y: Int
            }
        }
    }

    /// A tile the frame lacks.
    public struct MissingTile: Codable, Sendable, Equatable {
        public var z: Int
        public var x: Int
        public var y: Int
        public var bounds: BoundingBox
        public var reason: String
    }
}

extension AnimationManifest {
    /// A point layer as the player reads it: its levels (one JSON file per zoom, clusters
    /// down to `max_zoom`, then the points themselves) and the properties file.
    public struct PointLayer: Codable, Sendable, Equatable {
        public var id: String
        public var title: String
        /// Points published.
        public var count: Int
        /// Invalid features or rows left out (`skip_invalid: true`).
        public var skipped: Int?
        public var radiusPx: Int
        public var minZoom: Int
        public var maxZoom: Int
        /// True when counts follow the frames (each level item has `slots` change points).
        public var timed: Bool
        /// True when single points carry a label (in the properties file).
        public var labeled: Bool
        /// Property names shown in a point's popup, in order.
        public var popup: [String]
        /// `min_zoom` ... `max_zoom + 1`, shallowest first.
        public var levels: [Level]
        /// Labels and popup texts per point, when there are any.
        public var properties: String?
        /// A hash of what the layer is made from (document, settings, frame times): a
        /// rebuild with the same inputs links the files instead of clustering again.
        public var inputs: String?
        /// For a timed layer, what its counts are keyed by: slots of a grid of times, which a
        /// moved window leaves where they are, so the levels do not change with it.
        public var slots: Slots? = nil

        /// The grid of a timed layer's counts: slot k is the time `origin + k * step_ms`.
        public struct Slots: Codable, Sendable, Equatable {
            /// The time of slot 0 (ISO 8601, UTC, whole seconds).
            public var origin: String
            /// Milliseconds from one slot to the next: every frame time falls on a slot.
            public var stepMs: Int
            /// Each frame's slot, in the manifest's frame order.
            public var frames: [Int]
        }

        /// One published zoom level.
        public struct Level: Codable, Sendable, Equatable {
            public var zoom: Int
            public var url: String
            /// Clusters (or points) in the level.
            public var items: Int
            /// Bytes of the level's files (its tiles and their index, when tiled).
            public var bytes: Int
            /// Set when the level is published as tiles: how many, and `url` names their index
            /// (`{"tiles": {"z/x/y": url}}`) rather than the items.
            public var tiles: Int?
        }
    }
}

extension AnimationManifest.Frame {
    private enum CodingKeys: String, CodingKey {
        case index, url, time, durationMs, bytes, sha256, missingTiles, inputHash, sourceHash, fallbackHash, tiles, layers, blank, levels, kind, run, coarsest
    }

    /// Reads a frame; a timeline entry (with `layers`) may lack the file's keys.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        index = try c.decode(Int.self, forKey: .index)
        time = try c.decodeIfPresent(TimeInstant.self, forKey: .time)
        durationMs = try c.decode(Int.self, forKey: .durationMs)
        layers = try c.decodeIfPresent([Int?].self, forKey: .layers)
        if layers == nil {
            url = try c.decode(String.self, forKey: .url)
            bytes = try c.decode(Int.self, forKey: .bytes)
            sha256 = try c.decode(String.self, forKey: .sha256)
            inputHash = try c.decode(String.self, forKey: .inputHash)
        } else {
            url = try c.decodeIfPresent(String.self, forKey: .url) ?? ""
            bytes = try c.decodeIfPresent(Int.self, forKey: .bytes) ?? 0
            sha256 = try c.decodeIfPresent(String.self, forKey: .sha256) ?? ""
            inputHash = try c.decodeIfPresent(String.self, forKey: .inputHash) ?? ""
        }
        missingTiles = try c.decodeIfPresent([AnimationManifest.MissingTile].self, forKey: .missingTiles)
        sourceHash = try c.decodeIfPresent(String.self, forKey: .sourceHash)
        fallbackHash = try c.decodeIfPresent(String.self, forKey: .fallbackHash)
        tiles = try c.decodeIfPresent(String.self, forKey: .tiles)
        blank = try c.decodeIfPresent(Bool.self, forKey: .blank)
        levels = try c.decodeIfPresent([Level].self, forKey: .levels)
        kind = try c.decodeIfPresent(String.self, forKey: .kind)
        run = try c.decodeIfPresent(String.self, forKey: .run)
        coarsest = try c.decodeIfPresent(Coarsest.self, forKey: .coarsest)
    }

    /// Writes a frame as the synthesized coding would; a timeline entry without the file's keys.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encodeIfPresent(time, forKey: .time)
        try c.encode(durationMs, forKey: .durationMs)
        if let layers {
            try c.encode(layers, forKey: .layers)
        } else {
            try c.encode(url, forKey: .url)
            try c.encode(bytes, forKey: .bytes)
            try c.encode(sha256, forKey: .sha256)
            try c.encode(inputHash, forKey: .inputHash)
        }
        try c.encodeIfPresent(missingTiles, forKey: .missingTiles)
        try c.encodeIfPresent(sourceHash, forKey: .sourceHash)
        try c.encodeIfPresent(fallbackHash, forKey: .fallbackHash)
        try c.encodeIfPresent(tiles, forKey: .tiles)
        try c.encodeIfPresent(blank, forKey: .blank)
        try c.encodeIfPresent(levels, forKey: .levels)
        try c.encodeIfPresent(kind, forKey: .kind)
        try c.encodeIfPresent(run, forKey: .run)
        try c.encodeIfPresent(coarsest, forKey: .coarsest)
    }
}

extension AnimationManifest.Fallback {
    /// Reads a fallback, also one a matsite that named tiles by frame position wrote (`url`
    /// with `{frame}`, no `templates`): its site's manifest still decodes, so the first build
    /// after an upgrade keeps that site's frames instead of stitching them all again.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        templates = try values.decodeIfPresent([String].self, forKey: .templates) ?? []
        minZoom = try values.decode(Int.self, forKey: .minZoom)
        maxNativeZoom = try values.decode(Int.self, forKey: .maxNativeZoom)
        subdomains = try values.decodeIfPresent([String].self, forKey: .subdomains) ?? []
        published = try values.decodeIfPresent(Bool.self, forKey: .published)
    }
}

extension JSONEncoder {
    /// The manifests' encoder: snake_case keys, sorted, readable, stable across builds.
    static var manifest: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension JSONDecoder {
    /// The manifests' decoder.
    static var manifest: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
