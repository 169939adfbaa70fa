import Foundation

/// One zoom level of a clustered layer: its items (clusters, or points at the deepest
/// level), each with a position, a count and its parent at the zoom above.
package struct ClusterLevel: Sendable {
    /// The zoom these items are drawn at.
    package let zoom: Int
    /// Position in world units: x from 0 (180° W) to 1 (180° E), y from 0 (north) to 1.
    package var x: [Double] = []
    package var y: [Double] = []
    /// Points in each item.
    package var count: [Int32] = []
    /// Each item's cluster at `zoom - 1` (an index into that level); -1 at the top level.
    package var parent: [Int32] = []
    /// The zoom at which each item first shows as two or more items; -1 for a single point.
    package var split: [Int16] = []
    /// For each item, the largest distance from its position to one of its points, in
    /// world units: never more than the cluster radius at `zoom`.
    package var radius: [Double] = []

    /// How many items the level has.
    package var itemCount: Int { x.count }
}

/// Build-time clustering of points, grid-based and greedy, one zoom at a time from the
/// deepest up: the items of zoom z + 1 (the points themselves below `maxZoom`) are merged
/// into the clusters of zoom z, so every cluster's parent is known and a split or merge can
/// be animated between any two zooms.
///
/// The guarantee: every point lies within `radiusPx` screen pixels (256-pixel tiles, as
/// the player's map has) of its cluster's drawn position at each zoom. At zoom z, with
/// h = half the radius in world units, an item joins a seed when its distance to the seed
/// plus its own radius is at most h: all its points then lie within h of the seed, the
/// weighted centre lies within h of the seed too, so every point is within 2h = radius of
/// the centre. Neighbours are found in a grid of h-sized cells (an item only looks at the
/// 3x3 cells around it), sorted by cell with a radix sort: linear work per zoom.
package struct PointClusterer: Sendable {
    /// The clustering and its files' format, in the layer's `inputs` hash: a matsite that
    /// clusters differently must not link a layer an older one made. Change it with either.
    package static let version = "matsite points 3 (merge pass)"

    /// Cluster radius in screen pixels.
    package let radiusPx: Int
    /// Shallowest zoom with clusters.
    package let minZoom: Int
    /// Deepest zoom with clusters; the points themselves form level `maxZoom + 1`.
    package let maxZoom: Int

    /// A clusterer for `radiusPx` from `minZoom` to `maxZoom`.
    package init(radiusPx: Int, minZoom: Int, maxZoom: Int) {
        self.radiusPx = radiusPx
        self.minZoom = minZoom
        self.maxZoom = maxZoom
    }

    /// The latitude where Web Mercator's square world ends (as `WebMercator.maxLatitude`
    /// in MatsiteKit, which this target does not import).
    static let maxLatitude = 85.05112877980659

    /// World x of a longitude (degrees).
    package static func worldX(_ lon: Double) -> Double { (lon + 180) / 360 }

    /// World y of a latitude (degrees), clamped to Web Mercator's limit.
    package static func worldY(_ lat: Double) -> Double {
        let clamped = min(max(lat, -Self.maxLatitude), Self.maxLatitude) * .pi / 180
        return min(max((1 - log(tan(clamped) + 1 / cos(clamped)) / .pi) / 2, 0), 1)
    }

    /// Longitude of a world x.
    package static func longitude(_ x: Double) -> Double { x * 360 - 180 }

    /// Latitude of a world y.
    package static func latitude(_ y: Double) -> Double { atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi }

    /// Cluster radius in world units at a zoom.
    package func radius(atZoom zoom: Int) -> Double { Double(radiusPx) / (256 * Double(1 << zoom)) }

    /// Clusters the points at (x, y) (world units) and hands each level to `emit` once it
    /// is complete, deepest first: the points (`maxZoom + 1`), then `maxZoom` ... `minZoom`.
    /// `emit` also gets, for every point, the index of the level's item holding it (nil for
    /// the points' own level). Only two levels are held at a time, so memory stays a small
    /// multiple of the points' count whatever the number of zooms.
    package func run(x: [Double], y: [Double], emit: (ClusterLevel, [Int32]?) throws -> Void) rethrows {
        let n = x.count
        var lower = ClusterLevel(
            zoom: maxZoom + 1, x: x, y: y, count: Array(repeating: 1, count: n),
            parent: [], split: Array(repeating: -1, count: n), radius: Array(repeating: 0, count: n))
        var owner: [Int32]? = nil
        var zoom = maxZoom
        while zoom >= minZoom {
            var upper = merge(&lower, into: zoom)
            try emit(lower, owner)
            if var o = owner {
                for i in o.indices { o[i] = lower.parent[Int(o[i])] }
                owner = o
            } else {
                owner = lower.parent
            }
            // The level above the top one has no clusters: -1 says "no parent".
            if zoom == minZoom { upper.parent = Array(repeating: -1, count: upper.itemCount) }
            lower = upper
            zoom -= 1
        }
        try emit(lower, owner)
    }

    /// Every level, shallowest first, with each point's item per level: for tests and small
    /// layers (it holds them all at once).
    package func levels(x: [Double], y: [Double]) -> [(level: ClusterLevel, owner: [Int32])] {
        var out: [(ClusterLevel, [Int32])] = []
        run(x: x, y: y) { level, owner in out.append((level, owner ?? (0..<Int32(x.count)).map { $0 })) }
        return out.reversed()
    }
}

extension PointClusterer {
    /// The radix order, for tests.
    package static func radixOrderForTests(_ keys: [UInt64]) -> [Int32] { radixOrder(keys) }
}

private extension PointClusterer {
    /// The clusters of `zoom` made from `lower` (the items of `zoom + 1`), setting each
    /// lower item's parent.
    func merge(_ lower: inout ClusterLevel, into zoom: Int) -> ClusterLevel {
        let n = lower.itemCount
        let h = radius(atZoom: zoom) / 2
        // Cells are h wide; +1 keeps a neighbour's column and row above zero, +2 columns of slack.
        let cells = UInt64(ceil(1 / h)) + 3
        var keys = [UInt64](repeating: 0, count: n)
        for i in 0..<n {
            let cx = UInt64(max(0, lower.x[i] / h)) + 1
            let cy = UInt64(max(0, lower.y[i] / h)) + 1
            keys[i] = cx &* cells &+ cy
        }
        let order = Self.radixOrder(keys)
        let sorted = order.map { keys[Int($0)] }
        // skip[p] == p while the item at sorted position p is free; path halving finds the
        // next free one, so taken items in a dense cell are not scanned again and again.
        var skip = [Int32](0...Int32(n))
        func free(_ p: Int) -> Int {
            var p = p
            while Int(skip[p]) != p {
                let next = Int(skip[Int(skip[p])])
                skip[p] = Int32(next)
                p = next
            }
            return p
        }
        var upper = ClusterLevel(zoom: zoom)
        upper.x.reserveCapacity(n / 2)
        lower.parent = [Int32](repeating: -1, count: n)
        var childCount: [Int32] = []
        var firstChild: [Int32] = []
        var cursors = [0, 0, 0]
        var members: [Int] = []
        for p in 0..<n {
            for d in 0..<3 {
                let target = sorted[p] &+ UInt64(d) &* cells &- cells &- 1
                while cursors[d] < n, sorted[cursors[d]] < target { cursors[d] += 1 }
            }
            guard Int(skip[p]) == p else { continue }
            let seed = Int(order[p])
            let sx = lower.x[seed], sy = lower.y[seed]
            members.removeAll(keepingCapacity: true)
            // The seed is a member whatever rounding did to its radius.
            members.append(seed)
            skip[p] = Int32(p + 1)
            for d in 0..<3 {
                let last = sorted[p] &+ UInt64(d) &* cells &- cells &+ 1
                var q = free(cursors[d])
                while q < n, sorted[q] <= last {
                    let j = Int(order[q])
                    let dx = lower.x[j] - sx, dy = lower.y[j] - sy
                    if (dx * dx + dy * dy).squareRoot() + lower.radius[j] <= h {
                        members.append(j)
                        skip[q] = Int32(q + 1)
                    }
                    q = free(q + 1)
                }
            }
            var weight = 0.0, cx = 0.0, cy = 0.0
            for j in members {
                let w = Double(lower.count[j])
                weight += w
                cx += lower.x[j] * w
                cy += lower.y[j] * w
            }
            cx /= weight
            cy /= weight
            if members.count == 1 {
                cx = lower.x[seed]
                cy = lower.y[seed]
            }
            var reach = 0.0
            var total: Int32 = 0
            let index = Int32(upper.x.count)
            for j in members {
                let dx = lower.x[j] - cx, dy = lower.y[j] - cy
                reach = max(reach, (dx * dx + dy * dy).squareRoot() + lower.radius[j])
                total += lower.count[j]
                lower.parent[j] = index
            }
            upper.x.append(cx)
            upper.y.append(cy)
            upper.count.append(total)
            upper.radius.append(reach)
            childCount.append(Int32(members.count))
            firstChild.append(Int32(members[0]))
        }
        consolidate(&upper, lower: &lower, childCount: &childCount, firstChild: &firstChild, radius: 2 * h)
        // A cluster splits where its only child splits, or right below when it has several.
        upper.split = (0..<upper.x.count).map { c in
            childCount[c] > 1 ? Int16(zoom + 1) : lower.split[Int(firstChild[c])]
        }
        return upper
    }

    /// Merges neighbouring clusters of one zoom while every point of the merged cluster
    /// stays within `radius` of its new centre (checked exactly, through each cluster's
    /// reach). The seeds above merge at half the radius, which keeps the guarantee but lets
    /// cluster centres sit half a radius apart: drawn, their markers overlap, and a view
    /// holds four times as many elements as it needs.
    func consolidate(
        _ upper: inout ClusterLevel, lower: inout ClusterLevel, childCount: inout [Int32], firstChild: inout [Int32], radius r: Double
    ) {
        let n = upper.itemCount
        guard n > 1 else { return }
        let cells = UInt64(ceil(1 / r)) + 3
        var keys = [UInt64](repeating: 0, count: n)
        for c in 0..<n {
            keys[c] = (UInt64(max(0, upper.x[c] / r)) + 1) &* cells &+ (UInt64(max(0, upper.y[c] / r)) + 1)
        }
        let order = Self.radixOrder(keys)
        let sorted = order.map { keys[Int($0)] }
        var into = [Int32](repeating: -1, count: n) // the survivor a cluster merged into
        var done = [Bool](repeating: false, count: n)
        var cursors = [0, 0, 0]
        for p in 0..<n {
            let c = Int(order[p])
            for d in 0..<3 {
                let target = sorted[p] &+ UInt64(d) &* cells &- cells &- 1
                while cursors[d] < n, sorted[cursors[d]] < target { cursors[d] += 1 }
            }
            done[c] = true
            guard into[c] < 0 else { continue }
            for d in 0..<3 {
                let last = sorted[p] &+ UInt64(d) &* cells &- cells &+ 1
                var q = cursors[d]
                while q < n, sorted[q] <= last {
                    let j = Int(order[q])
                    q += 1
                    // Only clusters not yet visited: they have absorbed nothing themselves.
                    guard !done[j], into[j] < 0 else { continue }
                    let (wc, wj) = (Double(upper.count[c]), Double(upper.count[j]))
                    let mx = (upper.x[c] * wc + upper.x[j] * wj) / (wc + wj)
                    let my = (upper.y[c] * wc + upper.y[j] * wj) / (wc + wj)
                    let reachC = ((upper.x[c] - mx) * (upper.x[c] - mx) + (upper.y[c] - my) * (upper.y[c] - my)).squareRoot() + upper.radius[c]
                    let reachJ = ((upper.x[j] - mx) * (upper.x[j] - mx) + (upper.y[j] - my) * (upper.y[j] - my)).squareRoot() + upper.radius[j]
                    let reach = max(reachC, reachJ)
                    guard reach <= r else { continue }
                    upper.x[c] = mx
                    upper.y[c] = my
                    upper.count[c] += upper.count[j]
                    upper.radius[c] = reach
                    childCount[c] += childCount[j]
                    into[j] = Int32(c)
                }
            }
        }
        // Survivors keep their order; the merged-away are dropped and their children move.
        var index = [Int32](repeating: -1, count: n)
        var kept = 0
        for c in 0..<n where into[c] < 0 {
            index[c] = Int32(kept)
            kept += 1
        }
        guard kept < n else { return }
        for c in 0..<n where into[c] >= 0 { index[c] = index[Int(into[c])] }
        for i in lower.parent.indices { lower.parent[i] = index[Int(lower.parent[i])] }
        var merged = ClusterLevel(zoom: upper.zoom)
        var counts: [Int32] = []
        var firsts: [Int32] = []
        for c in 0..<n where into[c] < 0 {
            merged.x.append(upper.x[c])
            merged.y.append(upper.y[c])
            merged.count.append(upper.count[c])
            merged.radius.append(upper.radius[c])
            counts.append(childCount[c])
            firsts.append(firstChild[c])
        }
        upper = merged
        childCount = counts
        firstChild = firsts
    }

    /// Indices of `keys` in ascending key order (stable), by an LSD radix sort over the
    /// bytes the largest key uses.
    static func radixOrder(_ keys: [UInt64]) -> [Int32] {
        let n = keys.count
        var order = (0..<Int32(n)).map { $0 }
        guard n > 1, let top = keys.max() else { return order }
        var scratch = [Int32](repeating: 0, count: n)
        var shift: UInt64 = 0
        let bits = UInt64(64 - top.leadingZeroBitCount)
        var counts = [Int](repeating: 0, count: 2049)
        while shift < bits {
            for i in counts.indices { counts[i] = 0 }
            for i in 0..<n { counts[Int((keys[i] >> shift) & 2047) + 1] += 1 }
            for i in 1..<2049 { counts[i] += counts[i - 1] }
            for idx in order {
                let digit = Int((keys[Int(idx)] >> shift) & 2047)
                scratch[counts[digit]] = idx
                counts[digit] += 1
            }
            swap(&order, &scratch)
            shift += 11
        }
        return order
    }
}
