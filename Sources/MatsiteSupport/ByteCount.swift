import Foundation

/// Byte counts for people, in decimal units: `812 B`, `1.2 MB`.
public enum ByteCount {
    /// `bytes` with one decimal in the largest unit under 1000 of it.
    public static func text(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var value = Double(bytes), unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
