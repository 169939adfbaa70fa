import Foundation

extension AnimationManifest {
    /// A point layer as the player reads it: its levels (one JSON file per zoom, clusters
    /// down to `max_zoom`, then the points themselves) and the properties file.
    public struct PointLayer: Codable, Sendable, Equatable {
        public var id: String
        public var title: String
        /// Points published.
        public var count: Int
        /// Invalid features or rows left out (`skip_invalid: true`).
        public var skipped: Int?
        public var radiusPx: Int
        public var minZoom: Int
        public var maxZoom: Int
        /// True when counts follow the frames (each level item has `frames` change points).
        public var timed: Bool
        /// True when single points carry a label (in the properties file).
        public var labeled: Bool
        /// Property names shown in a point's popup, in order.
        public var popup: [String]
        /// `min_zoom` ... `max_zoom + 1`, shallowest first.
        public var levels: [Level]
        /// Labels and popup texts per point, when there are any.
        public var properties: String?

        /// One published zoom level.
        public struct Level: Codable, Sendable, Equatable {
            public var zoom: Int
            public var url: String
            /// Clusters (or points) in the level.
            public var items: Int
            public var bytes: Int
        }
    }
}

/// Clusters one layer's points and writes its levels into the staged site, content-hashed:
/// an unchanged level keeps its name, and `SiteWriter` links it from the previous site.
struct PointPublisher {
    let animation: String
    let layer: PointLayerConfig
    /// The frames' times, oldest first (nil where a frame has none).
    let frameTimes: [Date?]

    /// Writes the layer's files and returns its manifest entry.
    func publish(_ points: PointSet, with writer: SiteWriter) throws -> AnimationManifest.PointLayer {
        let folder = "points/\(layer.id)"
        let ranges = try frameRanges(points)
        let x = points.lon.map(PointClusterer.worldX)
        let y = points.lat.map(PointClusterer.worldY)
        let clusterer = PointClusterer(radiusPx: layer.radiusPx, minZoom: layer.minZoom, maxZoom: layer.maxZoom)
        var levels: [AnimationManifest.PointLayer.Level] = []
        try clusterer.run(x: x, y: y) { level, owner in
            let bytes = Self.encode(level, leaves: level.zoom > layer.maxZoom, owner: owner, ranges: ranges, frames: frameTimes.count, points: points)
            let name = String(format: "z%02d-", level.zoom) + SHA256.hex(of: bytes).prefix(12) + ".json"
            try writer.put(bytes, at: "\(animation)/\(folder)/\(name)")
            levels.append(.init(zoom: level.zoom, url: "\(folder)/\(name)", items: level.itemCount, bytes: bytes.count))
        }
        var properties: String?
        if points.label != nil || !points.popupKeys.isEmpty {
            let bytes = Self.encodeProperties(points)
            let name = "props-" + SHA256.hex(of: bytes).prefix(12) + ".json"
            try writer.put(bytes, at: "\(animation)/\(folder)/\(name)")
            properties = "\(folder)/\(name)"
        }
        return AnimationManifest.PointLayer(
            id: layer.id, title: layer.title, count: points.count, skipped: points.skipped > 0 ? points.skipped : nil,
            radiusPx: layer.radiusPx, minZoom: layer.minZoom, maxZoom: layer.maxZoom, timed: ranges != nil,
            labeled: points.label != nil, popup: points.popupKeys, levels: levels.sorted { $0.zoom < $1.zoom },
            properties: properties)
    }

    /// For a timed layer, each point's frames as a half-open range of frame indices: the
    /// frames whose time `t` has `time <= t < time + window`.
    func frameRanges(_ points: PointSet) throws(PointError) -> (start: [Int32], end: [Int32])? {
        guard let times = points.time else { return nil }
        let frames = frameTimes.compactMap { $0.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } }
        guard frames.count == frameTimes.count else {
            throw PointError(
                layer: layer.keyPath, document: layer.source.name, place: "time",
                message: "the animation's frames have no times, so points cannot follow them; remove time: or give the frames times")
        }
        func firstAtOrAfter(_ t: Int64) -> Int32 {
            var lo = 0, hi = frames.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if frames[mid] < t { lo = mid + 1 } else { hi = mid }
            }
            return Int32(lo)
        }
        let window = layer.window?.milliseconds
        var start = [Int32](repeating: 0, count: times.count)
        var end = [Int32](repeating: Int32(frames.count), count: times.count)
        for (i, t) in times.enumerated() {
            start[i] = firstAtOrAfter(t)
            if let window { end[i] = max(start[i], firstAtOrAfter(t + window)) }
        }
        return (start, end)
    }
}

extension PointPublisher {
    /// One level as JSON columns: `lat`, `lon`, `count`, `parent`, `split` and `leaf` (the
    /// point's index for an item holding one point, else -1), and for a timed layer
    /// `frames`: per item, change points `[frame, count, frame, count, ...]` (the count
    /// from that frame on; 0 before the first). The points' own level says `"points": true`
    /// instead of `count`, `split` and `leaf` (1, -1 and the item's own index): it is the
    /// largest level, and those columns would only repeat what is known.
    static func encode(
        _ level: ClusterLevel, leaves: Bool, owner: [Int32]?, ranges: (start: [Int32], end: [Int32])?, frames: Int,
        points: PointSet
    ) -> [UInt8] {
        let n = level.itemCount
        var json = JSONBytes(capacity: n * 48 + 64)
        json.raw("{\"zoom\":")
        json.int(level.zoom)
        json.raw(",")
        json.column("lat", 0..<n) { $0.fixed(leaves ? points.lat[$1] : PointClusterer.latitude(level.y[$1])) }
        json.raw(",")
        json.column("lon", 0..<n) { $0.fixed(leaves ? points.lon[$1] : PointClusterer.longitude(level.x[$1])) }
        json.raw(",")
        json.column("parent", level.parent) { $0.int(Int($1)) }
        if leaves {
            json.raw(",\"points\":true")
        } else {
            json.raw(",")
            json.column("count", level.count) { $0.int(Int($1)) }
            json.raw(",")
            json.column("split", level.split) { $0.int(Int($1)) }
            // Which point an item of one point is: its label and popup are the point's.
            var leaf = [Int32](repeating: -1, count: n)
            if let owner {
                for (i, item) in owner.enumerated() where level.count[Int(item)] == 1 { leaf[Int(item)] = Int32(i) }
            }
            json.raw(",")
            json.column("leaf", leaf) { $0.int(Int($1)) }
        }
        if let ranges {
            json.raw(",")
            json.column("frames", frameCounts(owner: owner, items: n, ranges: ranges, frames: frames)) { json, changes in
                json.byte(0x5B)
                for (k, v) in changes.enumerated() {
                    if k > 0 { json.byte(0x2C) }
                    json.int(Int(v))
                }
                json.byte(0x5D)
            }
        }
        json.raw("}\n")
        return json.bytes
    }

    /// Per item, its count in each frame as change points: for each frame where the count
    /// differs from the frame before (0 before frame 0), `[frame, count]`, flattened.
    static func frameCounts(owner: [Int32]?, items: Int, ranges: (start: [Int32], end: [Int32]), frames: Int) -> [[Int32]] {
        let leaves = ranges.start.count
        // Points grouped by item (a counting sort).
        var offsets = [Int](repeating: 0, count: items + 1)
        if let owner { for item in owner { offsets[Int(item) + 1] += 1 } } else { for i in 0..<items { offsets[i + 1] = 1 } }
        for i in 0..<items { offsets[i + 1] += offsets[i] }
        var grouped = [Int32](repeating: 0, count: leaves)
        var fill = offsets
        for i in 0..<leaves {
            let item = owner.map { Int($0[i]) } ?? i
            grouped[fill[item]] = Int32(i)
            fill[item] += 1
        }
        var diff = [Int32](repeating: 0, count: frames + 1)
        var out: [[Int32]] = []
        out.reserveCapacity(items)
        for item in 0..<items {
            let members = grouped[offsets[item]..<offsets[item + 1]]
            if members.count == 1, let i = members.first.map(Int.init) {
                let (a, b) = (ranges.start[i], ranges.end[i])
                out.append(a >= b ? [] : b < Int32(frames) ? [a, 1, b, 0] : [a, 1])
                continue
            }
            for i in members.map(Int.init) where ranges.start[i] < ranges.end[i] {
                diff[Int(ranges.start[i])] += 1
                diff[Int(ranges.end[i])] -= 1
            }
            var changes: [Int32] = []
            var running: Int32 = 0
            for f in 0..<frames {
                let next = running + diff[f]
                if next != running { changes += [Int32(f), next] }
                running = next
                diff[f] = 0
            }
            diff[frames] = 0
            out.append(changes)
        }
        return out
    }

    /// `{"label": [...], "popup": [[...], ...]}`: per point, its label and popup texts.
    static func encodeProperties(_ points: PointSet) -> [UInt8] {
        var json = JSONBytes(capacity: points.count * 32)
        json.raw("{")
        json.column("keys", points.popupKeys) { $0.string($1) }
        if let labels = points.label {
            json.raw(",")
            json.column("label", labels) { $0.string($1) }
        }
        json.raw(",")
        json.column("popup", 0..<points.count) { json, i in
            json.byte(0x5B)
            for (k, value) in points.popupValues(i).enumerated() {
                if k > 0 { json.byte(0x2C) }
                json.string(value)
            }
            json.byte(0x5D)
        }
        json.raw("}\n")
        return json.bytes
    }
}
