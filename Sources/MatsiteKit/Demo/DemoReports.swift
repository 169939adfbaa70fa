import Foundation
import MatsiteCapabilities

/// The demo's point layer (`points: [{ demo: reports }]`): storm reports made from the
/// same weather the demo radar draws, so hail and wind are reported under the strongest
/// echoes, at the times those echoes pass. Written as a GeoJSON document, which the point
/// layer then reads like any other.
enum DemoReports {
    /// Reports are considered every this many seconds, at whole multiples since 1970, so a
    /// report keeps its time and place whichever window a build asks for.
    static let slot = 600.0
    /// How strong a cell must be for a report: about the 60 dBZ of the demo's legend.
    static let threshold = 0.95

    /// The reports inside `bbox` made from `start` through `end`, as a GeoJSON
    /// FeatureCollection with the properties `type`, `magnitude`, `time` and `remarks`.
    static func geojson(bbox: BoundingBox, from start: TimeInstant, through end: TimeInstant) -> [UInt8] {
        var features: [String] = []
        let east = bbox.east + (bbox.west > bbox.east ? 360 : 0)
        let u0 = (bbox.west + 180) / 360, u1 = (east + 180) / 360
        let v0 = WebMercator.pixelY(latitude: bbox.north, world: 1), v1 = WebMercator.pixelY(latitude: bbox.south, world: 1)
        let (first, last) = (Double(start.millisecondsSinceEpoch) / 1000, Double(end.millisecondsSinceEpoch) / 1000)
        var k = (first / slot).rounded(.down)
        while k * slot <= last {
            let slotStart = k * slot
            for cell in DemoWeather.cells(u0: u0, u1: u1, v0: v0, v1: v1, time: slotStart) where cell.strength >= threshold {
                let salt = 30 + Int(Int64(k) % 7919)
                guard cell.noise(salt) < 0.45 else { continue }
                let seconds = (slotStart + (cell.noise(salt + 1) * slot).rounded(.down)).rounded(.down)
                guard seconds >= first, seconds <= last else { continue }
                // Near the cell's core: within half its narrow axis.
                let (a, r) = (2 * .pi * cell.noise(salt + 2), 0.5 * cell.minor * cell.noise(salt + 3).squareRoot())
                let u = cell.u + r * cos(a), v = cell.v + r * sin(a)
                let lat = WebMercator.latitude(pixelY: v, world: 1)
                var lon = u * 360 - 180
                lon -= 360 * ((lon + 180) / 360).rounded(.down)
                guard v >= v0, v <= v1, u >= u0, u <= u1 else { continue }
                let (type, magnitude) = kind(cell, salt: salt + 4)
                let time = TimeInstant(millisecondsSinceEpoch: Int64(seconds) * 1000).manifestText
                features.append(
                    """
                    {"type":"Feature","geometry":{"type":"Point","coordinates":[\(coordinate(lon)),\(coordinate(lat))]},\
                    "properties":{"type":"\(type)","magnitude":"\(magnitude)","time":"\(time)","remarks":"procedural demo report"}}
                    """)
            }
            k += 1
        }
        return Array("{\"type\":\"FeatureCollection\",\"features\":[\n\(features.joined(separator: ",\n"))\n]}\n".utf8)
    }
}

private extension DemoReports {
    /// What was reported, by the cell's strength: the strongest make tornadoes now and then,
    /// then hail by size, then wind gusts.
    static func kind(_ cell: DemoWeather.Cell, salt: Int) -> (type: String, magnitude: String) {
        let chance = cell.noise(salt)
        let excess = min(1, max(0, (cell.strength - threshold) / 0.4))
        if cell.strength >= 1.15, chance < 0.12 {
            return ("tornado", "EF\(Int(excess * 2.99))")
        }
        if chance < 0.6 {
            let inches = 0.75 + (excess * 2 + cell.noise(salt + 1) * 0.5) * 0.75
            return ("hail", String(format: "%.2f in", (inches * 4).rounded() / 4))
        }
        return ("wind", "\(5 * Int((55 + excess * 30 + cell.noise(salt + 1) * 10) / 5)) mph")
    }

    /// Degrees to five decimals (about a metre).
    static func coordinate(_ degrees: Double) -> String {
        String(format: "%.5f", degrees)
    }
}
