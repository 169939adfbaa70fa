import Foundation

/// A value behind a lock: matsite's one lock type, for the little shared state kept across
/// tasks (the servers' connections, the cache's index, the fetch counters, the console's
/// progress, which is why the command line may use it too). State goes inside the box so it cannot be touched without the lock.
/// `Synchronization.Mutex` would do, but it needs macOS 15 while the package supports
/// macOS 14.
package final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
