/// The legend's image (`legend.image`, read before any request), beside the manifest under
/// its content-hashed name.
struct LegendImageStep: LayerStep {
    var stage: BuildStage { .publish }

    func run(_ layer: inout LayerContext) async throws {
        guard let image = layer.legendImage else { return }
        try layer.writer.put(image.bytes, at: "\(layer.animation.id)/\(image.name)")
        layer.products.add(PublishedLegendImage(name: image.name))
    }
}

/// The legend image as published: its name (`legend-<hash>.png`), in the layer's folder.
struct PublishedLegendImage: Product, Equatable {
    var name: String
}
