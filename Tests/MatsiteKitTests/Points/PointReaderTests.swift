import Foundation
import Testing

@testable import MatsiteKit

/// Point documents: what is read, and every kind of bad data named by file, feature or
/// row, and key.
@Suite("PointReader")
struct PointReaderTests {
    func layer(_ source: PointLayerConfig.Source, _ change: (inout PointLayerConfig) -> Void = { _ in }) -> PointLayerConfig {
        var layer = PointLayerConfig(id: "reports", source: source)
        layer.keyPath = "animations[0].points[0]"
        change(&layer)
        return layer
    }

    func read(_ text: String, _ layer: PointLayerConfig) async throws -> PointSet {
        try await PointReader(layer: layer).read(Array(text.utf8))
    }

    func failure(_ text: String, _ layer: PointLayerConfig) async throws -> PointError {
        let error = await #expect(throws: PointError.self) { try await read(text, layer) }
        return try #require(error)
    }

    static func feature(_ lon: String, _ lat: String, _ properties: String = "{}", type: String = "Point") -> String {
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"\(type)\",\"coordinates\":[\(lon),\(lat)]},\"properties\":\(properties)}"
    }

    static func collection(_ features: [String]) -> String {
        "{\"type\":\"FeatureCollection\",\"features\":[\(features.joined(separator: ","))]}"
    }

    @Test("GeoJSON points are read with their time, label and popup properties")
    func geojson() async throws {
        let l = layer(.geojson("data/r.geojson")) {
            $0.time = "time"
            $0.label = "type"
            $0.popup = ["type", "magnitude", "absent"]
        }
        let set = try await read(
            Self.collection([
                Self.feature("-97.5", "35.25", #"{"time":"2026-11-21T10:00:00Z","type":"hail","magnitude":1.75}"#),
                Self.feature("-96", "36", #"{"time":1795255200,"type":"<b>wind</b>","magnitude":60}"#),
            ]), l)
        #expect(set.lat == [35.25, 36])
        #expect(set.lon == [-97.5, -96])
        #expect(set.time?.map(\.millisecondsSinceEpoch) == [1_795_255_200_000, 1_795_255_200_000])
        #expect(set.label == ["hail", "<b>wind</b>"])
        #expect(Array(set.popupValues(0)) == ["hail", "1.75", nil])
        #expect(Array(set.popupValues(1)) == ["<b>wind</b>", "60", nil])
    }

    @Test("bad GeoJSON is an error naming the document, the feature and the key")
    func badGeoJSON() async throws {
        let l = layer(.geojson("data/r.geojson")) { $0.time = "time" }
        var e = try await failure("hello", l)
        #expect(e.description.contains("data/r.geojson") && e.message.contains("not JSON"))
        e = try await failure(#"{"type":"Feature"}"#, l)
        #expect(e.message.contains("FeatureCollection"))
        e = try await failure(
            Self.collection([Self.feature("1", "2", #"{"time":"2026-11-21T10:00:00Z"}"#), Self.feature("1", "2", "{}", type: "LineString")]), l)
        #expect(e.place == "features[1].geometry.type" && e.message.contains("not a Point"))
        e = try await failure(Self.collection([Self.feature("200", "2", #"{"time":"2026-11-21T10:00:00Z"}"#)]), l)
        #expect(e.place == "features[0].geometry.coordinates" && e.message.contains("out of range"))
        e = try await failure(Self.collection([Self.feature("1", "95", #"{"time":"2026-11-21T10:00:00Z"}"#)]), l)
        #expect(e.message.contains("out of range"))
        e = try await failure(Self.collection([Self.feature("1", "2", #"{"time":"yesterday"}"#)]), l)
        #expect(e.place == "features[0].properties.time" && e.message.contains("not a time"))
        e = try await failure(Self.collection([Self.feature("1", "2", #"{"time":"2026-02-30T10:00:00Z"}"#)]), l)
        #expect(e.place == "features[0].properties.time")
        e = try await failure(Self.collection([Self.feature("1", "2")]), l)
        #expect(e.place == "features[0].properties.time" && e.message.contains("missing"))
        #expect(e.description == "animations[0].points[0]: data/r.geojson: features[0].properties.time: missing: the layer's time: names this property")
    }

    @Test("more points than max_points is an error naming the limit")
    func limit() async throws {
        let l = layer(.geojson("p.json")) { $0.maxPoints = 2 }
        let e = try await failure(Self.collection([Self.feature("1", "2"), Self.feature("1", "2"), Self.feature("1", "2")]), l)
        #expect(e.place == "features[2].geometry.coordinates" && e.message.contains("max_points"))
    }

    @Test("skip_invalid leaves bad features out and counts them")
    func skipInvalid() async throws {
        let l = layer(.geojson("p.json")) { $0.skipInvalid = true }
        let set = try await read(
            Self.collection([Self.feature("1", "2"), Self.feature("1", "2", type: "Polygon"), "42", Self.feature("1", "99"), Self.feature("3", "4")]), l)
        #expect(set.count == 2 && set.skipped == 3)
        #expect(set.lon == [1, 3])
    }

    @Test("CSV rows are read by the named columns, quotes and all")
    func csv() async throws {
        let l = layer(.csv("r.csv")) {
            $0.latColumn = "latitude"
            $0.time = "when"
            $0.popup = ["remarks"]
            $0.label = "type"
        }
        let text =
            "\u{FEFF}when,latitude,lon,type,remarks\r\n2026-11-21T10:00:00Z,35.5,-97,hail,\"big, \"\"very\"\" big\"\r\n1795255260,36,-96,wind,\"two\nlines\"\n"
        let set = try await read(text, l)
        #expect(set.lat == [35.5, 36] && set.lon == [-97, -96])
        #expect(set.time?.map(\.millisecondsSinceEpoch) == [1_795_255_200_000, 1_795_255_260_000])
        #expect(Array(set.popupValues(0)) == ["big, \"very\" big"])
        #expect(Array(set.popupValues(1)) == ["two\nlines"])
    }

    @Test("bad CSV is an error naming the row and the column")
    func badCSV() async throws {
        let l = layer(.csv("r.csv")) { $0.time = "time" }
        var e = try await failure("latitude,lon,time\n1,2,2026-11-21T10:00:00Z\n", l)
        #expect(e.place == "row 1 (header)" && e.message.contains("no column \"lat\""))
        e = try await failure("lat,lon,time\n1,2,2026-11-21T10:00:00Z\n3,4\n", l)
        #expect(e.place == "row 3" && e.message.contains("2 columns"))
        e = try await failure("lat,lon,time\n1,east,2026-11-21T10:00:00Z\n", l)
        #expect(e.place == "row 2, column lon")
        e = try await failure("lat,lon,time\n1,2,soon\n", l)
        #expect(e.place == "row 2, column time")
        e = try await failure("lat,lon,time\n1,2,\"open\n", l)
        #expect(e.message.contains("not closed"))
        #expect(e.description.hasPrefix("animations[0].points[0]: r.csv: row 2"))
        let skipping = layer(.csv("r.csv")) { $0.skipInvalid = true }
        let set = try await read("lat,lon\n1,2\n3\n100,1\n5,6\n", skipping)
        #expect(set.count == 2 && set.skipped == 2)
    }

    @Test("times: ISO 8601 with offsets and fractions, and Unix seconds")
    func times() {
        #expect(PointTime.parse("2026-11-21T10:00:00Z")?.millisecondsSinceEpoch == 1_795_255_200_000)
        #expect(PointTime.parse("2026-11-21T11:00:00+01:00")?.millisecondsSinceEpoch == 1_795_255_200_000)
        #expect(PointTime.parse("2026-11-21T10:00:00.250Z")?.millisecondsSinceEpoch == 1_795_255_200_250)
        #expect(PointTime.parse("1795255200")?.millisecondsSinceEpoch == 1_795_255_200_000)
        #expect(PointTime.parse("2024-02-29T00:00:00Z")?.millisecondsSinceEpoch == 1_709_164_800_000)
        #expect(PointTime.parse("2023-02-29T00:00:00Z") == nil)
        #expect(PointTime.parse("noon") == nil)
    }

    /// A CSV of `rows` points over 1 MiB (so it is read in pieces), with quoted labels that
    /// hold commas, quotes and line feeds, CRLF line ends, and `bad` rows written by the
    /// caller at the given 0-based positions.
    static func largeCSV(rows: Int, bad: [Int: String] = [:]) -> String {
        var out = "lat,lon,name\r\n"
        for i in 0..<rows {
            if let row = bad[i] {
                out += row + "\r\n"
                continue
            }
            let lat = Double(i % 170) - 84.5 + Double(i % 7) / 10, lon = Double(i % 359) - 179 + Double(i % 3) / 100
            let name = i % 5 == 0 ? "\"line \(i)\nsecond, \"\"quoted\"\"\"" : "report \(i)"
            out += "\(lat),\(lon),\(name)\r\n"
        }
        return out
    }

    @Test("a large CSV read in pieces side by side gives the points of one reading, in order")
    func csvPieces() async throws {
        let text = Self.largeCSV(rows: 40_000)
        let bytes = Array(text.utf8)
        #expect(bytes.count > 1 << 20)
        // Pieces begin where rows begin, with the lines a reading from the start gives them.
        var whole = CSVRows(bytes)
        var rows: [CSVRows.Row] = []
        while let row = try whole.next(fail: { PointError(layer: "", document: "", place: $0, message: $1) }) { rows.append(row) }
        var header = CSVRows(bytes)
        _ = try header.next(fail: { PointError(layer: "", document: "", place: $0, message: $1) })
        for parts in [2, 3, 8] {
            let pieces = CSVRows.pieces(bytes, from: header.position, line: header.line, parts: parts)
            #expect(pieces.count == parts)
            var again: [CSVRows.Row] = []
            for piece in pieces {
                var part = CSVRows(bytes, piece: piece.range, line: piece.line)
                while let row = try part.next(fail: { PointError(layer: "", document: "", place: $0, message: $1) }) { again.append(row) }
            }
            #expect(again.map(\.fields) == rows.dropFirst().map(\.fields))
            #expect(again.map(\.line) == rows.dropFirst().map(\.line))
        }
        // A carriage return ending a row alone counts as a line: such a file is one piece.
        let lone = Array("lat,lon\r1,2\r3,4\r".utf8) + Array(repeating: 0x20, count: 100)
        #expect(CSVRows.pieces(lone, from: 8, line: 2, parts: 2).count == 1)
        let points = try await read(text, layer(.csv("r.csv")) { $0.label = "name" })
        #expect(points.count == 40_000)
        #expect(points.label?[5] == "line 5\nsecond, \"quoted\"")
        #expect(points.label?[39_999] == "report 39999")
        #expect(points.lat[123] == Double(123 % 170) - 84.5 + Double(123 % 7) / 10)
    }

    @Test("a large CSV names its bad row, skips it, or stops at the limit as one reading does")
    func csvPiecesFail() async throws {
        // Row 30,001 of the data is row 30,002 of the file, plus a line for each of the 6,000
        // quoted labels before it that span two lines.
        let bad = [30_000: "91.5,10,x"]
        let text = Self.largeCSV(rows: 40_000, bad: bad)
        let error = try await failure(text, layer(.csv("r.csv")) { $0.label = "name" })
        #expect(error.place == "row 36002, columns lat/lon", "\(error)")
        let skipped = try await read(text, layer(.csv("r.csv")) { $0.skipInvalid = true })
        #expect(skipped.count == 39_999 && skipped.skipped == 1)
        let limited = try await failure(Self.largeCSV(rows: 40_000), layer(.csv("r.csv")) { $0.maxPoints = 35_000 })
        #expect(limited.message.contains("more than 35000 points"), "\(limited)")
        #expect(limited.place == "row \(35_001 + 1 + 7_000), columns lat/lon", "\(limited)")
    }
}
