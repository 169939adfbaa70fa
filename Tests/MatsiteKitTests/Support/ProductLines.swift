import Foundation

@testable import MatsiteKit

/// Keeps the one-line summaries a build reports for its products: levels and exports.
final class ProductLines: BuildReporter, @unchecked Sendable {
    private let recorded = LockedBox([String]())
    var lines: [String] { recorded.withLock { $0 } }
    func planned(animation: String, frames: Int, tiles: Int) {}
    func tileLoaded(bytes: Int) {}
    func frameDone(animation: String, index: Int, reused: Bool) {}
    func warning(_ message: String) {}
    func detail(_ message: String) {}
    func levelsPublished(animation: String, summary: String) { recorded.withLock { $0.append(summary) } }
    func exported(animation: String, summary: String) { recorded.withLock { $0.append(summary) } }
}
