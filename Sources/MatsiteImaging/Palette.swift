/// An indexed image's colours: RGBA entries, alpha from the PNG's tRNS chunk.
public struct Palette: Hashable, Sendable {
    /// Entries as RGBA bytes, four per entry.
    public let rgba: [UInt8]

    /// Creates a palette from RGBA bytes (a multiple of four, at most 256 entries).
    public init(rgba: [UInt8]) {
        precondition(rgba.count % 4 == 0 && rgba.count <= 1024, "palette must hold 1-256 RGBA entries")
        self.rgba = rgba
    }

    /// Number of entries.
    public var count: Int { rgba.count / 4 }

    /// The first fully transparent entry, if any: what a missing tile is filled with.
    public var transparentIndex: UInt8? {
        for i in 0..<count where rgba[i * 4 + 3] == 0 { return UInt8(i) }
        return nil
    }

    /// The RGBA bytes of entry `index`.
    public func color(_ index: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        (rgba[index * 4], rgba[index * 4 + 1], rgba[index * 4 + 2], rgba[index * 4 + 3])
    }
}
