/// The products of every animation, one-source or layered, in the order they are made.
enum AnimationSteps {
    /// Each layer's: a new one is a type conforming to `LayerStep` and one line here.
    static let layer: [any LayerStep] = [
        BlankFramesStep(), FallbackTilesStep(), PyramidLevelsStep(), BackgroundSheetsStep(), ReducedLevelsStep(), LegendImageStep(),
    ]

    /// The animation's, over its layers: a new one is a type conforming to `AnimationStep`
    /// and one line here, before `ManifestStep`, which maps what the others made to the
    /// manifest.
    static let animation: [any AnimationStep] = [PosterStep(), ExportStep(), PointLayersStep(), ManifestStep()]
}
