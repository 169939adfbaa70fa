import Foundation
import MatsiteCapabilities

/// Reads a point layer's document (GeoJSON or CSV) into a `PointSet`, checking every
/// feature or row: coordinates in range, a readable time, the columns present, the limit.
/// With `skip_invalid` a bad feature or row is counted and left out instead.
struct PointReader: Sendable {
    /// The layer being read.
    let layer: PointLayerConfig
    /// Largest document accepted.
    static let maxBytes = 512 << 20

    /// The points of `bytes`, read on the CPU pool. A CSV file over 1 MiB is read in
    /// pieces side by side, a pool job each (split where rows begin): the pieces' points
    /// are those of one reading; when a piece fails, or together they hold more than the
    /// limit, the file is read again in one piece, which stops (or skips) where and as that
    /// reading does. Errors are `PointError`s.
    func read(_ bytes: [UInt8]) async throws -> PointSet {
        if layer.source.format == .csv, bytes.count >= 1 << 20, bytes.count <= Self.maxBytes {
            let (rows, table) = try csvHeader(bytes)
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let pieces = CSVRows.pieces(bytes, from: rows.position, line: rows.line, parts: min(cores, 8))
            if pieces.count > 1 {
                let sets = await withTaskGroup(of: (Int, PointSet?).self) { group in
                    for (k, piece) in pieces.enumerated() {
                        group.addTask {
                            let set = try? await CPUPool.shared.run {
                                try read(CSVRows(bytes, piece: piece.range, line: piece.line), table, limit: .max)
                            }
                            return (k, set)
                        }
                    }
                    var sets = [PointSet?](repeating: nil, count: pieces.count)
                    for await (k, set) in group { sets[k] = set }
                    return sets.compactMap { $0 }
                }
                if sets.count == pieces.count, sets.reduce(0, { $0 + $1.count }) <= layer.maxPoints {
                    return sets.dropFirst().reduce(into: sets[0]) { $0.append($1) }
                }
            }
        }
        return try await CPUPool.shared.run { try readWhole(bytes) }
    }

    /// The points of `bytes`, in one reading on the calling thread.
    func readWhole(_ bytes: [UInt8]) throws(PointError) -> PointSet {
        guard bytes.count <= Self.maxBytes else {
            throw fail("", "the document is \(bytes.count) bytes, over the \(Self.maxBytes >> 20) MiB limit")
        }
        switch layer.source.format {
        case .geojson: return try geojson(bytes)
        case .csv:
            let (rows, table) = try csvHeader(bytes)
            return try read(rows, table, limit: layer.maxPoints)
        }
    }

    func fail(_ place: String, _ message: String) -> PointError {
        PointError(layer: layer.keyPath, document: layer.source.name, place: place, message: message)
    }
}

// MARK: - GeoJSON

private extension PointReader {
    func geojson(_ bytes: [UInt8]) throws(PointError) -> PointSet {
        if let depth = FrameIndex.nestingOver(64, in: bytes) {
            throw fail("", "nested deeper than 64 levels (at byte \(depth)); not GeoJSON points")
        }
        let root: JSONValue
        do { root = try JSONDecoder().decode(JSONValue.self, from: Data(bytes)) } catch {
            let snippet = String(decoding: bytes.prefix(40), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
            throw fail("", "not JSON, so not GeoJSON (it starts with \"\(snippet)\")")
        }
        guard case .object(let top) = root, case .string(let type)? = top["type"], type == "FeatureCollection",
            case .array(let features)? = top["features"]
        else {
            throw fail("", "not a GeoJSON FeatureCollection (expected {\"type\": \"FeatureCollection\", \"features\": [...]})")
        }
        var set = emptySet()
        for (i, feature) in features.enumerated() {
            let place = "features[\(i)]"
            do throws(PointError) {
                try add(feature, place: place, to: &set)
            } catch {
                guard layer.skipInvalid else { throw error }
                set.skipped += 1
            }
        }
        return set
    }

    func add(_ feature: JSONValue, place: String, to set: inout PointSet) throws(PointError) {
        guard case .object(let object) = feature, case .string("Feature")? = object["type"] else {
            throw fail(place, "not a GeoJSON Feature (expected {\"type\": \"Feature\", ...})")
        }
        guard case .object(let geometry)? = object["geometry"] else { throw fail("\(place).geometry", "missing: a point needs a Point geometry") }
        guard case .string(let kind)? = geometry["type"], kind == "Point" else {
            throw fail(
                "\(place).geometry.type",
                "a \(geometry["type"].flatMap(Self.text) ?? "geometry without type"), not a Point: only Point features can be drawn as points")
        }
        guard case .array(let coordinates)? = geometry["coordinates"], coordinates.count >= 2,
            case .number(let lon) = coordinates[0], case .number(let lat) = coordinates[1]
        else {
            throw fail("\(place).geometry.coordinates", "expected [longitude, latitude] numbers")
        }
        var properties: [String: JSONValue] = [:]
        switch object["properties"] {
        case .object(let p)?: properties = p
        case .null?, nil: break
        default: throw fail("\(place).properties", "expected an object or null")
        }
        try append(
            lat: lat, lon: lon, place: "\(place).geometry.coordinates", to: &set, limit: layer.maxPoints,
            property: { properties[$0].flatMap(Self.text) }, propertyPlace: { "\(place).properties.\($0)" })
    }

    /// A property value as the player shows it; nil for null or a missing one.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .null: nil
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .string(let s): s
        case .array, .object: nil
        }
    }
}

// MARK: - CSV

private extension PointReader {
    /// The rows after the header, and the header's columns.
    func csvHeader(_ bytes: [UInt8]) throws(PointError) -> (CSVRows, CSVTable) {
        var rows = CSVRows(bytes)
        guard let header = try rows.next(fail: fail) else { throw fail("", "empty: a CSV file needs a header row naming its columns") }
        var columns: [String: Int] = [:]
        for (i, name) in header.fields.enumerated() where columns[name] == nil {
            columns[name.trimmingCharacters(in: .whitespaces)] = i
        }
        func column(_ name: String, _ key: String) throws(PointError) -> Int {
            guard let index = columns[name] else {
                throw fail("row 1 (header)", "no column \"\(name)\" (named by \(layer.keyPath).\(key)); columns: \(header.fields.joined(separator: ", "))")
            }
            return index
        }
        let latIndex = try column(layer.latColumn, "lat")
        let lonIndex = try column(layer.lonColumn, "lon")
        return (rows, CSVTable(header: header.fields, columns: columns, lat: latIndex, lon: lonIndex))
    }

    /// A CSV file's header: its fields, each column's index by name, the lat and lon columns.
    struct CSVTable {
        var header: [String]
        var columns: [String: Int]
        var lat: Int
        var lon: Int
    }

    /// The points of the rows left in `rows`, at most `limit` of them (more throw, or are
    /// skipped with `skip_invalid`).
    func read(_ rows: CSVRows, _ table: CSVTable, limit: Int) throws(PointError) -> PointSet {
        var rows = rows
        var set = emptySet()
        while let row = try rows.next(fail: fail) {
            if row.fields.count == 1, row.fields[0].isEmpty { continue }
            let place = "row \(row.line)"
            do throws(PointError) {
                guard row.fields.count == table.header.count else {
                    throw fail(place, "\(row.fields.count) columns, the header has \(table.header.count)")
                }
                let latText = PointTime.trimmed(row.fields[table.lat])
                let lonText = PointTime.trimmed(row.fields[table.lon])
                guard let lat = Double(latText) else {
                    throw fail("\(place), column \(layer.latColumn)", "expected a latitude in degrees, found \"\(latText)\"")
                }
                guard let lon = Double(lonText) else {
                    throw fail("\(place), column \(layer.lonColumn)", "expected a longitude in degrees, found \"\(lonText)\"")
                }
                try append(
                    lat: lat, lon: lon, place: "\(place), columns \(layer.latColumn)/\(layer.lonColumn)", to: &set, limit: limit,
                    property: { name in table.columns[name].map { row.fields[$0] } },
                    propertyPlace: { "\(place), column \($0)" })
            } catch {
                guard layer.skipInvalid else { throw error }
                set.skipped += 1
            }
        }
        return set
    }
}

// MARK: - Shared

private extension PointReader {
    func emptySet() -> PointSet {
        var set = PointSet()
        if layer.time != nil { set.time = [] }
        if layer.label != nil { set.label = [] }
        set.popupKeys = layer.popup
        return set
    }

    /// Checks one point and appends it; nothing is appended when it throws.
    func append(
        lat: Double, lon: Double, place: String, to set: inout PointSet, limit: Int,
        property: (String) -> String?, propertyPlace: (String) -> String
    ) throws(PointError) {
        guard lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw fail(place, "coordinates out of range: latitude \(lat) must be within ±90 and longitude \(lon) within ±180")
        }
        var time: TimeInstant?
        if let key = layer.time {
            guard let text = property(key), !PointTime.trimmed(text).isEmpty else {
                throw fail(propertyPlace(key), "missing: the layer's time: names this property")
            }
            guard let instant = PointTime.parse(text) else {
                throw fail(propertyPlace(key), "\"\(text.prefix(40))\" is not a time (ISO 8601 like 2026-11-21T10:00:00Z, or Unix seconds)")
            }
            time = instant
        }
        guard set.count < limit else {
            throw PointError(
                layer: layer.keyPath, document: layer.source.name, place: place,
                message: "more than \(layer.maxPoints) points, over the layer's limit (max_points)")
        }
        set.lat.append(lat)
        set.lon.append(lon)
        if let time { set.time?.append(time) }
        if let key = layer.label { set.label?.append(property(key)) }
        for key in layer.popup { set.popup.append(property(key)) }
    }
}

/// Point times: ISO 8601 instants or Unix seconds.
enum PointTime {
    /// `text` without the spaces at its ends (`CharacterSet.whitespaces`). A field that
    /// starts and ends with a printable ASCII character has none, and is not handed to
    /// Foundation: trimming a million fields there takes seconds.
    static func trimmed(_ text: String) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last, (0x21..<0x80).contains(first), (0x21..<0x80).contains(last) else {
            return text.trimmingCharacters(in: .whitespaces)
        }
        return text
    }

    static func parse(_ text: String) -> TimeInstant? {
        let trimmed = Self.trimmed(text)
        if let seconds = Double(trimmed), seconds.isFinite, abs(seconds) < 1e12 {
            return TimeInstant(millisecondsSinceEpoch: Int64((seconds * 1000).rounded()))
        }
        // The common form is parsed here and its answer is final (a formatter would roll an
        // impossible date such as February 30 over into March).
        if trimmed.utf8.count == 20, trimmed.hasSuffix("Z") { return fastISO(trimmed) }
        return TimeFormat.instant(trimmed)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` without a formatter (a formatter per point is slow at a
    /// million points); other forms go to `TimeFormat.parseISO`.
    static func fastISO(_ text: String) -> TimeInstant? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), let h = number(11..<13),
            let mi = number(14..<16), let s = number(17..<19), (1...12).contains(m), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        guard d <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] else { return nil }
        // Days from the civil date (proleptic Gregorian), Howard Hinnant's well-known method.
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return TimeInstant(millisecondsSinceEpoch: Int64(((days * 24 + h) * 60 + mi) * 60 + s) * 1000)
    }
}
