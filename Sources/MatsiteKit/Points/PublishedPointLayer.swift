/// One point layer as published: its levels' files, the properties file, the grid its
/// counts follow, and the settings it was clustered with (a layer kept from the previous
/// site keeps those it was published with, which need not be the config's now). The
/// manifest mapping (`Manifest/AnimationManifest+Build.swift`) makes its entry of it.
struct PublishedPointLayer: Sendable, Equatable {
    var id: String
    var title: String
    /// Points published.
    var count: Int
    /// Invalid features or rows left out (`skip_invalid: true`), 0 for none.
    var skipped: Int
    var radiusPx: Int
    var minZoom: Int
    var maxZoom: Int
    /// True when single points carry a label (in the properties file).
    var labeled: Bool
    /// Property names shown in a point's popup, in order.
    var popup: [String]
    /// `min_zoom` ... `max_zoom + 1`, shallowest first.
    var levels: [Level]
    /// The labels and popup texts file, relative to the animation's folder, when there are any.
    var properties: String?
    /// The hash of what the layer is made from (`PointLoader.inputs`).
    var inputs: String?
    /// For a timed layer, the grid of times its counts are keyed by; nil for an untimed one.
    var slots: Slots?
    /// True when counts follow the frames: `slots` is set, save in a layer kept from a
    /// site published before counts were keyed by slots.
    var timed: Bool

    /// One zoom level's files.
    struct Level: Sendable, Equatable {
        var zoom: Int
        /// The level's file, or the index of its tiles, relative to the animation's folder.
        var url: String
        /// Clusters (or points) in the level.
        var items: Int
        /// Bytes of the level's files (its tiles and their index, when tiled).
        var bytes: Int
        /// How many tiles, when the level is published as tiles.
        var tiles: Int? = nil
    }

    /// The grid of a timed layer's counts: slot k is the time `origin + k * stepMs`.
    struct Slots: Sendable, Equatable {
        /// The time of slot 0, as the manifest gives it (ISO 8601, UTC, whole seconds).
        var origin: String
        var stepMs: Int
        /// Each frame's slot, in the frames' order.
        var frames: [Int]
    }
}
