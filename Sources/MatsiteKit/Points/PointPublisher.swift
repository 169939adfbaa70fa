import Foundation
import MatsiteCapabilities
import MatsiteClustering

/// Clusters one layer's points and writes its levels into the staged site, content-hashed:
/// an unchanged level keeps its name, and `SiteWriter` links it from the previous site.
struct PointPublisher: Sendable {
    /// The published files' format, in the layer's `inputs` hash beside the clustering's
    /// version: counts keyed by slots of a grid of times, not by frame index.
    static let format = "levels 2 (slots)"

    let animation: String
    let layer: PointLayerConfig
    /// The frames' times, oldest first (nil where a frame has none).
    let frameTimes: [TimeInstant?]

    /// Publishes a loaded layer: links the previous site's files when it is unchanged,
    /// else clusters and writes it. `reused` says which happened.
    func publish(_ loaded: LoadedPointLayer, with writer: SiteWriter) async throws -> (layer: PublishedPointLayer, reused: Bool) {
        switch loaded {
        case .parsed(let points, let inputs):
            var layer = try await publish(points, with: writer)
            layer.inputs = inputs
            return (layer, false)
        case .unchanged(let entry, let document):
            if try await CPUPool.shared.run({ try link(entry, with: writer) }) { return (following(entry), true) }
            // The old site lost a file since it was read: make the layer again.
            var layer = try await publish(try await PointReader(layer: layer).read(document), with: writer)
            layer.inputs = entry.inputs
            return (layer, false)
        case .kept(let entry, let cause):
            // Unreadable now, and its published files gone too: the loop fails on the cause.
            guard try await CPUPool.shared.run({ try link(entry, with: writer) }) else { throw cause }
            return (following(entry), true)
        }
    }

    /// A linked layer with its frames' slots for this build's frames: its levels stay as
    /// they are, only where the frames fall on its grid moves with the window.
    func following(_ entry: PublishedPointLayer) -> PublishedPointLayer {
        guard var slots = entry.slots, let origin = PointTime.parse(slots.origin), slots.stepMs > 0 else { return entry }
        let step = Int64(slots.stepMs)
        var entry = entry
        slots.frames = frameTimes.map { time in
            Int(SlotGrid.floorDivision((time ?? origin).wholeSeconds.millisecondsSinceEpoch - origin.millisecondsSinceEpoch, step))
        }
        entry.slots = slots
        return entry
    }

    /// Links every file of the previous site's layer (levels, their tiles, properties)
    /// into the new site; false when one is missing.
    func link(_ entry: PublishedPointLayer, with writer: SiteWriter) throws -> Bool {
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

    /// Writes the layer's files and returns what was published.
    func publish(_ points: PointSet, with writer: SiteWriter) async throws -> PublishedPointLayer {
        let folder = "points/\(layer.id)"
        let clusterer = PointClusterer(radiusPx: layer.radiusPx, minZoom: layer.minZoom, maxZoom: layer.maxZoom)
        let levels = LockedBox<[PublishedPointLayer.Level]>([])
        let timing = LockedBox<SlotRanges?>(nil)
        // Each level is encoded and written by a pool job of its own while the next is clustered.
        try await CPUPool.shared.pipeline(
            produce: { handOff in
                let slots = try slotRanges(points)
                timing.withLock { $0 = slots }
                let x = points.lon.map(PointClusterer.worldX)
                let y = points.lat.map(PointClusterer.worldY)
                try clusterer.run(x: x, y: y) { level, owner in try handOff((level, owner, slots)) }
            },
            consume: { item in
                let (level, owner, slots) = item
                let written = try publishLevel(level, owner: owner, ranges: slots, points: points, folder: folder, with: writer)
                levels.withLock { $0.append(written) }
            })
        let properties = try await CPUPool.shared.run { try publishProperties(points, folder: folder, with: writer) }
        let slots = timing.withLock { $0?.slots }
        return PublishedPointLayer(
            id: layer.id, title: layer.title, count: points.count, skipped: points.skipped, radiusPx: layer.radiusPx,
            minZoom: layer.minZoom, maxZoom: layer.maxZoom, labeled: points.label != nil, popup: points.popupKeys,
            levels: levels.withLock { $0 }.sorted { $0.zoom < $1.zoom }, properties: properties, slots: slots, timed: slots != nil)
    }

    /// Writes the points' labels and popup texts, when they have any; the file's path.
    func publishProperties(_ points: PointSet, folder: String, with writer: SiteWriter) throws -> String? {
        guard points.label != nil || !points.popupKeys.isEmpty else { return nil }
        let bytes = Self.encodeProperties(points)
        let name = "props-" + SHA256.hex(of: bytes).prefix(12) + ".json"
        try writer.put(bytes, at: "\(animation)/\(folder)/\(name)")
        return "\(folder)/\(name)"
    }

    /// Encodes one level and writes it, as one file or as tiles, and returns its files.
    func publishLevel(
        _ level: ClusterLevel, owner: [Int32]?, ranges: SlotRanges?, points: PointSet, folder: String, with writer: SiteWriter
    ) throws -> PublishedPointLayer.Level {
        let columns = Self.columns(level, leaves: level.zoom > layer.maxZoom, owner: owner, ranges: ranges)
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

    /// For a timed layer, each point's slots as a half-open range: the slots of the grid
    /// (`SlotGrid`) whose time `t` has `time <= t < time + window`, counted from the
    /// layer's first slot. Slots, unlike frame indices, stay put when the window moves, so
    /// the levels of an unchanged document keep their bytes and names.
    func slotRanges(_ points: PointSet) throws(PointError) -> SlotRanges? {
        guard let times = points.time else { return nil }
        let frames = frameTimes.compactMap { $0 }
        guard frames.count == frameTimes.count else {
            throw PointError(
                layer: layer.keyPath, document: layer.source.name, place: "time",
                message: "the animation's frames have no times, so points cannot follow them; remove time: or give the frames times")
        }
        let grid = SlotGrid(frames: frames)
        let window = layer.window
        var start = times.map { grid.slot(atOrAfter: $0) }
        var end = window.map { window in times.indices.map { max(start[$0], grid.slot(atOrAfter: times[$0].adding(window))) } }
        let base = start.min() ?? 0
        let last = max(end?.max() ?? 0, start.max() ?? 0, grid.frames.max() ?? 0) - base
        guard last <= Int64(Int32.max), (grid.frames.min() ?? 0) - base >= Int64(Int32.min) else {
            throw PointError(
                layer: layer.keyPath, document: layer.source.name, place: "time",
                message: "the points' times span \(last) steps of \(grid.step / 1000) s between frames, more than the \(Int32.max) a layer holds")
        }
        for i in start.indices { start[i] -= base }
        if end != nil { for i in times.indices { end![i] -= base } }
        let origin = TimeInstant(millisecondsSinceEpoch: grid.phase + base * grid.step)
        // The points in slot order, once: each level groups them by item in this order.
        func order(_ key: [Int64]) -> [Int32] { key.indices.sorted { key[$0] < key[$1] }.map { Int32($0) } }
        return SlotRanges(
            start: start.map { Int32($0) }, end: end?.map { Int32($0) }, startOrder: order(start), endOrder: end.map(order),
            slots: .init(origin: origin.manifestText, stepMs: Int(grid.step), frames: grid.frames.map { Int($0 - base) }))
    }
}

/// The grid of times a timed layer's counts are keyed by: every `step` milliseconds from
/// `phase`, `step` the largest that puts every frame time on the grid (whole seconds, as
/// manifests give them). A window moved by a step keeps the grid, so a point keeps its slots.
struct SlotGrid: Equatable {
    /// Milliseconds between slots (a whole number of seconds).
    var step: Int64
    /// A frame time modulo `step`: slot k is at `phase + k * step`.
    var phase: Int64
    /// Each frame's slot.
    var frames: [Int64]

    init(frames times: [TimeInstant]) {
        let ms = times.map(\.wholeSeconds.millisecondsSinceEpoch)
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
        var step: Int64 = 0
        for (a, b) in zip(ms, ms.dropFirst()) where a != b { step = gcd(step, abs(b - a)) }
        // One frame time (or none): whole minutes, a grid any later frame is likely on.
        if step == 0 { step = 60_000 }
        let phase = ((ms.first ?? 0) % step + step) % step
        self.step = step
        self.phase = phase
        frames = ms.map { Self.floorDivision($0 - phase, step) }
    }

    /// The first slot at or after `time`.
    func slot(atOrAfter time: TimeInstant) -> Int64 {
        -Self.floorDivision(phase - time.millisecondsSinceEpoch, step)
    }

    static func floorDivision(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}

/// Each point's slots as a half-open range `start ..< end` (no end without `window`),
/// counted from the layer's first slot, and the layer's `slots`.
struct SlotRanges {
    var start: [Int32]
    var end: [Int32]?
    /// The points by `start`, and by `end`.
    var startOrder: [Int32]
    var endOrder: [Int32]?
    var slots: PublishedPointLayer.Slots
}

extension PointPublisher {
    /// A level's columns that are worked out for all its items at once, before any file is
    /// written: which point an item of one point is, and the counts per slot.
    struct Columns {
        /// The points' own level (`maxZoom + 1`).
        var leaves: Bool
        /// Per item, the point it holds when it holds one, else -1 (clusters only).
        var leaf: [Int32]
        /// Per item, its count per slot as change points (timed layers only).
        var slots: [[Int32]]?
    }

    static func columns(_ level: ClusterLevel, leaves: Bool, owner: [Int32]?, ranges: SlotRanges?) -> Columns {
        let n = level.itemCount
        var leaf: [Int32] = []
        if !leaves {
            // Which point an item of one point is: its label and popup are the point's.
            leaf = [Int32](repeating: -1, count: n)
            if let owner {
                for (i, item) in owner.enumerated() where level.count[Int(item)] == 1 { leaf[Int(item)] = Int32(i) }
            }
        }
        let counts = ranges.map { slotCounts(owner: owner, items: n, ranges: $0) }
        return Columns(leaves: leaves, leaf: leaf, slots: counts)
    }

    /// Items of a level (all of them, or one tile's) as JSON columns: `lat`, `lon`, `count`,
    /// `parent`, `split` and `leaf` (the point's index for an item holding one point, else
    /// -1), and for a timed layer `slots`: per item, change points `[slot, count, slot,
    /// count, ...]` (the count from that slot on; 0 before the first). The points' own
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
        if let slots = columns.slots {
            json.raw(",")
            json.column("slots", items) { json, i in
                json.byte(0x5B)
                for (k, v) in slots[i].enumerated() {
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
    ) throws -> PublishedPointLayer.Level? {
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

    /// Per item, its count per slot as change points: `[slot, count]` for each slot where
    /// the count differs from the slot before (0 before the first), flattened. A point
    /// counts from its `start` slot until its `end` slot (for good without `end`).
    static func slotCounts(owner: [Int32]?, items: Int, ranges: SlotRanges) -> [[Int32]] {
        let (start, end) = (ranges.start, ranges.end)
        let starts = grouped(owner: owner, items: items, in: ranges.startOrder)
        let ends = ranges.endOrder.map { grouped(owner: owner, items: items, in: $0) }
        var out: [[Int32]] = []
        out.reserveCapacity(items)
        for item in 0..<items {
            let range = starts.offsets[item]..<starts.offsets[item + 1]
            if range.count == 1 {
                let (a, b) = (start[Int(starts.points[range.lowerBound])], end?[Int(starts.points[range.lowerBound])])
                out.append(b.map { a >= $0 ? [] : [a, 1, $0, 0] } ?? [a, 1])
                continue
            }
            // Both lists in slot order: one walk through them, slot by slot.
            var changes: [Int32] = []
            var running: Int32 = 0
            var (a, b) = (range.lowerBound, range.lowerBound)
            while a < range.upperBound || (ends != nil && b < range.upperBound) {
                let nextStart = a < range.upperBound ? start[Int(starts.points[a])] : .max
                let nextEnd = ends.map { b < range.upperBound ? end![Int($0.points[b])] : .max } ?? .max
                let slot = min(nextStart, nextEnd)
                let before = running
                while a < range.upperBound, start[Int(starts.points[a])] == slot {
                    running += 1
                    a += 1
                }
                if let ends {
                    while b < range.upperBound, end![Int(ends.points[b])] == slot {
                        running -= 1
                        b += 1
                    }
                }
                if running != before { changes += [slot, running] }
            }
            out.append(changes)
        }
        return out
    }

    /// The points grouped by the item holding them (each its own item without `owner`),
    /// each item's points in the order given (a counting sort): item k holds
    /// `points[offsets[k] ..< offsets[k + 1]]`.
    static func grouped(owner: [Int32]?, items: Int, in order: [Int32]) -> (points: [Int32], offsets: [Int]) {
        var offsets = [Int](repeating: 0, count: items + 1)
        if let owner { for item in owner { offsets[Int(item) + 1] += 1 } } else { for i in 0..<items { offsets[i + 1] = 1 } }
        for i in 0..<items { offsets[i + 1] += offsets[i] }
        var points = [Int32](repeating: 0, count: order.count)
        var fill = offsets
        for point in order {
            let i = Int(point)
            let item = owner.map { Int($0[i]) } ?? i
            points[fill[item]] = point
            fill[item] += 1
        }
        return (points, offsets)
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
