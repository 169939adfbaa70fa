/// The order in which `matsite deploy` uploads a site, so a viewer never gets a page whose
/// manifest, or a manifest whose frames, are not there yet.
public enum DeployWave: Int, Sendable, CaseIterable, Comparable {
    /// Files named by their content (frames, their pyramid levels and fallback tiles, point
    /// levels, legends, exports, assets): a new name for new bytes, so nothing live refers
    /// to them yet.
    case hashed = 1
    /// Fixed-name files that manifests and pages refer to (posters, the demo base map).
    case fixed
    /// `manifest.json` files: each animation's, then the site index.
    case manifests
    /// `*.html` pages: each animation's, then the site's own.
    case pages

    /// The wave's name in progress lines and the dry-run plan.
    public var title: String {
        switch self {
        case .hashed: "content-hashed files"
        case .fixed: "fixed-name files"
        case .manifests: "manifests"
        case .pages: "pages"
        }
    }

    /// `Cache-Control` for the wave's uploads: a year and immutable for names that change
    /// with their bytes; revalidated on every use for the rest.
    public var cacheControl: String {
        self == .hashed ? "public, max-age=31536000, immutable" : "no-cache"
    }

    /// The wave a site path belongs to.
    public static func of(_ path: String) -> DeployWave {
        let parts = path.split(separator: "/")
        guard let name = parts.last else { return .fixed }
        if name.hasSuffix(".html") { return .pages }
        if name == "manifest.json", parts.count <= 2 { return .manifests }
        // The first part is an animation's id or `assets`: an id may look like a hash
        // (`storm-20261121`), so only the parts below it are read as names.
        if parts.count > 1, parts.dropFirst().contains(where: isHashedName) { return .hashed }
        return .fixed
    }

    public static func < (a: DeployWave, b: DeployWave) -> Bool { a.rawValue < b.rawValue }

    /// A name carrying a content hash the way the publisher writes them:
    /// `1a2b3c4d5e6f7a8b.png` and `1a2b3c4d5e6f7a8b/` (a frame, its levels' folder, a
    /// frame's fallback tiles' folder), `player.0dc16f30.js`, `leaflet-8162c049`,
    /// `legend-89abcdef.png`, `z05-<12 hex>.json`.
    static func isHashedName(_ name: Substring) -> Bool {
        let stem = name.split(separator: ".", omittingEmptySubsequences: false)
        // `hash.ext` / `hash`: the name before its extension is the hash itself.
        if let base = stem.first, isHex(base) { return true }
        // `stem.hash.ext` / `stem.hash`: a dot-separated part of 8+ hex digits, not the first.
        if stem.count > 1, stem.dropFirst().contains(where: isHex) { return true }
        // `stem-hash(.ext)`: the last dash-separated part of the name before its extension.
        if let base = stem.first, let dash = base.lastIndex(of: "-") {
            return isHex(base[base.index(after: dash)...])
        }
        return false
    }

    static func isHex(_ text: Substring) -> Bool {
        text.count >= 8 && text.allSatisfy { $0.isASCII && $0.isHexDigit && !$0.isUppercase }
    }
}
