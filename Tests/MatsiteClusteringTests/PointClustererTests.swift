import Foundation
import Testing

@testable import MatsiteClustering

/// Clustering invariants on generated data: every zoom's counts add up, every point lies
/// within the radius of its cluster, parents and split zooms agree with the levels below.
@Suite("PointClusterer")
struct PointClustererTests {
    /// A small seeded generator, so a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func uniform(_ n: Int, seed: UInt64) -> [(lat: Double, lon: Double)] {
        var g = SplitMix(state: seed)
        return (0..<n).map { _ in (Double.random(in: -85...85, using: &g), Double.random(in: -180...180, using: &g)) }
    }

    static func dense(_ n: Int, seed: UInt64) -> [(lat: Double, lon: Double)] {
        var g = SplitMix(state: seed)
        let centres = (0..<5).map { _ in (Double.random(in: -60...60, using: &g), Double.random(in: -170...170, using: &g)) }
        return (0..<n).map { i in
            let c = centres[i % centres.count]
            return (c.0 + Double.random(in: -0.01...0.01, using: &g), c.1 + Double.random(in: -0.01...0.01, using: &g))
        }
    }

    static func antimeridian(_ n: Int, seed: UInt64) -> [(lat: Double, lon: Double)] {
        var g = SplitMix(state: seed)
        return (0..<n).map { i in
            let lon = i % 2 == 0 ? Double.random(in: 179.99...180, using: &g) : Double.random(in: -180 ... -179.99, using: &g)
            return (Double.random(in: -10...10, using: &g), lon)
        }
    }

    static func poles(_ n: Int, seed: UInt64) -> [(lat: Double, lon: Double)] {
        var g = SplitMix(state: seed)
        return (0..<n).map { i in
            let lat = i % 3 == 0 ? 90 : i % 3 == 1 ? Double.random(in: 85.0...85.06, using: &g) : -Double.random(in: 85.0...90, using: &g)
            return (lat, Double.random(in: -180...180, using: &g))
        }
    }

    static func duplicates(_ n: Int) -> [(lat: Double, lon: Double)] {
        (0..<n).map { i in i % 4 == 0 ? (10.5, 20.25) : (-33.9, 151.2) }
    }

    static let sets: [(String, [(lat: Double, lon: Double)])] = [
        ("uniform", uniform(3000, seed: 1)),
        ("dense clusters", dense(3000, seed: 2)),
        ("antimeridian", antimeridian(1500, seed: 3)),
        ("near the poles", poles(1500, seed: 4)),
        ("duplicates", duplicates(800)),
    ]

    @Test("invariants hold on generated data", arguments: 0..<5)
    func invariants(_ which: Int) throws {
        let (name, points) = Self.sets[which]
        for (radius, minZoom, maxZoom) in [(40, 0, 16), (80, 2, 9), (1, 0, 4)] {
            let clusterer = PointClusterer(radiusPx: radius, minZoom: minZoom, maxZoom: maxZoom)
            let x = points.map { PointClusterer.worldX($0.lon) }
            let y = points.map { PointClusterer.worldY($0.lat) }
            let levels = clusterer.levels(x: x, y: y)
            try #require(levels.count == maxZoom - minZoom + 2, "\(name): one level per zoom and one of points")
            #expect(levels.map(\.level.zoom) == Array(minZoom...(maxZoom + 1)))
            for (k, (level, owner)) in levels.enumerated() {
                let zoom = level.zoom
                // Counts add up, at every zoom and per item.
                #expect(level.count.reduce(0) { $0 + Int($1) } == points.count, "\(name) z\(zoom): counts add up")
                var held = [Int32](repeating: 0, count: level.itemCount)
                for item in owner { held[Int(item)] += 1 }
                #expect(held == level.count, "\(name) z\(zoom): each item's count is the points it holds")
                // Each point within the radius of its item (radius in world units at this zoom).
                let r = zoom > maxZoom ? 0 : clusterer.radius(atZoom: zoom)
                for (i, item) in owner.enumerated() {
                    let dx = x[i] - level.x[Int(item)], dy = y[i] - level.y[Int(item)]
                    let d = (dx * dx + dy * dy).squareRoot()
                    if d > r + 1e-12 {
                        Issue.record("\(name) z\(zoom) r\(radius): point \(i) is \(d / r) radii from its cluster")
                        break
                    }
                }
                // Parents: the top level has none; below, a point's item's parent is its item above.
                if k == 0 {
                    #expect(level.parent.allSatisfy { $0 == -1 })
                } else {
                    let above = levels[k - 1]
                    for (i, item) in owner.enumerated() where level.parent[Int(item)] != above.owner[i] {
                        Issue.record("\(name) z\(zoom): point \(i)'s item has parent \(level.parent[Int(item)]), its item above is \(above.owner[i])")
                        break
                    }
                }
                // Split zooms: the first deeper level where the item's points are in two or more items.
                var membersOf = [[Int]](repeating: [], count: level.itemCount)
                for (i, item) in owner.enumerated() { membersOf[Int(item)].append(i) }
                for item in 0..<level.itemCount {
                    let members = membersOf[item]
                    var expected: Int16 = -1
                    for deeper in levels[(k + 1)...] where Set(members.map { deeper.owner[$0] }).count > 1 {
                        expected = Int16(deeper.level.zoom)
                        break
                    }
                    if level.split[item] != expected {
                        Issue.record("\(name) z\(zoom): item \(item) splits at \(level.split[item]), expected \(expected)")
                        break
                    }
                }
            }
        }
    }

    @Test("duplicates stay one cluster down to max_zoom and split into points below it")
    func duplicatesSplitAtTheBottom() {
        let points = Self.duplicates(100)
        let clusterer = PointClusterer(radiusPx: 40, minZoom: 0, maxZoom: 14)
        let levels = clusterer.levels(x: points.map { PointClusterer.worldX($0.lon) }, y: points.map { PointClusterer.worldY($0.lat) })
        let deepest = levels[levels.count - 2].level
        #expect(deepest.zoom == 14)
        #expect(deepest.count.sorted() == [25, 75])
        #expect(deepest.split == [15, 15])
        #expect(levels.last?.level.itemCount == 100)
    }

    @Test("clusters grow as the zoom gets shallower, and points far apart stay apart")
    func clustersMerge() {
        let points = Self.dense(2000, seed: 9)
        let clusterer = PointClusterer(radiusPx: 40, minZoom: 0, maxZoom: 16)
        let levels = clusterer.levels(x: points.map { PointClusterer.worldX($0.lon) }, y: points.map { PointClusterer.worldY($0.lat) })
        let counts = levels.map(\.level.itemCount)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 }, "\(counts)")
        // Five centres far apart: at zoom 3 they are five clusters (or fewer), never one.
        #expect((2...5).contains(levels[3].level.itemCount), "\(counts)")
        #expect(levels.last?.level.itemCount == 2000)
    }

    @Test("the radix order sorts keys stably")
    func radixOrder() {
        var g = SplitMix(state: 7)
        let keys = (0..<5000).map { _ in UInt64.random(in: 0...(1 << 40), using: &g) / 1000 }
        let order = PointClusterer.radixOrderForTests(keys)
        let expected = keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
        #expect(order.map(Int.init) == expected)
    }
}
