import Foundation
import GRDB

/// An MBTiles archive's `metadata` table, as far as planning needs it: what its tiles are
/// (`format`), which zoom levels it holds and where (`minzoom`, `maxzoom`, `bounds`). Read
/// before any tile, so that a vector archive or a zoom the archive lacks is one config-time
/// message instead of a failed tile per cell.
struct MBTilesMetadata: Sendable, Equatable {
    /// `format` (png, jpg, webp; pbf for vector tiles), lowercased.
    var format: String?
    var minZoom: Int?
    var maxZoom: Int?
    /// `bounds`: west, south, east, north in degrees.
    var bounds: BoundingBox?

    /// Raster formats matsite stitches.
    static let rasterFormats: Set<String> = ["png", "jpg", "jpeg", "webp"]

    /// Reads `path`'s metadata; nil when the file is not there (the loader reports that per
    /// tile, as for any missing source) or has no metadata table. A file that is not an
    /// SQLite database throws.
    static func read(_ path: String) throws -> MBTilesMetadata? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let rows: [String: String] = try queue.read { db in
            guard try db.tableExists("metadata") else { return [:] }
            var out: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM metadata") {
                if let name = row["name"] as String?, let value = row["value"] as String? { out[name.lowercased()] = value }
            }
            return out
        }
        guard !rows.isEmpty else { return nil }
        var metadata = MBTilesMetadata()
        metadata.format = rows["format"]?.trimmingCharacters(in: .whitespaces).lowercased()
        metadata.minZoom = rows["minzoom"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        metadata.maxZoom = rows["maxzoom"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let text = rows["bounds"] {
            let numbers = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            if numbers.count == 4 { metadata.bounds = BoundingBox(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3]) }
        }
        return metadata
    }

    /// What is wrong with using this archive for `animation` at source zoom `sourceZoom`, in
    /// words, or nil.
    func problem(sourceZoom: Int, box: BoundingBox) -> String? {
        if let format, !Self.rasterFormats.contains(format) {
            return format == "pbf"
                ? "holds vector tiles (format pbf); matsite stitches raster tiles (png, jpg, webp)"
                : "holds \(format) tiles; matsite stitches png, jpg and webp tiles"
        }
        if let minZoom, sourceZoom < minZoom {
            return "has zoom levels \(minZoom)-\(maxZoom.map(String.init) ?? "?"), not \(sourceZoom): raise zoom to \(minZoom) or more"
        }
        // (A box across the antimeridian is left to the tiles: its halves need two tests.)
        if let bounds, box.west <= box.east, box.east < bounds.west || box.west > bounds.east || box.north < bounds.south || box.south > bounds.north {
            return "covers \(bounds.west), \(bounds.south), \(bounds.east), \(bounds.north) (bounds), which the bbox lies wholly outside"
        }
        return nil
    }
}
