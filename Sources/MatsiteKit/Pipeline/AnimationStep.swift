import Foundation
import MatsiteImaging

/// One product of an animation, made after its frames: it says its stage (stamped on what
/// it throws) and does its work in one method over the animation's shared context.
/// `Builder` runs `AnimationSteps.products` in order, in one loop.
protocol AnimationStep: Sendable {
    /// The stage its errors are stamped with.
    var stage: BuildStage { get }
    /// Makes the product into the staged site, reading and adding to `animation`.
    func run(_ animation: inout AnimationContext) async throws
}

/// The products of an animation, in the order they are made.
enum AnimationSteps {
    /// A new product is a type conforming to `AnimationStep` and one line here, before
    /// `ManifestStep`, which maps what the others made to the manifest.
    static let products: [any AnimationStep] = [
        BlankFramesStep(),
        PosterStep(),
        FallbackTilesStep(),
        PyramidLevelsStep(),
        LegendImageStep(),
        ExportStep(),
        PointLayersStep(),
        ManifestStep(),
    ]

    /// The products of each layer of a layered animation, in its own folder.
    static let layerProducts: [any AnimationStep] = [BlankFramesStep(), FallbackTilesStep(), PyramidLevelsStep(), LegendImageStep()]

    /// The products of a layered animation as a whole, once its layers are built: the
    /// poster composed of them, the exports, points and the manifest.
    static let layeredProducts: [any AnimationStep] = [PosterStep(), ExportStep(), PointLayersStep(), ManifestStep()]
}

/// What one animation's steps share: its plan and inputs, where they write, and what the
/// steps before made, its frames first of all.
struct AnimationContext: Sendable {
    /// The animation's plan: its config, geometry, frames' tiles and times.
    let plan: AnimationPlan
    /// The site's config (base map, embed settings).
    let site: SiteConfig
    /// What the products need besides tiles, read or fetched before anything was staged.
    let inputs: AnimationInputs
    /// Loads tiles (fallback tiles too).
    let loader: any TileLoader
    /// Writes into (and links from the previous site into) the staged site.
    let writer: SiteWriter
    let reporter: any BuildReporter

    /// The frames, in order.
    var frames: [PublishedFrame]
    /// The last frame's pixels for the poster, or the previous build's poster.
    var poster: Poster?
    /// The player's zoom fallback, once published.
    var fallback: AnimationManifest.Fallback? = nil
    /// The levels every frame is published at, when they are.
    var pyramid: FramePyramid? = nil
    /// The legend image's published name (`legend-<hash>.png`).
    var legendImage: String? = nil
    /// The exported loops' file names, when `export:` asks for them.
    var exports: AnimationManifest.Exports? = nil
    /// The point layers, in config order.
    var pointLayers: [AnimationManifest.PointLayer] = []
    /// A layered animation's layers as built, bottom to top (then `frames` is the timeline).
    var layers: [AnimationManifest.Layer] = []
    /// Their frames as published, per layer (files relative to the layer's folder).
    var layerFrames: [[PublishedFrame]] = []
    /// The manifest, once `ManifestStep` has written it.
    var manifest: AnimationManifest? = nil

    /// The animation's settings.
    var animation: AnimationConfig { plan.config }
}
