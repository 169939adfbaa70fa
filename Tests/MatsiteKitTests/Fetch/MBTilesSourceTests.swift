import Foundation
import GRDB
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// `source.mbtiles`: one real SQLite archive per frame, rows stored in TMS order as the
/// MBTiles spec has them; the frame must come out with XYZ rows in the right places.
@Suite("MBTiles sources")
struct MBTilesSourceTests {
    /// Tile (x, y) of frame f is one colour: red = 50 f, green = 40 x, blue = 40 y (XYZ y).
    static func tile(frame: Int, x: Int, y: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: 256 * 256 * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = UInt8(50 * frame)
            pixels[i + 1] = UInt8(40 * x)
            pixels[i + 2] = UInt8(40 * y)
        }
        return try PNGWriter.encode(width: 256, height: 256, format: .rgba, pixels: pixels)
    }

    static func archive(at path: String, frame: Int, skipping skipped: (Int, Int)? = nil) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT)")
            try db.execute(sql: "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
            for x in 1...2 {
                for y in 1...2 where !(skipped.map { $0 == (x, y) } ?? false) {
                    let bytes = try Self.tile(frame: frame, x: x, y: y)
                    try db.execute(
                        sql: "INSERT INTO tiles VALUES (2, ?, ?, ?)",
                        arguments: [x, (1 << 2) - 1 - y, Data(bytes)])
                }
            }
        }
    }

    func build(in folder: URL, missing: String = "fail") async throws -> URL {
        let yaml = """
            output: site
            cache: cache
            animations:
              - id: archive
                bbox: [-80.0, -30.0, 80.0, 30.0]
                zoom: 2
                missing: \(missing)
                fallback: { levels: 0 }
                source: { mbtiles: "frames/{frame}.mbtiles" }
                frames: { count: 2 }
            """
        var config = try ConfigLoader.parse(Data(yaml.utf8), file: "mbtiles.yml")
        config.directory = folder
        _ = try await Builder(config: config).run()
        return folder.appendingPathComponent("site/archive")
    }

    @Test("frames are stitched from MBTiles rows, TMS rows landing where XYZ rows belong")
    func stitchesArchives() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-mbtiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("frames"), withIntermediateDirectories: true)
        for frame in 0..<2 { try Self.archive(at: folder.appendingPathComponent("frames/\(frame).mbtiles").path, frame: frame) }

        let site = try await build(in: folder)
        let manifest = try JSONDecoder.manifest.decode(
            AnimationManifest.self,
            from: Data(contentsOf: site.appendingPathComponent("manifest.json")))
        #expect(manifest.frames.count == 2)
        for frame in manifest.frames {
            let image = try PNGDecoder().decode([UInt8](Data(contentsOf: site.appendingPathComponent(frame.url))), keepIndices: false)
            func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(image.pixels[(y * image.width + x) * 4..<(y * image.width + x) * 4 + 3]) }
            let red = UInt8(50 * frame.index)
            // Top-left lies in tile (1, 1), bottom-right in tile (2, 2).
            #expect(pixel(0, 0) == [red, 40, 40])
            #expect(pixel(image.width - 1, image.height - 1) == [red, 80, 80])
            #expect(pixel(image.width - 1, 0) == [red, 80, 40])
        }
    }

    @Test("a row missing from an archive fails the build naming the archive, or is drawn transparent")
    func missingRow() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-mbtiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("frames"), withIntermediateDirectories: true)
        try Self.archive(at: folder.appendingPathComponent("frames/0.mbtiles").path, frame: 0, skipping: (2, 1))
        try Self.archive(at: folder.appendingPathComponent("frames/1.mbtiles").path, frame: 1)

        await #expect {
            _ = try await build(in: folder)
        } throws: { error in
            guard case BuildError.tilesFailed(let tiles) = error else { return false }
            return tiles.count == 1 && tiles[0].locator.contains("0.mbtiles") && tiles[0].locator.contains("tile_column 2")
                && tiles[0].reason.contains("no row")
        }
        let site = try await build(in: folder, missing: "transparent")
        let manifest = try JSONDecoder.manifest.decode(
            AnimationManifest.self,
            from: Data(contentsOf: site.appendingPathComponent("manifest.json")))
        #expect(manifest.frames[0].missingTiles?.map { [$0.z, $0.x, $0.y] } == [[2, 2, 1]])
        #expect(manifest.frames[1].missingTiles == nil)
    }

    /// GDAL's archive (JPEG tiles at zoom 3, x 2-3, XYZ row 3; metadata format jpg, zoom 3-3,
    /// bounds -90, 0, 0, 41), copied into a fresh project folder.
    static func gdalArchive() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-mbtiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: CLI.packageRoot.appendingPathComponent("Tests/MatsiteImagingTests/Fixtures/gdal-mbtiles-archive/sat.mbtiles"),
            to: folder.appendingPathComponent("sat.mbtiles"))
        return folder
    }

    func buildArchive(in folder: URL, bbox: String = "[-80.0, 10.0, -10.0, 35.0]", zoom: Int) async throws {
        let yaml = """
            output: site
            cache: cache
            animations:
              - id: sat
                bbox: \(bbox)
                zoom: \(zoom)
                fallback: { levels: 0 }
                source: { mbtiles: sat.mbtiles }
                frames: { count: 1 }
            """
        var config = try ConfigLoader.parse(Data(yaml.utf8), file: "mbtiles.yml")
        config.directory = folder
        _ = try await Builder(config: config).run()
    }

    @Test("a GDAL archive's metadata is used: its maxzoom stands in for max_zoom, so a deeper zoom is scaled up, not 27 missing rows")
    func metadataMaxZoom() async throws {
        let folder = try Self.gdalArchive()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await buildArchive(in: folder, zoom: 5)
        let manifest = try JSONDecoder.manifest.decode(
            AnimationManifest.self, from: Data(contentsOf: folder.appendingPathComponent("site/sat/manifest.json")))
        #expect(manifest.zoom == 5 && manifest.frames.count == 1 && manifest.frames[0].missingTiles == nil)
        // Photographic JPEG rows: the frame is JPEG (format: auto).
        #expect(manifest.frames[0].url.hasSuffix(".jpg"))
    }

    @Test("a zoom below the archive's minzoom, or a box outside its bounds, is a config error at source.mbtiles")
    func metadataRefusals() async throws {
        let folder = try Self.gdalArchive()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (bbox, zoom, words) in [
            ("[-80.0, 10.0, -10.0, 35.0]", 2, "raise zoom to 3"), ("[10.0, 10.0, 50.0, 30.0]", 3, "wholly outside"),
        ] {
            await #expect {
                try await buildArchive(in: folder, bbox: bbox, zoom: zoom)
            } throws: { error in
                guard let error = error as? ConfigError else { return false }
                return error.keyPath == "animations[0].source.mbtiles" && error.message.contains("sat.mbtiles")
                    && error.message.contains(words)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
    }

    @Test("a vector archive (format pbf) is refused before any tile is read")
    func vectorArchive() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("matsite-mbtiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.vectorArchive(at: folder.appendingPathComponent("sat.mbtiles").path)
        await #expect {
            try await buildArchive(in: folder, zoom: 3)
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.keyPath == "animations[0].source.mbtiles" && error.message.contains("vector tiles")
        }
    }

    /// An archive whose metadata says vector tiles (as tippecanoe writes them), no rows needed.
    static func vectorArchive(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT)")
            try db.execute(sql: "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
            try db.execute(sql: "INSERT INTO metadata VALUES ('format', 'pbf'), ('minzoom', '0'), ('maxzoom', '14')")
        }
    }
}
