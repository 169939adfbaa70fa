import Foundation

/// What a shard build (`build --only`) adds to its staged site, under the output's lock,
/// just before it publishes: every other animation's published files as they are, and
/// their manifests, so that the site index it writes lists every animation. A whole build
/// does the same for the animations that failed (`only:`): they keep their published version.
///
/// It reads the output as it is at that moment (another shard may have published since
/// this one began), which is why it runs under the lock and never earlier.
struct ShardAssembly: Sendable {
    /// The site as published now.
    let current: PreviousSite
    /// The animations this build made.
    let built: Set<String>

    /// Links the other animations' files (of those in `only`, when given) into `writer`'s
    /// staged site; returns every animation's manifest in config order, and the ids of
    /// those never published.
    func keepOthers(
        _ manifests: [AnimationManifest], config: SiteConfig, into writer: SiteWriter, only: [String]? = nil
    ) throws -> (manifests: [AnimationManifest], unpublished: [String]) {
        var byId = Dictionary(manifests.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var unpublished: [String] = []
        let others = config.animations.map(\.id).filter { !built.contains($0) && (only?.contains($0) ?? true) }
        let filesById = Dictionary(grouping: current.files.keys) { $0.split(separator: "/", maxSplits: 1).first.map(String.init) ?? "" }
        for id in others {
            guard let manifest = current.manifest(animation: id), let files = filesById[id] else {
                unpublished.append(id)
                continue
            }
            for relative in files.sorted() where try !writer.link(relative) {
                throw ShardFileGoneError(animation: id, file: relative)
            }
            byId[id] = manifest
        }
        return (config.animations.compactMap { byId[$0.id] }, unpublished)
    }
}

/// Another animation's published file could not be kept by a shard build.
struct ShardFileGoneError: Swift.Error, CustomStringConvertible, Equatable {
    let animation: String
    /// Relative to the site.
    let file: String

    var description: String {
        "animation \(animation): cannot keep its published file \(file) (it changed while this shard was publishing?)"
    }
}
