import Foundation
import MatsiteCapabilities

/// A layer's points as columns: positions, times and the text the player shows. Columns
/// rather than one struct per point keep a million points in a few tens of megabytes.
struct PointSet: Sendable, Equatable {
    /// Latitude and longitude in degrees.
    var lat: [Double] = []
    var lon: [Double] = []
    /// Each point's time, when the layer has `time:`.
    var time: [TimeInstant]? = nil
    /// The `label:` property's text per point (nil where a point lacks it).
    var label: [String?]? = nil
    /// The `popup:` properties' texts, `popupKeys.count` per point.
    var popup: [String?] = []
    /// The popup's property names.
    var popupKeys: [String] = []
    /// Invalid features or rows skipped (`skip_invalid: true`).
    var skipped = 0

    /// How many points there are.
    var count: Int { lat.count }

    /// Appends the points of `other` (read after these, with the same keys) and its
    /// skipped count.
    mutating func append(_ other: PointSet) {
        lat += other.lat
        lon += other.lon
        time?.append(contentsOf: other.time ?? [])
        label?.append(contentsOf: other.label ?? [])
        popup += other.popup
        skipped += other.skipped
    }

    /// The popup values of point `i`.
    func popupValues(_ i: Int) -> ArraySlice<String?> {
        let width = popupKeys.count
        return popup[(i * width)..<((i + 1) * width)]
    }
}
