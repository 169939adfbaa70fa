import Foundation
import MatsiteCapabilities
import MatsiteImaging

/// One product of each layer of an animation's stack (a one-source animation's only layer
/// is the animation itself), made after the layer's frames, in the layer's folder: it says
/// its stage (stamped on what it throws) and does its work in one method over the layer's
/// context. `Builder` runs `AnimationSteps.layer` for every layer, in one loop.
protocol LayerStep: Sendable {
    /// The stage its errors are stamped with.
    var stage: BuildStage { get }
    /// Makes the product into the staged site, reading `layer` and adding to it.
    func run(_ layer: inout LayerContext) async throws
}

/// One product of an animation as a whole, made once its layers are built, over the
/// animation's context: its layers and its timeline.
protocol AnimationStep: Sendable {
    /// The stage its errors are stamped with.
    var stage: BuildStage { get }
    /// Makes the product into the staged site, reading `animation` and adding to it.
    func run(_ animation: inout AnimationContext) async throws
}

/// A step's product: a value of a type of its own, kept in `Products` by that type.
protocol Product: Sendable {}

/// What the steps made, one value per product type: a step adds its own, a later step or
/// the manifest mapping asks for it by type. The contexts keep one of these rather than a
/// field per product.
struct Products: Sendable {
    private var made: [ObjectIdentifier: any Product] = [:]

    /// The product of type `type`, once a step made it.
    subscript<P: Product>(_ type: P.Type) -> P? { made[ObjectIdentifier(type)] as? P }

    /// Adds (or replaces) the product of `product`'s type.
    mutating func add<P: Product>(_ product: P) { made[ObjectIdentifier(P.self)] = product }
}

/// What one layer's steps share: its plan, where they write, its frames as published and
/// what the steps before made.
struct LayerContext: Sendable {
    /// The layer's plan: its config (a layer's id is `<animation>/<layer>`, its folder),
    /// geometry, frames' tiles and times, and where its frames fall on the timeline.
    var layer: LayerPlan
    /// The site's config (base map, embed settings).
    let site: SiteConfig
    /// The layer's legend image (`legend.image`), read before any request.
    let legendImage: LegendImage?
    /// Loads tiles (fallback tiles too).
    let loader: any TileLoader
    /// Writes into (and links from the previous site into) the staged site.
    let writer: SiteWriter
    let reporter: any BuildReporter

    /// The frames, in order (files relative to the layer's folder).
    var frames: [PublishedFrame]
    /// What this layer's steps made.
    var products = Products()

    /// The layer's plan as a one-source animation's.
    var plan: AnimationPlan { layer.plan }
    /// The layer's settings (a one-source animation's own).
    var animation: AnimationConfig { layer.plan.config }
}

/// What one animation's steps share: its plan and inputs, where they write, its layers as
/// built, its timeline, and what the steps before made.
struct AnimationContext: Sendable {
    /// The animation's plan: its config, geometry, and its stack's plans.
    let plan: AnimationPlan
    /// The site's config (base map, embed settings).
    let site: SiteConfig
    /// What the products need besides tiles, read or fetched before anything was staged.
    let inputs: AnimationInputs
    /// Loads tiles.
    let loader: any TileLoader
    /// Writes into (and links from the previous site into) the staged site.
    let writer: SiteWriter
    let reporter: any BuildReporter

    /// The stack as built, bottom to top: a one-source animation's own frames, or its layers.
    var layers: [LayerContext]
    /// What the animation shows, entry by entry.
    var timeline: Timeline
    /// The last frame's pixels for the poster, or the previous build's poster, when the
    /// frames' stitching sampled them (a one-source animation's); nil: composed of the stack.
    var poster: Poster?
    /// What the animation's steps made.
    var products = Products()
    /// The build's clock (`--at` or the wall clock), for a live loop's manifest `now`.
    var now: TimeInstant? = nil

    /// The animation's settings.
    var animation: AnimationConfig { plan.config }
    /// True when the stack is the layers of `layers:`, false for a one-source animation.
    var isLayered: Bool { !plan.layers.isEmpty }
}
