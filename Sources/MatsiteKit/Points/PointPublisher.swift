import Foundation
import MatsiteCapabilities
import MatsiteClustering

/// Clusters one layer's points and writes its levels into the staged site, content-hashed:
/// an unchanged level keeps its name, and `SiteWriter` links it from the previous site.
struct PointPublisher: Sendable {
    let animation: String
    let layer: PointLayerConfig
    /// The frames' times, oldest first (nil where a frame has none).
    let frameTimes: [TimeInstant?]

    /// Publishes a loaded layer: links the previous site's files when it is unchanged,
    /// else clusters and writes it. `reused` says which happened.
    func publish(_ loaded: LoadedPointLayer, with writer: SiteWriter) throws -> (layer: AnimationManifest.PointLayer, reused: Bool) {
        switch loaded {
        case .parsed(let points, let inputs):
            var layer = try publish(points, with: writer)
            layer.inputs = inputs
            return (layer, false)
        case .unchanged(let entry, let document):
            if try link(entry, with: writer) { return (entry, true) }
            // The old site lost a file since it was read: make the layer again.
            var layer = try publish(try PointReader(layer: layer).read(document), with: writer)
            layer.inputs = entry.inputs
            return (layer, false)
        case .kept(let entry, let cause):
            // Unreadable now, and its published files gone too: the loop fails on the cause.
            guard try link(entry, with: writer) else { throw cause }
            return (entry, true)
        }
    }

    /// Links every file of the previous site's layer (levels, their tiles, properties)
    /// into the new site; false when one is missing.
    func link(_ entry: AnimationManifest.PointLayer, with writer: SiteWriter) throws -> Bool {
        var files = entry.levels.map(\.url) + [entry.properties].compactMap { $0 }
        for level in entry.levels where level.tiles != nil {
            guard let index = writer.previous.regularFile("\(animation)/\(level.url)"),
                let data = FileManager.default.contents(atPath: index.url.path),
                let tiles = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["tiles"] as? [String: String]
            else { return false }
            files += tiles.values.sorted()
        }
        for file in files {
            // Only files in the layer's own folder: a manifest is read, not trusted.
            guard file.hasPrefix("points/\(layer.id)/"), !file.split(separator: "/").contains(".."),
                try writer.link("\(animation)/\(file)")
            else { return false }
        }
        return true
    }

    /// Writes the layer's files and returns its manifest entry.
    func publish(_ points: PointSet, with writer: SiteWriter) throws -> AnimationManifest.PointLayer {
        let folder = "points/\(layer.id)"
        let ranges = try frameRanges(points)
        let x = points.lon.map(PointClusterer.worldX)
        let y = points.lat.map(PointClusterer.worldY)
        let clusterer = PointClusterer(radiusPx: layer.radiusPx, minZoom: layer.minZoom, maxZoom: layer.maxZoom)
        let levels = LockedBox<[AnimationManifest.PointLayer.Level]>([])
        // Each level is encoded and written on a second lane while the next is clustered.
        let lane = SecondLane()
        do {
            try clusterer.run(x: x, y: y) { level, owner in
                try lane.submit {
                    let written = try publishLevel(level, owner: owner, ranges: ranges, points: points, folder: folder, with: writer)
                    levels.withLock { $0.append(written) }
                }
            }
        } catch {
            try? lane.finish()
            throw error
        }
        try lane.finish()
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
            labeled: points.label != nil, popup: points.popupKeys, levels: levels.withLock { $0 }.sorted { $0.zoom < $1.zoom },
            properties: properties)
    }

    /// Encodes one level and writes it, as one file or as tiles, and returns its entry.
    func publishLevel(
        _ level: ClusterLevel, owner: [Int32]?, ranges: (start: [Int32], end: [Int32])?, points: PointSet, folder: String, with writer: SiteWriter
    ) throws -> AnimationManifest.PointLayer.Level {
        let columns = Self.columns(level, leaves: level.zoom > layer.maxZoom, owner: owner, ranges: ranges, frames: frameTimes.count)
        // A large level is published as tiles, sized by its size as one file: counted, so
        // its numbers are written once, into the tiles.
        let size = Self.encodedSize(level, items: 0..<level.itemCount, columns: columns, indexed: false, points: points)
        if size > layer.tileAboveBytes,
            let tiled = try publishTiles(of: level, columns: columns, bytes: size, points: points, folder: folder, with: writer)
        {
            return tiled
        }
        let bytes = Self.encode(level, items: 0..<level.itemCount, columns: columns, indexed: false, points: points)
        let name = String(format: "z%02d-", level.zoom) + SHA256.hex(of: bytes).prefix(12) + ".json"
        try writer.put(bytes, at: "\(animation)/\(folder)/\(name)")
        return .init(zoom: level.zoom, url: "\(folder)/\(name)", items: level.itemCount, bytes: bytes.count)
    }

    /// For a timed layer, each point's frames as a half-open range of frame indices: the
    /// frames whose time `t` has `time <= t < time + window`.
    func frameRanges(_ points: PointSet) throws(PointError) -> (start: [Int32], end: [Int32])? {
        guard let times = points.time else { return nil }
        let frames = frameTimes.compactMap { $0 }
        guard frames.count == frameTimes.count else {
            throw PointError(
                layer: layer.keyPath, document: layer.source.name, place: "time",
                message: "the animation's frames have no times, so points cannot follow them; remove time: or give the frames times")
        }
        func firstAtOrAfter(_ t: TimeInstant) -> Int32 {
            var lo = 0, hi = frames.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if frames[mid] < t { lo = mid + 1 } else { hi = mid }
            }
            return Int32(lo)
        }
        let window = layer.window
        var start = [Int32](repeating: 0, count: times.count)
        var end = [Int32](repeating: Int32(frames.count), count: times.count)
        for (i, t) in times.enumerated() {
            start[i] = firstAtOrAfter(t)
            if let window { end[i] = max(start[i], firstAtOrAfter(t.adding(window))) }
        }
        return (start, end)
    }
}

extension PointPublisher {
    /// A level's columns that are worked out for all its items at once, before any file is
    /// written: which point an item of one point is, and the counts per frame.
    struct Columns {
        /// The points' own level (`maxZoom + 1`).
        var leaves: Bool
        /// Per item, the point it holds when it holds one, else -1 (clusters only).
        var leaf: [Int32]
        /// Per item, its count per frame as change points (timed layers only).
        var frames: [[Int32]]?
    }

    static func columns(
        _ level: ClusterLevel, leaves: Bool, owner: [Int32]?, ranges: (start: [Int32], end: [Int32])?, frames: Int
    ) -> Columns {
        let n = level.itemCount
        var leaf: [Int32] = []
        if !leaves {
            // Which point an item of one point is: its label and popup are the point's.
            leaf = [Int32](repeating: -1, count: n)
            if let owner {
                for (i, item) in owner.enumerated() where level.count[Int(item)] == 1 { leaf[Int(item)] = Int32(i) }
            }
        }
        let counts = ranges.map { frameCounts(owner: owner, items: n, ranges: $0, frames: frames) }
        return Columns(leaves: leaves, leaf: leaf, frames: counts)
    }

    /// Items of a level (all of them, or one tile's) as JSON columns: `lat`, `lon`, `count`,
    /// `parent`, `split` and `leaf` (the point's index for an item holding one point, else
    /// -1), and for a timed layer `frames`: per item, change points `[frame, count, frame,
    /// count, ...]` (the count from that frame on; 0 before the first). The points' own
    /// level says `"points": true` instead of `count`, `split` and `leaf` (1, -1 and the
    /// item's own index): it is the largest level, and those columns would only repeat what
    /// is known. `indexed` (a tile) adds `index`: each item's index in the whole level, which
    /// is what `parent` and `leaf` of other levels refer to.
    static func encode<Items: Collection<Int>>(
        _ level: ClusterLevel, items: Items, columns: Columns, indexed: Bool, points: PointSet
    ) -> [UInt8] {
        var json = JSONBytes(capacity: items.count * 48 + 64)
        encode(level, items: items, columns: columns, indexed: indexed, points: points, into: &json)
        return json.bytes
    }

    /// The size of `encode`'s document, counted, not written.
    static func encodedSize<Items: Collection<Int>>(
        _ level: ClusterLevel, items: Items, columns: Columns, indexed: Bool, points: PointSet
    ) -> Int {
        var json = JSONBytes(counting: true)
        encode(level, items: items, columns: columns, indexed: indexed, points: points, into: &json)
        return json.count
    }

    private static func encode<Items: Collection<Int>>(
        _ level: ClusterLevel, items: Items, columns: Columns, indexed: Bool, points: PointSet, into json: inout JSONBytes
    ) {
        let leaves = columns.leaves
        json.raw("{\"zoom\":")
        json.int(level.zoom)
        if indexed {
            json.raw(",")
            json.column("index", items) { $0.int($1) }
        }
        json.raw(",")
        json.column("lat", items) { $0.fixed(leaves ? points.lat[$1] : PointClusterer.latitude(level.y[$1])) }
        json.raw(",")
        json.column("lon", items) { $0.fixed(leaves ? points.lon[$1] : PointClusterer.longitude(level.x[$1])) }
        json.raw(",")
        json.column("parent", items) { $0.int(Int(level.parent[$1])) }
        if leaves {
            json.raw(",\"points\":true")
        } else {
            json.raw(",")
            json.column("count", items) { $0.int(Int(level.count[$1])) }
            json.raw(",")
            json.column("split", items) { $0.int(Int(level.split[$1])) }
            json.raw(",")
            json.column("leaf", items) { $0.int(Int(columns.leaf[$1])) }
        }
        if let frames = columns.frames {
            json.raw(",")
            json.column("frames", items) { json, i in
                json.byte(0x5B)
                for (k, v) in frames[i].enumerated() {
                    if k > 0 { json.byte(0x2C) }
                    json.int(Int(v))
                }
                json.byte(0x5D)
            }
        }
        json.raw("}\n")
    }

    /// Publishes a level too large for one file as tiles, plus an index naming each tile's
    /// file. The tiles are cells of a quadtree over the XYZ grid: a cell is split while its
    /// items would take more than a quarter of `tile_above_bytes` and it is coarser than
    /// three zooms above the level (a 1280-px viewport at the level's zoom spans at most
    /// 2 x 2 cells of that zoom). Sparse regions stay in large cells and dense ones get
    /// small cells, so no viewer fetches more than about four quarters of the threshold, and
    /// a world-wide layer does not become hundreds of thousands of tiny files. Nil when
    /// every item falls in one cell.
    func publishTiles(
        of level: ClusterLevel, columns: Columns, bytes: Int, points: PointSet, folder: String, with writer: SiteWriter
    ) throws -> AnimationManifest.PointLayer.Level? {
        let cells = Self.cells(
            x: level.x, y: level.y, deepest: max(0, level.zoom - 3), most: max(1, layer.tileAboveBytes / 4 * level.itemCount / max(1, bytes)))
        guard cells.count > 1 else { return nil }
        var index = JSONBytes(capacity: cells.count * 64 + 64)
        index.raw("{\"zoom\":")
        index.int(level.zoom)
        index.raw(",\"items\":")
        index.int(level.itemCount)
        index.raw(",\"tiles\":{")
        var total = 0
        for (n, cell) in cells.enumerated() {
            let bytes = Self.encode(level, items: cell.items, columns: columns, indexed: true, points: points)
            let name = String(format: "z%02d-%d-%d-%d-", level.zoom, cell.z, cell.x, cell.y) + SHA256.hex(of: bytes).prefix(12) + ".json"
            try writer.put(bytes, at: "\(animation)/\(folder)/\(name)")
            total += bytes.count
            if n > 0 { index.byte(0x2C) }
            index.string("\(cell.z)/\(cell.x)/\(cell.y)")
            index.byte(0x3A)
            index.string("\(folder)/\(name)")
        }
        index.raw("}}\n")
        let name = String(format: "z%02d-tiles-", level.zoom) + SHA256.hex(of: index.bytes).prefix(12) + ".json"
        try writer.put(index.bytes, at: "\(animation)/\(folder)/\(name)")
        return .init(zoom: level.zoom, url: "\(folder)/\(name)", items: level.itemCount, bytes: total + index.bytes.count, tiles: cells.count)
    }

    /// One quadtree cell: its tile and the items in it.
    struct Cell: Equatable {
        var z: Int
        var x: Int
        var y: Int
        var items: [Int]
    }

    /// The quadtree cells of items at (x, y) (world units): from the whole world down, a cell
    /// holding more than `most` items is split, unless it is at zoom `deepest`. Empty cells
    /// are left out; the order is stable (depth first, children in x then y order).
    static func cells(x: [Double], y: [Double], deepest: Int, most: Int) -> [Cell] {
        var out: [Cell] = []
        var stack = [Cell(z: 0, x: 0, y: 0, items: Array(x.indices))]
        while let cell = stack.popLast() {
            guard cell.items.count > most, cell.z < deepest else {
                out.append(cell)
                continue
            }
            let side = Double(1 << (cell.z + 1))
            var children = [[Int]](repeating: [], count: 4)
            for i in cell.items {
                let cx = min(1, max(0, Int(x[i] * side) - 2 * cell.x))
                let cy = min(1, max(0, Int(y[i] * side) - 2 * cell.y))
                children[cx * 2 + cy].append(i)
            }
            // Pushed in reverse, so they come off the stack in order.
            for k in (0..<4).reversed() where !children[k].isEmpty {
                stack.append(Cell(z: cell.z + 1, x: 2 * cell.x + k / 2, y: 2 * cell.y + k % 2, items: children[k]))
            }
        }
        return out
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
