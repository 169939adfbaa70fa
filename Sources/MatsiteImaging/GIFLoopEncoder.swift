import CGIFShim

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes an exported loop as an animated GIF through giflib, in two passes as GIF tools
/// do: the loop's colour table from every picture's colours (`GIFPalette`), then each frame
/// in it.
///
/// The table is exact when the pictures show at most 255 colours together (a radar loop
/// does: its palette, the background, the labels), else a median cut to 255 of all their
/// colours, each pixel taking its box's colour (no dithering, which would make noise that
/// costs bytes). One table for the loop: no frame carries its own. Only the rectangle that
/// changed since the previous picture is written, and inside it the pixels that did not
/// change are the transparent index: frames are never disposed, so they show the previous
/// frame's pixel, and an unchanged background costs almost nothing.
///
/// A frame depends only on the table, its picture and the previous one (`encodeFrame`),
/// so a loop's frames can be encoded side by side and put together in order (`assemble`).
public final class GIFLoopEncoder {
    private let width: Int
    private let height: Int
    /// The pictures added, encoded at `finish` (the table needs every one).
    private var canvases: [(LoopCanvas, Int)] = []
    private var finished = false

    /// Starts a `width` x `height` GIF that loops forever.
    public init(width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0, width <= 65535, height <= 65535 else {
            throw ImageError(.encode, "a GIF is 1 to 65535 pixels a side, not \(width)x\(height)", format: "GIF")
        }
        self.width = width
        self.height = height
    }

    /// Adds a frame shown for `durationMs` (GIF counts hundredths of a second).
    public func add(_ canvas: LoopCanvas, durationMs: Int) throws(ImageError) {
        guard !finished, canvas.width == width, canvas.height == height else {
            throw ImageError(.encode, "frame size differs from the GIF's, or the GIF is finished", format: "GIF")
        }
        canvases.append((canvas, durationMs))
    }

    /// Ends the GIF and returns its bytes.
    public func finish() throws(ImageError) -> [UInt8] {
        guard !finished, !canvases.isEmpty else { throw ImageError(.encode, "the GIF is finished or has no frame", format: "GIF") }
        finished = true
        let palette = GIFPalette(canvases.map { ColorHistogram($0.0) })
        var frames: [[UInt8]] = []
        for (i, (canvas, duration)) in canvases.enumerated() {
            frames.append(try Self.encodeFrame(previous: i > 0 ? canvases[i - 1].0 : nil, canvas, durationMs: duration, palette: palette))
        }
        return try Self.assemble(width: width, height: height, palette: palette, frames: frames)
    }

    /// The GIF of `frames` from `encodeFrame` (in order) with `palette` as its table.
    public static func assemble(width: Int, height: Int, palette: GIFPalette, frames: [[UInt8]]) throws(ImageError) -> [UInt8] {
        var message = [CChar](repeating: 0, count: 256)
        var handle: OpaquePointer?
        let table = palette.table
        guard mgif_begin(UInt32(width), UInt32(height), table, Int32(table.count / 3), &handle, &message, message.count) == MGIF_OK,
            let writer = handle
        else {
            throw ImageError(.encode, LoopCanvas.message(message), format: "GIF")
        }
        for frame in frames {
            guard mgif_add_encoded(writer, frame, frame.count, &message, message.count) == MGIF_OK else {
                mgif_discard(writer)
                throw ImageError(.encode, LoopCanvas.message(message), format: "GIF")
            }
        }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard mgif_finish(writer, &out, &size, &message, message.count) == MGIF_OK, let out else {
            throw ImageError(.encode, LoopCanvas.message(message), format: "GIF")
        }
        defer { mgif_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// One frame's bytes (control extension, image descriptor, image data) in `palette`:
    /// `canvas` shown for `durationMs` after `previous` (nil: the first frame, drawn whole).
    /// Every colour of `canvas` must be in the histograms `palette` was made from.
    public static func encodeFrame(
        previous: LoopCanvas?, _ canvas: LoopCanvas, durationMs: Int, palette: GIFPalette
    ) throws(ImageError)
        -> [UInt8]
    {
        let (width, height) = (canvas.width, canvas.height)
        if let previous, previous.width != width || previous.height != height {
            throw ImageError(.encode, "frame size differs from the previous frame's", format: "GIF")
        }
        let delay = max(1, (durationMs + 5) / 10)
        let rect = previous.map { changedRect(canvas.rgb, $0.rgb, width: width, height: height) } ?? (0, 0, width, height)
        // Nothing changed: a one-pixel transparent frame keeps the timing (and the count).
        let (left, top, w, h) = rect.2 == 0 ? (0, 0, 1, 1) : rect
        let keepsPrevious = previous != nil
        let transparent = palette.count
        var lookup = palette.lookup
        var indices = [UInt8](repeating: UInt8(transparent), count: w * h)
        var unknown = false
        canvas.rgb.withUnsafeBufferPointer { now in
            (previous?.rgb ?? []).withUnsafeBufferPointer { before in
                // An unchanged pixel may take the transparent index or its own colour's (what
                // is shown there already has that colour's index): whichever continues the
                // run before it, so LZW sees longer runs.
                var last = transparent
                for y in 0..<h {
                    for x in 0..<w {
                        let p = ((top + y) * width + left + x) * 3
                        let unchanged = keepsPrevious && before[p] == now[p] && before[p + 1] == now[p + 1] && before[p + 2] == now[p + 2]
                        if unchanged && last == transparent { continue }
                        let index = Int(lookup.value(UInt32(now[p]) << 16 | UInt32(now[p + 1]) << 8 | UInt32(now[p + 2])))
                        if index < 0 { unknown = true }
                        if unchanged && index != last {
                            last = transparent
                            continue
                        }
                        indices[y * w + x] = UInt8(truncatingIfNeeded: index)
                        last = index
                    }
                }
            }
        }
        guard !unknown else { throw ImageError(.encode, "a colour of the frame is not in the loop's colour table", format: "GIF") }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let table = palette.table
        let code = mgif_encode_frame(
            UInt32(width), UInt32(height), indices, UInt32(left), UInt32(top), UInt32(w), UInt32(h), table, Int32(table.count / 3), 0,
            Int32(keepsPrevious ? transparent : -1), Int32(delay), &out, &size, &message, message.count)
        guard code == MGIF_OK, let out else { throw ImageError(.encode, LoopCanvas.message(message), format: "GIF") }
        defer { mgif_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}

/// The colours of pictures with how many pixels show each.
public struct ColorHistogram: Sendable, Equatable {
    /// Colours (0xRRGGBB), ascending, and their pixel counts.
    public private(set) var colors: [UInt32] = []
    public private(set) var counts: [Int] = []

    /// The histogram of a picture.
    public init(_ canvas: LoopCanvas) {
        var table = ColorCounts()
        canvas.rgb.withUnsafeBufferPointer { rgb in
            for p in Swift.stride(from: 0, to: rgb.count, by: 3) {
                table.add(UInt32(rgb[p]) << 16 | UInt32(rgb[p + 1]) << 8 | UInt32(rgb[p + 2]))
            }
        }
        for entry in table.entries().sorted(by: { $0.key < $1.key }) {
            colors.append(entry.key)
            counts.append(entry.count)
        }
    }

    /// A histogram of the given colours (ascending, no repeats) and counts.
    public init(colors: [UInt32], counts: [Int]) {
        precondition(colors.count == counts.count, "one count per colour")
        self.colors = colors
        self.counts = counts
    }
}

/// An exported GIF's colour table: at most 255 colours (the 256th index is transparent),
/// and the index of every colour of the pictures it was made from.
public struct GIFPalette: Sendable, Equatable {
    /// RGB triples.
    public let rgb: [UInt8]
    /// Colour (0xRRGGBB) to index, for every colour of the histograms.
    let lookup: ColorCounts

    /// Entries.
    public var count: Int { rgb.count / 3 }

    /// The table as the GIF holds it: the colours, then the transparent index's entry.
    var table: [UInt8] { rgb + [0, 0, 0] }

    /// The table of pictures with these histograms: their colours, exactly, when there are at
    /// most 255; else a median cut of them to 255 (see `GIFLoopEncoder.medianCut`).
    public init(_ histograms: [ColorHistogram]) {
        var total: [UInt32: Int] = [:]
        for histogram in histograms {
            for (color, count) in zip(histogram.colors, histogram.counts) { total[color, default: 0] += count }
        }
        var lookup = ColorCounts()
        if total.count <= 255 {
            rgb = GIFLoopEncoder.exact(Array(total.keys), into: &lookup)
        } else {
            let cut = GIFLoopEncoder.medianCut(total, to: 255)
            for (key, index) in cut.index { lookup.set(key, value: Int32(index), adding: true) }
            rgb = cut.palette
        }
        self.lookup = lookup
    }

    public static func == (a: GIFPalette, b: GIFPalette) -> Bool { a.rgb == b.rgb }
}

extension GIFLoopEncoder {
    /// The bounding box of the pixels that differ between two canvases; width 0 when none.
    static func changedRect(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> (Int, Int, Int, Int) {
        var x0 = width, y0 = height, x1 = -1, y1 = -1
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                let rowBytes = width * 3
                for y in 0..<height {
                    let row = y * rowBytes
                    // Most rows are unchanged: compare them whole first.
                    if memcmp(a.baseAddress! + row, b.baseAddress! + row, rowBytes) == 0 { continue }
                    y0 = min(y0, y)
                    y1 = y
                    var left = 0, right = width - 1
                    while memcmp(a.baseAddress! + row + left * 3, b.baseAddress! + row + left * 3, 3) == 0 { left += 1 }
                    while memcmp(a.baseAddress! + row + right * 3, b.baseAddress! + row + right * 3, 3) == 0 { right -= 1 }
                    x0 = min(x0, left)
                    x1 = max(x1, right)
                }
            }
        }
        return x1 < 0 ? (0, 0, 0, 0) : (x0, y0, x1 - x0 + 1, y1 - y0 + 1)
    }

    /// Every colour its own entry, in key order; `lookup` then maps each to its index.
    static func exact(_ keys: [UInt32], into lookup: inout ColorCounts) -> [UInt8] {
        var palette: [UInt8] = []
        for (i, key) in keys.sorted().enumerated() {
            palette += [UInt8(key >> 16), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF)]
            lookup.set(key, value: Int32(i), adding: true)
        }
        return palette.isEmpty ? [0, 0, 0] : palette
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

/// The colours of a frame's changed pixels with how often each is drawn, and then each
/// colour's palette index: open addressing over RGB keys (a Swift dictionary costs several
/// times as much per pixel), the last colour remembered (imagery comes in runs).
struct ColorCounts: Sendable {
    private static let empty = UInt32.max
    private var keys = [UInt32](repeating: ColorCounts.empty, count: 1024)
    private var values = [Int32](repeating: 0, count: 1024)
    private var used = 0
    private var lastKey = ColorCounts.empty
    private var lastSlot = 0

    /// Counts one pixel of colour `key` (0xRRGGBB).
    mutating func add(_ key: UInt32) {
        if key == lastKey {
            values[lastSlot] += 1
            return
        }
        let slot = find(key)
        if keys[slot] == Self.empty {
            keys[slot] = key
            values[slot] = 0
            used += 1
            if used * 2 > keys.count {
                grow()
                return add(key)
            }
        }
        values[slot] += 1
        lastKey = key
        lastSlot = slot
    }

    /// The colours and their counts, in no particular order.
    func entries() -> [(key: UInt32, count: Int)] {
        var out: [(key: UInt32, count: Int)] = []
        out.reserveCapacity(used)
        for i in keys.indices where keys[i] != Self.empty { out.append((keys[i], Int(values[i]))) }
        return out
    }

    /// Sets colour `key`'s value (its palette index), adding the colour when asked.
    mutating func set(_ key: UInt32, value: Int32, adding: Bool = false) {
        var slot = find(key)
        if keys[slot] != key {
            guard adding else { return }
            keys[slot] = key
            used += 1
            if used * 2 > keys.count {
                grow()
                slot = find(key)
            }
        }
        values[slot] = value
        lastKey = ColorCounts.empty
    }

    /// The value of a colour, -1 when it is not held.
    mutating func value(_ key: UInt32) -> Int32 {
        if key != lastKey {
            let slot = find(key)
            guard keys[slot] == key else { return -1 }
            lastKey = key
            lastSlot = slot
        }
        return values[lastSlot]
    }

    private func find(_ key: UInt32) -> Int {
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 10) & mask
        while keys[slot] != Self.empty && keys[slot] != key { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != Self.empty }
        keys = [UInt32](repeating: Self.empty, count: keys.count * 2)
        values = [Int32](repeating: 0, count: keys.count)
        for (key, value) in old {
            let slot = find(key)
            keys[slot] = key
            values[slot] = value
        }
        lastKey = Self.empty
    }
}
