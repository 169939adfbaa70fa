import Foundation

/// Path helpers shared by the publisher and the preview server.
package enum FilePath {
    /// The canonical path (every symlink resolved), or nil when it does not exist.
    package static func real(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
