import Foundation
import Yams

/// The machine-facing sections: `http`, `cache` and `limits`.
extension ConfigLoader {
    static func http(_ node: Node, _ r: inout YAMLReader) throws -> HTTPOptions {
        let f = try r.fields(
            node, "http",
            allowed: [
                "user_agent", "concurrency", "timeout_s", "retries", "retry_delay_ms",
                "max_retry_after_s", "max_tile_bytes", "headers", "missing_ttl_s", "retry_budget",
                "max_failures_in_a_row", "stall_s",
            ])
        var options = HTTPOptions()
        if let n = f["user_agent"] { options.userAgent = try nonEmpty(r.string(n, "http.user_agent"), n, "http.user_agent", r) }
        if let n = f["concurrency"] { options.concurrency = try r.int(n, "http.concurrency", in: 1...64) }
        if let n = f["timeout_s"] { options.timeoutSeconds = try r.double(n, "http.timeout_s", in: 0.1...600) }
        if let n = f["retries"] { options.retries = try r.int(n, "http.retries", in: 0...10) }
        if let n = f["retry_budget"] { options.retryBudget = try r.int(n, "http.retry_budget", in: 0...100_000) }
        if let n = f["max_failures_in_a_row"] { options.maxFailuresInARow = try r.int(n, "http.max_failures_in_a_row", in: 1...100_000) }
        if let n = f["stall_s"] { options.stallSeconds = try r.double(n, "http.stall_s", in: 0.1...3600) }
        if let n = f["retry_delay_ms"] { options.retryDelayMilliseconds = try r.int(n, "http.retry_delay_ms", in: 0...60_000) }
        if let n = f["max_retry_after_s"] { options.maxRetryAfterSeconds = try r.double(n, "http.max_retry_after_s", in: 0...3600) }
        if let n = f["missing_ttl_s"] { options.missingTTLSeconds = try r.double(n, "http.missing_ttl_s", in: 0...604_800) }
        if let n = f["max_tile_bytes"] { options.maxTileBytes = try r.int(n, "http.max_tile_bytes", in: 1024...(256 << 20)) }
        if let n = f["headers"] {
            guard case .mapping(let mapping) = n else { throw r.error(n, "http.headers", "expected a mapping of header names to values") }
            for (key, value) in mapping {
                let name = try r.string(key, "http.headers")
                let path = "http.headers.\(name)"
                let text = try r.string(value, path)
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
                    throw r.error(key, path, "not a valid header name")
                }
                // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
                guard !text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                    throw r.error(value, path, "header values must be one line without control characters")
                }
                options.headers[name] = text
            }
        }
        return options
    }

    static func cache(_ node: Node, _ r: inout YAMLReader) throws -> CacheOptions {
        var options = CacheOptions()
        if case .scalar = node {
            options.path = try nonEmpty(r.string(node, "cache"), node, "cache", r)
            return options
        }
        let f = try r.fields(node, "cache", allowed: ["path", "max_size"])
        if let n = f["path"] { options.path = try nonEmpty(r.string(n, "cache.path"), n, "cache.path", r) }
        if let n = f["max_size"] {
            let text = try r.string(n, "cache.max_size")
            guard let bytes = parseSize(text) else {
                throw r.error(n, "cache.max_size", "expected a size like 500MB or 2GB, found \"\(text)\"")
            }
            options.maxSize = bytes
        }
        return options
    }

    static func parseSize(_ text: String) -> Int64? {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int64)] = [("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            guard let value = Double(t.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), value >= 0 else { return nil }
            return Int64(value * Double(factor))
        }
        return Int64(t)
    }

    static func limits(_ node: Node, _ r: inout YAMLReader) throws -> Limits {
        let f = try r.fields(node, "limits", allowed: ["max_frame_width", "max_frame_height", "max_frames"])
        var limits = Limits()
        if let n = f["max_frame_width"] { limits.maxFrameWidth = try r.int(n, "limits.max_frame_width", in: 1...65535) }
        if let n = f["max_frame_height"] { limits.maxFrameHeight = try r.int(n, "limits.max_frame_height", in: 1...65535) }
        if let n = f["max_frames"] { limits.maxFrames = try r.int(n, "limits.max_frames", in: 1...10_000) }
        return limits
    }
}
