/// Tiles that could not be had (or used), grouped by animation and cause: a build with 40
/// missing tiles says so in one line with a count, a few examples and the hint that fits
/// the cause, instead of 40 lines repeating the same words.
struct TileProblemGroups: Sendable {
    /// One animation's tiles with one cause.
    struct Group: Sendable {
        var animation: String
        /// The first tile's problem: the group's words (with its body excerpt, if any).
        var problem: TileProblem
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

    /// Groups `tiles`: one group per animation and `TileProblem.groupKey`.
    init(_ tiles: [FailedTile]) {
        var groups: [Group] = []
        var position: [String: [TileProblem: Int]] = [:]
        // Animations keep the order they came in (the config's); within one, frame order.
        var animationOrder: [String: Int] = [:]
        for tile in tiles where animationOrder[tile.animation] == nil { animationOrder[tile.animation] = animationOrder.count }
        let ordered = tiles.enumerated().sorted {
            (animationOrder[$0.element.animation] ?? 0, $0.element.frame, $0.offset)
                < (animationOrder[$1.element.animation] ?? 0, $1.element.frame, $1.offset)
        }
        for (_, tile) in ordered {
            let key = tile.problem.groupKey
            if let i = position[tile.animation]?[key] {
                groups[i].tiles.append(tile)
            } else {
                position[tile.animation, default: [:]][key] = groups.count
                groups.append(Group(animation: tile.animation, problem: tile.problem, tiles: [tile]))
            }
        }
        self.groups = groups
    }

    /// The lines of a failed build: per group a count and the cause, its examples, and its
    /// hint.
    func failureLines(tolerated: Bool = false) -> [String] {
        groups.flatMap { group in
            var lines = ["\(group.animation): \(Self.count(group)): \(group.problem)"]
            lines.append("  e.g. " + Self.exampleList(group))
            if let hint = group.problem.hint(tolerated: tolerated) { lines.append("  hint: \(hint)") }
            return lines
        }
    }

    /// One warning per group of a build that drew them transparent (`missing: transparent`).
    func transparentWarnings() -> [String] {
        groups.map { group in
            var line =
                "\(group.animation): \(Self.count(group)) drawn transparent (missing: transparent): \(group.problem); e.g. \(Self.exampleList(group))"
            if let hint = group.problem.hint(tolerated: true) { line += "; hint: \(hint)" }
            return line
        }
    }

    /// `matsite check`'s lines: a lone probe as it failed, several with one cause as one
    /// line with their count and examples; then the hint on its own line.
    func checkLines(tolerated: Bool) -> [String] {
        groups.map { group in
            let line =
                group.tiles.count == 1
                ? "frame \(group.tiles[0].frame): \(group.tiles[0].locator): \(group.problem)"
                : "\(group.tiles.count) probes (\(group.frames) frames): \(group.problem); e.g. \(Self.exampleList(group))"
            return group.problem.hint(tolerated: tolerated).map { line + "\n    hint: " + $0 } ?? line
        }
    }
}

private extension TileProblemGroups {
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
