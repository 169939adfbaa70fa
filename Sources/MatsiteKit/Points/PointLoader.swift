import Foundation

/// Reads every animation's point layers before anything is fetched for the frames, so bad
/// point data fails the build early (and nothing is published).
struct PointLoader {
    let config: SiteConfig
    let fetcher: HTTPFetcher?

    /// Each animation's point sets (by animation id), in the order of its `points:`; of
    /// `animations` (a shard's), or of all.
    func loadAll(_ animations: [AnimationConfig]? = nil) async throws -> [String: [PointSet]] {
        var sets: [String: [PointSet]] = [:]
        for animation in animations ?? config.animations where !animation.points.isEmpty {
            var list: [PointSet] = []
            for layer in animation.points {
                list.append(try PointReader(layer: layer).read(try await bytes(of: layer)))
            }
            sets[animation.id] = list
        }
        return sets
    }

    /// The layer's document: a file, or a URL through the tile fetcher and its cache.
    func bytes(of layer: PointLayerConfig) async throws -> [UInt8] {
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
                response = try await fetcher.get(url, accept: accept, maxBytes: PointReader.maxBytes)
            } catch {
                // `get` throws only FetchFailure (typed throws).
                throw fail("cannot be fetched: \(error.reason)")
            }
            guard response.status == 200 else { throw fail("HTTP \(response.status) (expected 200 and the points)") }
            return response.body
        }
    }
}
