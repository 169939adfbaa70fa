/// Images of one size stacked top to bottom into one PNG: cell `k` is rows
/// `k * height ..< (k + 1) * height`, its pixels exactly the image's. A page fetches and decodes
/// one file where it would fetch several small ones (a multi-level frame's first backgrounds,
/// docs/player.md "Background sheets").
public enum ImageSheet {
    /// The PNG of `cells` (each a PNG's bytes, every one `width` x `height`) stacked in order.
    /// When every cell is a palette PNG with one same palette, the sheet keeps that palette and
    /// the cells' indices; else it is RGBA. `level` is the zlib (or libdeflate) level.
    public static func stack(_ cells: [[UInt8]], width: Int, height: Int, level: Int) throws(ImageError) -> [UInt8] {
        guard !cells.isEmpty else { throw ImageError(.encode, "a sheet needs at least one image", format: "sheet") }
        let decoder = TileDecoder(maxWidth: width, maxHeight: height)
        var decoded: [DecodedImage] = []
        for (k, cell) in cells.enumerated() {
            let image = try decoder.decode(cell, keepIndices: true)
            guard image.width == width, image.height == height else {
                throw ImageError(
                    .encode, "image \(k + 1) of the sheet is \(image.width) x \(image.height), not \(width) x \(height)", format: "sheet")
            }
            decoded.append(image)
        }
        let palette = decoded[0].palette
        if let palette, decoded.allSatisfy({ $0.palette == palette }) {
            return try encode(decoded.flatMap(\.pixels), width: width, height: height * cells.count, format: .indexed(palette), level: level)
        }
        var rgba: [UInt8] = []
        rgba.reserveCapacity(width * height * 4 * cells.count)
        for (k, image) in decoded.enumerated() {
            rgba += image.palette == nil ? image.pixels : try decoder.decode(cells[k], keepIndices: false).pixels
        }
        return try encode(rgba, width: width, height: height * cells.count, format: .rgba, level: level)
    }

    private static func encode(_ pixels: [UInt8], width: Int, height: Int, format: PixelFormat, level: Int) throws(ImageError) -> [UInt8] {
        do throws(PNGError) {
            return try PNGWriter.encode(width: width, height: height, format: format, pixels: pixels, level: level)
        } catch {
            throw ImageError(.encode, "\(error)", format: "sheet")
        }
    }
}
