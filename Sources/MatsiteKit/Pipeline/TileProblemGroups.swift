/// Tiles that could not be had (or used), grouped by animation and cause: a build with 40
/// missing tiles says so in one line with a count, a few examples and one hint that fits
/// the cause, instead of 40 lines repeating the same words.
struct TileProblemGroups: Sendable {
    /// What kind of problem a group is, for the hint that fits it.
    enum Cause: Hashable, Sendable {
        /// The source has no tile there (HTTP 204/404, no file, no archive row).
        case missing
        /// The server refused this client (HTTP 401/403).
        case refused
        /// The tile's pixel size is not the configured `tile_size`.
        case wrongSize(found: Int, expected: Int)
        /// Anything else: damaged bytes, a server error, a timeout.
        case other

        /// The cause of a problem given in `reason`'s words, as the loaders and the stitcher
        /// word them.
        init(reason: String) {
            if reason.hasPrefix("HTTP 404") || reason.hasPrefix("HTTP 204") || reason.hasPrefix("no file ")
                || reason.hasPrefix("no row in ")
            {
                self = .missing
            } else if reason.hasPrefix("access refused") {
                self = .refused
            } else if let sizes = Self.sizes(in: reason) {
                self = .wrongSize(found: sizes.found, expected: sizes.expected)
            } else {
                self = .other
            }
        }

        /// "tile is 512x512 pixels, expected 256x256" -> (512, 256); square tiles only (a
        /// tile server's tiles are square; any other shape is simply a bad tile).
        private static func sizes(in reason: String) -> (found: Int, expected: Int)? {
            let words = reason.split(separator: " ")
            guard words.count >= 6, words[0] == "tile", words[1] == "is", words[3] == "pixels,", words[4] == "expected"
            else { return nil }
            let found = words[2].split(separator: "x"), expected = words[5].split(separator: "x")
            guard found.count == 2, found[0] == found[1], let f = Int(found[0]), expected.count == 2, let e = Int(expected[0])
            else { return nil }
            return (f, e)
        }
    }

    /// One animation's tiles with one cause, worded alike.
    struct Group: Sendable {
        var animation: String
        var cause: Cause
        /// The problem in words (with the tile's own path taken out when it named it).
        var reason: String
        /// Every tile of the group, in frame then tile order.
        var tiles: [FailedTile]

        /// Frames the group touches.
        var frames: Int { Set(tiles.map(\.frame)).count }

        /// A few tiles to show: the first two and the last, so that a range shows its ends.
        var examples: [FailedTile] {
            tiles.count <= 3 ? tiles : [tiles[0], tiles[1], tiles[tiles.count - 1]]
        }
    }

    /// The groups, in the order their first tile came.
    let groups: [Group]

    /// Groups `tiles`.
    init(_ tiles: [FailedTile]) {
        var groups: [Group] = []
        var position: [String: Int] = [:]
        // Animations keep the order they came in (the config's); within one, frame order.
        var animationOrder: [String: Int] = [:]
        for tile in tiles where animationOrder[tile.animation] == nil { animationOrder[tile.animation] = animationOrder.count }
        let ordered = tiles.enumerated().sorted {
            (animationOrder[$0.element.animation] ?? 0, $0.element.frame, $0.offset)
                < (animationOrder[$1.element.animation] ?? 0, $1.element.frame, $1.offset)
        }
        for (_, tile) in ordered {
            let reason = Self.words(tile)
            let key = tile.animation + "\u{0}" + reason
            if let i = position[key] {
                groups[i].tiles.append(tile)
            } else {
                position[key] = groups.count
                groups.append(Group(animation: tile.animation, cause: Cause(reason: tile.reason), reason: reason, tiles: [tile]))
            }
        }
        self.groups = groups
    }

    /// The lines of a failed build (`missing: fail`): per group a count and the cause, its
    /// examples, and its hint.
    func failureLines() -> [String] {
        groups.flatMap { group in
            var lines = ["\(group.animation): \(Self.count(group)): \(group.reason)"]
            lines.append("  e.g. " + Self.exampleList(group))
            if let hint = Self.hint(group.cause, tolerated: false) { lines.append("  hint: \(hint)") }
            return lines
        }
    }

    /// One warning per group of a build that drew them transparent (`missing: transparent`).
    func transparentWarnings() -> [String] {
        groups.map { group in
            var line = "\(group.animation): \(Self.count(group)) drawn transparent (missing: transparent): \(group.reason); e.g. \(Self.exampleList(group))"
            if let hint = Self.hint(group.cause, tolerated: true) { line += "; \(hint)" }
            return line
        }
    }

    /// `matsite check`'s problem lines: a lone probe as it failed, several with one cause as
    /// one line with their count and examples; then the hint.
    func checkLines(tolerated: Bool) -> [String] {
        groups.map { group in
            let line =
                group.tiles.count == 1
                ? "frame \(group.tiles[0].frame): \(group.tiles[0].locator): \(group.reason)"
                : "\(group.tiles.count) probes (\(group.frames) frames): \(group.reason); e.g. \(Self.exampleList(group))"
            // The hint on its own line under its problem.
            return Self.hint(group.cause, tolerated: tolerated).map { line + "\n    hint: " + $0 } ?? line
        }
    }

    /// The hint that fits a cause, or nil when the reason already says what to do.
    static func hint(_ cause: Cause, tolerated: Bool) -> String? {
        switch cause {
        case .missing:
            tolerated
                ? nil
                : "the source has no tile there: check bbox, zoom and times against what it serves, or set missing: transparent to draw absent tiles empty"
        case .refused:
            nil
        case .wrongSize(let found, let expected):
            found != expected
                ? "the source's tiles are \(found) pixels: set tile_size: \(found) in the animation's source (missing: transparent would only hide every tile)"
                : nil
        case .other:
            tolerated ? nil : "set missing: transparent to draw such tiles empty and publish the rest"
        }
    }
}

private extension TileProblemGroups {
    /// The reason, without the tile's own path in it ("no file /a/1/2.png" and "no file
    /// /a/1/3.png" are one problem).
    static func words(_ tile: FailedTile) -> String {
        guard tile.locator.count > 1, tile.reason.contains(tile.locator) else { return tile.reason }
        return tile.reason.replacingOccurrences(of: " " + tile.locator, with: "").replacingOccurrences(of: tile.locator, with: "")
    }

    static func count(_ group: TileProblemGroups.Group) -> String {
        let tiles = group.tiles.count == 1 ? "1 tile" : "\(group.tiles.count) tiles"
        return group.frames == 1 ? "\(tiles) in frame \(group.tiles[0].frame)" : "\(tiles) in \(group.frames) frames"
    }

    static func exampleList(_ group: TileProblemGroups.Group) -> String {
        let shown = group.examples.map { "frame \($0.frame): \($0.locator)" }
        guard group.tiles.count > shown.count, let last = shown.last else { return shown.joined(separator: ", ") }
        return shown.dropLast().joined(separator: ", ") + ", ... " + last
    }
}
