import Foundation
import MatsiteCapabilities
import MatsiteClustering

/// A point layer ready to publish: its points, read and checked, or the previous site's
/// layer when nothing it is made from changed (the document is kept: if a file of the old
/// layer cannot be linked, it is read and clustered after all).
enum LoadedPointLayer: Sendable {
    case parsed(PointSet, inputs: String)
    case unchanged(PublishedPointLayer, document: [UInt8])
    /// The layer could not be read this time (`cause`): the previous site's layer is kept
    /// as published.
    case kept(PublishedPointLayer, cause: any Error)
}

/// Reads an animation's point layers before anything is fetched for its frames, so bad
/// point data fails the build early (and nothing is published).
struct PointLoader {
    let config: SiteConfig
    let fetcher: HTTPFetcher?
    /// With forecast frames, the newest observed frame's time: the demo's storm reports
    /// stop there, since nothing has been reported after now (`AnimationPlan.observedThrough`).
    var observedThrough: TimeInstant? = nil

    /// The animation's point layers, in the order of its `points:`. A layer whose document,
    /// settings and frame times are those the previous site's layer was made from is not
    /// read or clustered again: its files are linked at publish. Reading (a million points
    /// take seconds) runs on the CPU pool (`PointReader` hands it over).
    ///
    /// With `previous`, a layer whose document cannot be had or read keeps the previous
    /// site's version of it (`.kept`), so the rest of the loop moves on; without one, or
    /// when it never was published, its error is thrown.
    func load(_ animation: AnimationConfig, frameTimes: [TimeInstant?], previous: PreviousSite? = nil) async throws -> [LoadedPointLayer] {
        var list: [LoadedPointLayer] = []
        for layer in animation.points {
            do {
                list.append(try await load(layer, of: animation, frameTimes: frameTimes, previous: previous))
            } catch {
                if error is CancellationError { throw error }
                guard let entry = previous?.manifest(animation: animation.id)?.points?.first(where: { $0.id == layer.id }) else { throw error }
                list.append(.kept(PublishedPointLayer(entry), cause: error))
            }
        }
        return list
    }

    private func load(
        _ layer: PointLayerConfig, of animation: AnimationConfig, frameTimes: [TimeInstant?], previous: PreviousSite?
    ) async throws -> LoadedPointLayer {
        let document = try await bytes(of: layer, animation: animation, frameTimes: frameTimes)
        let inputs = Self.inputs(document, layer: layer, frameTimes: frameTimes)
        if let entry = previous?.manifest(animation: animation.id)?.points?.first(where: { $0.id == layer.id && $0.inputs == inputs }) {
            return .unchanged(PublishedPointLayer(entry), document: document)
        }
        return .parsed(try await PointReader(layer: layer).read(document), inputs: inputs)
    }

    /// What a layer's published files are made from: the document, the layer's settings
    /// and, for a timed layer, the grid of times its counts are keyed by (which a window
    /// moved by a step keeps: the frames' slots are in the manifest, not in the files),
    /// with the format's version.
    static func inputs(_ document: [UInt8], layer: PointLayerConfig, frameTimes: [TimeInstant?]) -> String {
        var hash = SHA256()
        var grid = "-"
        if layer.time != nil {
            let times = frameTimes.compactMap { $0 }
            let slots = SlotGrid(frames: times)
            grid = times.count == frameTimes.count ? "\(slots.step)+\(slots.phase)" : "untimed frames"
        }
        hash.update(Array("\(PointClusterer.version)\n\(PointPublisher.format)\n\(layer)\n\(grid)\n".utf8))
        hash.update(document)
        return hash.hexDigest()
    }

    /// The layer's document: a file, a URL through the tile fetcher and its cache, or the
    /// demo's reports over the animation's box and frame times (and the hour before them).
    func bytes(of layer: PointLayerConfig, animation: AnimationConfig, frameTimes: [TimeInstant?]) async throws -> [UInt8] {
        func fail(_ message: String) -> PointError {
            PointError(layer: layer.keyPath, document: layer.source.name, place: "", message: message)
        }
        switch layer.source {
        case .geojson(let path), .csv(let path):
            let file = config.resolve(path)
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            guard size <= PointReader.maxBytes else { throw fail("the file is \(size) bytes, over the \(PointReader.maxBytes >> 20) MiB limit") }
            guard let data = FileManager.default.contents(atPath: file.path) else { throw fail("cannot read \(file.path)") }
            return [UInt8](data)
        case .url(let url, let format):
            guard let fetcher else { throw fail("no HTTP client (this is a bug: point URLs need one)") }
            let accept = format == .csv ? "text/csv,*/*;q=0.1" : "application/geo+json,application/json,*/*;q=0.1"
            let response: HTTPResponseData
            do {
                response = try await fetcher.get(url.text, accept: accept, maxBytes: PointReader.maxBytes)
            } catch {
                // `get` throws only FetchError (typed throws).
                throw fail("cannot be fetched: \(error.reason)")
            }
            guard response.status == 200 else { throw fail("HTTP \(response.status) (expected 200 and the points)") }
            return response.body
        case .demo:
            let times = frameTimes.compactMap { $0 }
            guard let first = times.min(), let last = times.max() else { throw fail("the demo's reports need frames with times") }
            let observedThrough = observedThrough
            return try await CPUPool.shared.run {
                DemoReports.geojson(
                    bbox: animation.bbox, from: first.adding(ISODuration(milliseconds: 3_600_000), times: -1),
                    through: observedThrough.map { min($0, last) } ?? last)
            }
        }
    }
}

extension AnimationPlan {
    /// With forecast frames, the newest observed frame's time (nil without forecasts, or
    /// without an observed frame): what point layers made up to now stop at.
    var observedThrough: TimeInstant? {
        guard frames.contains(where: { $0.kind == .forecast }) else { return nil }
        return frames.filter { $0.kind == .observed }.compactMap(\.time).max()
    }
}
