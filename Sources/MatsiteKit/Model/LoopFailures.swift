import Foundation

/// The animations of one build that failed, each with what failed it, in the order met.
///
/// Each loop stands on its own: what fails one animation (its feed, its index, its point
/// layers, its tiles) fails that animation only. `Builder` runs each animation's work
/// through `run`, which records the error instead of throwing it; the animation then keeps
/// its published version and the others publish.
struct LoopFailures: Sendable {
    /// One failed animation.
    struct Failure: Sendable {
        /// The animation's id.
        var id: String
        /// What failed it (stamped with its stage).
        var error: any Error
    }

    /// In the order met.
    private(set) var failures: [Failure] = []
    /// Failed animations that no build has published yet: out of the site index.
    private(set) var unpublished: Set<String> = []

    /// True when nothing failed.
    var isEmpty: Bool { failures.isEmpty }

    /// The failed animations' ids, in the order met.
    var ids: [String] { failures.map(\.id) }

    /// True when `id` failed.
    func contains(_ id: String) -> Bool {
        failures.contains { $0.id == id }
    }

    /// What failed `id`, if it did.
    func error(of id: String) -> (any Error)? {
        failures.first { $0.id == id }?.error
    }

    /// Runs one animation's work; an error it throws fails that animation alone. A
    /// cancellation (the build's deadline) still ends the whole build.
    mutating func run(_ id: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            try record(id, error)
        }
    }

    /// `run` for work that does not wait.
    mutating func run(_ id: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            try record(id, error)
        }
    }

    /// Records the animations of `ids` as never published.
    mutating func markUnpublished(_ ids: [String]) {
        unpublished.formUnion(ids.filter(contains))
    }

    /// The error of a build in which every animation failed: the one error, or each
    /// animation's.
    var wholeError: (any Error)? {
        switch failures.count {
        case 0: nil
        case 1: failures[0].error
        default: BuildError.loopsFailed(failures.map { ($0.id, $0.error) })
        }
    }

    private mutating func record(_ id: String, _ error: any Error) throws {
        if error is CancellationError || Task.isCancelled { throw error }
        if !contains(id) { failures.append(Failure(id: id, error: error)) }
    }
}
