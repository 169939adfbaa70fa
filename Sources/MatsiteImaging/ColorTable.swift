/// A small set of RGBA colours (at most 256) with an index for each: counts a frame's
/// distinct colours while tiles are read (and which colours touch, to order the palette),
/// then maps RGBA pixels to palette indices.
///
/// Open addressing over 1024 slots, with the last colour remembered: map imagery comes in
/// runs, so most pixels cost one comparison.
struct ColorTable {
    /// Most colours a PNG palette holds.
    static let capacity = 256
    private var keys = [UInt32](repeating: 0, count: 1024)
    private var values = [Int16](repeating: -1, count: 1024)
    private var lastKey: UInt32 = 0
    private var lastValue: Int16 = -1
    /// The colours in the order they were added, as little-endian RGBA words.
    private(set) var colors: [UInt32] = []
    /// Row-neighbour counts, 256 x 256 by insertion index (allocated when rows are added).
    private var neighbours: [UInt32] = []

    /// The number of colours held.
    var count: Int { colors.count }

    /// Adds a colour; false when it is new and the table is full (the frame has more than
    /// 256 colours).
    mutating func insert(_ color: UInt32) -> Bool {
        if color == lastKey && lastValue >= 0 { return true }
        var slot = Self.slot(color)
        while values[slot] >= 0 {
            if keys[slot] == color {
                lastKey = color
                lastValue = values[slot]
                return true
            }
            slot = (slot + 1) & 1023
        }
        guard colors.count < Self.capacity else { return false }
        keys[slot] = color
        values[slot] = Int16(colors.count)
        lastKey = color
        lastValue = values[slot]
        colors.append(color)
        return true
    }

    /// The index of a colour, or nil when the table does not hold it.
    mutating func index(of color: UInt32) -> UInt8? {
        if color == lastKey && lastValue >= 0 { return UInt8(lastValue) }
        var slot = Self.slot(color)
        while values[slot] >= 0 {
            if keys[slot] == color {
                lastKey = color
                lastValue = values[slot]
                return UInt8(values[slot])
            }
            slot = (slot + 1) & 1023
        }
        return nil
    }

    /// Adds every pixel of a rectangle of RGBA rows; false as soon as a colour does not fit.
    /// Also counts, per pair of colours, how often they touch along a row (see `ordered`).
    mutating func insert(rows start: UnsafeRawPointer, width: Int, height: Int, stride: Int) -> Bool {
        if neighbours.isEmpty { neighbours = [UInt32](repeating: 0, count: Self.capacity * Self.capacity) }
        for y in 0..<height {
            let row = start + y * stride
            var previous = -1
            var previousColor: UInt32 = 0
            for x in 0..<width {
                let color = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                if previous >= 0 && color == previousColor { continue }
                guard insert(color) else { return false }
                let index = Int(lastValue)
                if previous >= 0 { neighbours[previous * Self.capacity + index] &+= 1 }
                previous = index
                previousColor = color
            }
        }
        return true
    }

    /// How often colour `a` met colour `b` along a row, either way round.
    private func touches(_ a: Int, _ b: Int) -> UInt32 {
        neighbours.isEmpty ? 0 : neighbours[a * Self.capacity + b] &+ neighbours[b * Self.capacity + a]
    }

    /// The colours as a palette ordered so that colours which touch often get neighbouring
    /// indices: a chain that starts at the lowest colour (transparent ones first) and always
    /// continues with the unused colour touching its end most (ties and dead ends: the lowest
    /// unused colour). On map imagery this recovers the order of the levels (radar dBZ steps),
    /// which is what makes the PNG Sub filter pay; the same colours and counts give the same
    /// palette whatever the tiles' order.
    func orderedPalette() -> Palette {
        func lower(_ a: UInt32, _ b: UInt32) -> Bool {
            let alphaA = a >> 24, alphaB = b >> 24
            if (alphaA == 255) != (alphaB == 255) { return alphaA != 255 }
            return a.byteSwapped < b.byteSwapped
        }
        var unused = Set(colors.indices)
        var chain: [Int] = []
        while !unused.isEmpty {
            var next: Int?
            if let end = chain.last {
                var best: UInt32 = 0
                for candidate in unused {
                    let count = touches(end, candidate)
                    if count > best || (count == best && count > 0 && next.map({ lower(colors[candidate], colors[$0]) }) == true) {
                        best = count
                        next = candidate
                    }
                }
            }
            let chosen = next ?? unused.min { lower(colors[$0], colors[$1]) }!
            unused.remove(chosen)
            chain.append(chosen)
        }
        var rgba: [UInt8] = []
        rgba.reserveCapacity(chain.count * 4)
        for color in chain.map({ colors[$0] }) {
            rgba += [UInt8(color & 0xFF), UInt8((color >> 8) & 0xFF), UInt8((color >> 16) & 0xFF), UInt8(color >> 24)]
        }
        return Palette(rgba: rgba)
    }

    /// A table holding a palette's entries at their own indices.
    init(palette: Palette) {
        for i in 0..<palette.count {
            let c = palette.color(i)
            let color = UInt32(c.r) | UInt32(c.g) << 8 | UInt32(c.b) << 16 | UInt32(c.a) << 24
            var slot = Self.slot(color)
            while values[slot] >= 0 && keys[slot] != color { slot = (slot + 1) & 1023 }
            if values[slot] < 0 {
                keys[slot] = color
                values[slot] = Int16(i)
            }
            colors.append(color)
        }
    }

    /// An empty table.
    init() {}

    private static func slot(_ color: UInt32) -> Int {
        Int((color &* 0x9E37_79B1) >> 22)
    }
}
