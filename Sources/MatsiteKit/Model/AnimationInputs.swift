import Foundation

/// What an animation's products need besides its tiles, read or fetched before anything is
/// staged: a bad file or an unreachable document fails the build before a frame is
/// stitched, and the previous site stays as it was. `Builder` fills it (the legend image
/// before any request: a file the config names is config).
struct AnimationInputs: Sendable {
    /// The legend's image file (`legend.image`).
    var legendImage: LegendImage? = nil
    /// Each layer's legend image, by layer id.
    var layerLegendImages: [String: LegendImage] = [:]
    /// The `export_background` tile source's tiles under the box.
    var exportBackground: ExportBackgroundTiles? = nil
    /// Where an export keeps its encoded frames between builds (the cache folder); nil
    /// without a cache (`cache.enabled: false`, `--no-cache`).
    var exportCache: URL? = nil
    /// The point layers, read and checked, or the previous site's when nothing changed.
    var points: [LoadedPointLayer] = []
}
