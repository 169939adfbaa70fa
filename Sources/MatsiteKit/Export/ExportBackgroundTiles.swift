import Foundation
import MatsiteImaging

/// The tiles of an `export_background` tile source under an animation's box, at the frames'
/// zoom: fetched through the tile fetcher (its retries, politeness and HTTP cache) before
/// the loops are encoded, decoded once, and drawn under every exported frame.
struct ExportBackgroundTiles: Sendable {
    /// The XYZ template, as configured.
    let template: String
    /// The frames' zoom; the tiles are of it.
    let zoom: Int
    /// Decoded tiles by `y * 2^zoom + x`; a tile the source does not have (404/204) is absent
    /// and its area keeps the default background colour.
    let tiles: [Int: DecodedImage]
    /// A hash of every tile's bytes: a changed base map makes new exports.
    let digest: String

    /// What went wrong fetching a tile, with its URL.
    struct TileError: Error, CustomStringConvertible {
        let url: String
        let reason: String
        var description: String { "export_background tile \(url): \(reason)" }
    }

    /// Fetches the tiles under `layout` (at most `maxTiles`: a background is for a loop, not
    /// a map of the world).
    static func fetch(
        _ template: String, layout: FrameLayout, zoom: Int, fetcher: HTTPFetcher, maxTiles: Int = 4096
    ) async throws -> ExportBackgroundTiles {
        let size = 256
        let side = 1 << zoom
        let (x0, x1) = (layout.originX / size, (layout.originX + layout.width - 1) / size)
        let (y0, y1) = (max(0, layout.originY / size), min(side - 1, (layout.originY + layout.height - 1) / size))
        guard (x1 - x0 + 1) * (y1 - y0 + 1) <= maxTiles else {
            throw TileError(url: template, reason: "the box needs more than \(maxTiles) tiles at zoom \(zoom)")
        }
        let decoder = TileDecoder(maxWidth: size, maxHeight: size)
        var tiles: [Int: DecodedImage] = [:]
        var hash = SHA256()
        hash.update(Array("\(template)\n\(zoom)\n".utf8))
        for y in y0...y1 {
            for gx in x0...x1 {
                let x = (gx % side + side) % side
                let url = template.replacingOccurrences(of: "{z}", with: "\(zoom)").replacingOccurrences(of: "{x}", with: "\(x)")
                    .replacingOccurrences(of: "{y}", with: "\(y)")
                let response: HTTPResponseData
                do {
                    response = try await fetcher.get(url, accept: "image/png,image/jpeg,image/webp,*/*;q=0.1")
                } catch {
                    throw TileError(url: url, reason: error.reason)
                }
                hash.update(Array("\(x)/\(y) \(response.status)\n".utf8))
                if [204, 404].contains(response.status) { continue }
                guard response.status == 200 else { throw TileError(url: url, reason: "HTTP \(response.status)") }
                hash.update(response.body)
                let body = response.body
                do {
                    tiles[y * side + x] = try await CPUPool.shared.run { try decoder.decode(body, keepIndices: false) }
                } catch {
                    throw TileError(url: url, reason: "not a tile image (\(error))")
                }
            }
        }
        return ExportBackgroundTiles(template: template, zoom: zoom, tiles: tiles, digest: hash.hexDigest())
    }
}
