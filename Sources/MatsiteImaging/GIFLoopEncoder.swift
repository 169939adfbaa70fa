import CGIFShim

/// Writes an exported loop as an animated GIF through giflib, frame by frame.
///
/// Each frame carries its own colour table: exact when the pixels it draws have at most 255
/// colours (radar frames are palettes, so they usually do), else a median cut to 255. Only
/// the rectangle that changed is written, and inside it the pixels that did not change
/// are the transparent index: frames are never disposed, so they show the previous
/// frame's pixel, and an unchanged background costs almost nothing.
public final class GIFLoopEncoder {
    private var writer: OpaquePointer?
    private let width: Int
    private let height: Int
    /// What a viewer sees after the frames so far (colours as quantised).
    private var shown: [UInt8]?
    /// Frames written.
    public private(set) var frames = 0

    /// Starts a `width` x `height` GIF that loops forever.
    public init(width: Int, height: Int) throws(ImageError) {
        var message = [CChar](repeating: 0, count: 256)
        var handle: OpaquePointer?
        guard mgif_begin(UInt32(width), UInt32(height), &handle, &message, message.count) == MGIF_OK, let handle else {
            throw ImageError(.encode, LoopCanvas.message(message), format: "GIF")
        }
        writer = handle
        self.width = width
        self.height = height
    }

    deinit { mgif_discard(writer) }

    /// Adds a frame shown for `durationMs` (GIF counts hundredths of a second).
    public func add(_ canvas: LoopCanvas, durationMs: Int) throws(ImageError) {
        guard let writer, canvas.width == width, canvas.height == height else {
            throw ImageError(.encode, "frame size differs from the GIF's, or the GIF is finished", format: "GIF")
        }
        let delay = max(1, (durationMs + 5) / 10)
        let rect = shown.map { changedRect(canvas.rgb, $0) } ?? (0, 0, width, height)
        // Nothing changed: a one-pixel transparent frame keeps the timing (and the count).
        let (left, top, w, h) = rect.2 == 0 ? (0, 0, 1, 1) : rect
        let keepsPrevious = shown != nil
        // The colours this frame draws (the pixels that differ from what is shown).
        var counts: [UInt32: Int] = [:]
        var drawn = [Bool](repeating: true, count: w * h)
        canvas.rgb.withUnsafeBufferPointer { now in
            var last: UInt32 = .max
            for y in 0..<h {
                for x in 0..<w {
                    let p = ((top + y) * width + left + x) * 3
                    if keepsPrevious, let shown, shown[p] == now[p], shown[p + 1] == now[p + 1], shown[p + 2] == now[p + 2] {
                        drawn[y * w + x] = false
                        continue
                    }
                    let key = UInt32(now[p]) << 16 | UInt32(now[p + 1]) << 8 | UInt32(now[p + 2])
                    if key == last, counts[key] != nil {
                        counts[key]! += 1
                    } else {
                        counts[key, default: 0] += 1
                    }
                    last = key
                }
            }
        }
        let limit = keepsPrevious ? 255 : 256
        let (palette, index) = counts.count <= limit ? Self.exact(counts) : Self.medianCut(counts, to: limit)
        let transparent = keepsPrevious ? palette.count / 3 : -1
        var table = palette
        if transparent >= 0 { table += [0, 0, 0] }
        var indices = [UInt8](repeating: UInt8(max(0, transparent)), count: w * h)
        var next = shown ?? canvas.rgb
        canvas.rgb.withUnsafeBufferPointer { now in
            var lastKey: UInt32 = .max
            var lastIndex: UInt8 = 0
            for y in 0..<h {
                for x in 0..<w where drawn[y * w + x] {
                    let p = ((top + y) * width + left + x) * 3
                    let key = UInt32(now[p]) << 16 | UInt32(now[p + 1]) << 8 | UInt32(now[p + 2])
                    if key != lastKey {
                        lastKey = key
                        lastIndex = index[key] ?? 0
                    }
                    indices[y * w + x] = lastIndex
                    let c = Int(lastIndex) * 3
                    next[p] = palette[c]
                    next[p + 1] = palette[c + 1]
                    next[p + 2] = palette[c + 2]
                }
            }
        }
        var message = [CChar](repeating: 0, count: 256)
        let code = mgif_add_frame(
            writer, indices, UInt32(left), UInt32(top), UInt32(w), UInt32(h), table, Int32(table.count / 3),
            Int32(transparent), Int32(delay), &message, message.count)
        guard code == MGIF_OK else { throw ImageError(.encode, LoopCanvas.message(message), format: "GIF") }
        shown = next
        frames += 1
    }

    /// Ends the GIF and returns its bytes.
    public func finish() throws(ImageError) -> [UInt8] {
        guard let writer else { throw ImageError(.encode, "the GIF is finished", format: "GIF") }
        self.writer = nil
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        guard mgif_finish(writer, &out, &size, &message, message.count) == MGIF_OK, let out else {
            throw ImageError(.encode, LoopCanvas.message(message), format: "GIF")
        }
        defer { mgif_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}

extension GIFLoopEncoder {
    /// The bounding box of the pixels that differ between two canvases; width 0 when none.
    func changedRect(_ a: [UInt8], _ b: [UInt8]) -> (Int, Int, Int, Int) {
        var x0 = width, y0 = height, x1 = -1, y1 = -1
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for y in 0..<height {
                    let row = y * width * 3
                    // Most rows are unchanged: compare them whole first.
                    if a[row..<(row + width * 3)].elementsEqual(b[row..<(row + width * 3)]) { continue }
                    y0 = min(y0, y)
                    y1 = y
                    for x in 0..<width {
                        let p = row + x * 3
                        if a[p] != b[p] || a[p + 1] != b[p + 1] || a[p + 2] != b[p + 2] {
                            x0 = min(x0, x)
                            x1 = max(x1, x)
                        }
                    }
                }
            }
        }
        return x1 < 0 ? (0, 0, 0, 0) : (x0, y0, x1 - x0 + 1, y1 - y0 + 1)
    }

    /// Every colour its own entry.
    static func exact(_ counts: [UInt32: Int]) -> (palette: [UInt8], index: [UInt32: UInt8]) {
        var palette: [UInt8] = []
        var index: [UInt32: UInt8] = [:]
        for (i, key) in counts.keys.sorted().enumerated() {
            palette += [UInt8(key >> 16), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF)]
            index[key] = UInt8(i)
        }
        if palette.isEmpty { palette = [0, 0, 0] }
        return (palette, index)
    }

    /// Median cut: the box of colours with the widest channel is split at its pixels'
    /// median until there are `limit` boxes; each box becomes its pixels' mean colour.
    static func medianCut(_ counts: [UInt32: Int], to limit: Int) -> (palette: [UInt8], index: [UInt32: UInt8]) {
        typealias Entry = (key: UInt32, count: Int)
        func channel(_ key: UInt32, _ c: Int) -> Int { Int((key >> UInt32(16 - 8 * c)) & 0xFF) }
        func widest(_ box: [Entry]) -> (channel: Int, range: Int) {
            var best = (0, -1)
            for c in 0..<3 {
                var lo = 255, hi = 0
                for e in box {
                    let v = channel(e.key, c)
                    lo = min(lo, v)
                    hi = max(hi, v)
                }
                if hi - lo > best.1 { best = (c, hi - lo) }
            }
            return best
        }
        // In key order, and split with the key breaking ties: a dictionary's order changes
        // from process to process, and the same frames must give the same file.
        var boxes: [[Entry]] = [counts.map { ($0.key, $0.value) }.sorted { $0.key < $1.key }]
        while boxes.count < limit {
            guard let (i, split) = boxes.indices.map({ ($0, widest(boxes[$0])) }).filter({ boxes[$0.0].count > 1 }).max(by: { $0.1.range < $1.1.range }),
                split.range > 0
            else { break }
            let sorted = boxes[i].sorted {
                let (a, b) = (channel($0.key, split.channel), channel($1.key, split.channel))
                return a != b ? a < b : $0.key < $1.key
            }
            let total = sorted.reduce(0) { $0 + $1.count }
            var running = 0
            var cut = 1
            for (j, e) in sorted.enumerated() {
                running += e.count
                if running * 2 >= total {
                    cut = max(1, min(sorted.count - 1, j + 1))
                    break
                }
            }
            boxes[i] = Array(sorted[..<cut])
            boxes.append(Array(sorted[cut...]))
        }
        var palette: [UInt8] = []
        var index: [UInt32: UInt8] = [:]
        for (i, box) in boxes.enumerated() {
            var sum = [0, 0, 0]
            var n = 0
            for e in box {
                for c in 0..<3 { sum[c] += channel(e.key, c) * e.count }
                n += e.count
                index[e.key] = UInt8(i)
            }
            palette += sum.map { UInt8(($0 + n / 2) / max(1, n)) }
        }
        return (palette, index)
    }
}
