/// A counting semaphore for async code: at most `limit` holders at once, waiters served
/// in order.
actor AsyncSemaphore {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A semaphore with `limit` permits.
    init(limit: Int) {
        precondition(limit > 0, "a semaphore needs at least one permit")
        available = limit
    }

    /// Waits for a permit.
    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Returns a permit, waking the longest waiter.
    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }

    /// Runs `body` holding a permit.
    func withPermit<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }
}
