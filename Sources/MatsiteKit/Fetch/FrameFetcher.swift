import MatsiteImaging

/// Loads the tiles of one frame, all at once (the HTTP fetcher bounds requests per host),
/// hashing each in parallel unless its source already knows the digest.
struct FrameFetcher: Sendable {
    let loader: any TileLoader
    let reporter: any BuildReporter

    /// A frame's tiles as loaded, by position in the frame's tile list.
    struct Tiles: Sendable {
        var contents: [TileContent]
        var identities: [TileIdentity]
        /// Tiles that could not be had, with why (unordered).
        var problems: [(index: Int, problem: TileProblem)]
    }

    /// The tiles' identities when every one is known without loading it (fresh cache
    /// entries, through the cache's index); nil means "load them to know".
    func knownIdentities(_ locators: [TileLocator]) -> [TileIdentity]? {
        loader.freshDigests(locators)?.map { .image($0) }
    }

    /// Loads every tile; never throws: a tile that cannot be had is a problem, not an error.
    func fetch(_ locators: [TileLocator]) async -> Tiles {
        var tiles = Tiles(
            contents: Array(repeating: .empty, count: locators.count),
            identities: Array(repeating: .absent, count: locators.count), problems: [])
        let loader = self.loader
        await withTaskGroup(of: (Int, TileOutcome).self) { group in
            for (i, locator) in locators.enumerated() {
                group.addTask {
                    // Hash here, in parallel, unless the cache already knows the digest.
                    let outcome = await loader.load(locator)
                    if case .tile(let bytes, .none) = outcome { return (i, .tile(bytes, digest: TileDigest(of: bytes))) }
                    return (i, outcome)
                }
            }
            for await (i, outcome) in group {
                switch outcome {
                case .tile(let bytes, let digest):
                    tiles.contents[i] = .encoded(bytes)
                    tiles.identities[i] = .image(digest ?? TileDigest(of: bytes))
                    reporter.report(.tileLoaded(bytes: bytes.count))
                case .problem(let problem):
                    tiles.problems.append((i, problem))
                    reporter.report(.tileLoaded(bytes: 0))
                }
            }
        }
        return tiles
    }
}
