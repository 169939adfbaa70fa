/// The encoded formats a tile may come in, told apart by their first bytes (a tile
/// server's URL or Content-Type says nothing reliable about them).
public enum ImageKind: String, Sendable, CaseIterable {
    /// PNG: the 8-byte signature.
    case png = "PNG"
    /// JPEG (JFIF, Exif or bare): SOI followed by a marker.
    case jpeg = "JPEG"
    /// WebP: a RIFF container of form type WEBP.
    case webp = "WebP"

    /// The format `bytes` start like, or nil when they are none of the three.
    public static func sniff(_ bytes: [UInt8]) -> ImageKind? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.count >= 12, bytes.starts(with: [0x52, 0x49, 0x46, 0x46]),
            bytes[8] == 0x57, bytes[9] == 0x45, bytes[10] == 0x42, bytes[11] == 0x50
        {
            return .webp
        }
        return nil
    }
}
