import Foundation

/// A host and port, as connections see them.
struct Endpoint: Hashable, Sendable {
    var host: String
    var port: Int

    /// `host:port`, as messages name it.
    var address: String { TileProblem.address(host, port) }
}

/// What one host (and port) has done this build, shared by every request to it, and the
/// verdicts drawn from it: how many retries it has left (`http.retry_budget`), whether an
/// error body is its answer for good (the same HTTP 500 body twice), and whether it is given up
/// on (down, `http.max_failures_in_a_row` failures in a row, or hung for `http.stall_s`).
/// Once given up, every later request to it fails at once with the reason, and the
/// requests in flight to a hung host are cancelled.
final class HostHealth: Sendable {
    /// The host.
    let endpoint: Endpoint
    private let limits: Limits
    private let state = LockedBox(State())

    struct Limits: Sendable {
        var retryBudget: Int
        var maxFailuresInARow: Int
        var stallSeconds: Double
    }

    init(_ endpoint: Endpoint, limits: Limits) {
        self.endpoint = endpoint
        self.limits = limits
    }

    /// Why the host is not asked any more this build, or nil.
    var givenUp: TileProblem? {
        state.withLock { $0.givenUp }
    }

    /// Gives up on the host for `problem` (the first reason stands); when it hung, the
    /// requests in flight to it are cancelled (they would wait as long again). Returns the
    /// reason that stands.
    @discardableResult
    func giveUp(_ problem: TileProblem) -> TileProblem {
        let (reason, cancels) = state.withLock { state -> (TileProblem, [@Sendable () -> Void]) in
            if let reason = state.givenUp { return (reason, []) }
            state.givenUp = problem
            guard case .stalled = problem else { return (problem, []) }
            return (problem, Array(state.requests.values.compactMap(\.cancel)))
        }
        for cancel in cancels { cancel() }
        return reason
    }

    /// The host answered (any status that is not a failure): its run of failures ends, and
    /// every tenth answer earns it one more retry.
    func answered() {
        state.withLock { state in
            state.failuresInARow = 0
            state.answers += 1
        }
    }

    /// A request failed with `problem`; true when that makes the host's run of failures
    /// reach `http.max_failures_in_a_row`, which gives it up.
    func failed(_ problem: TileProblem) -> Bool {
        let reached = state.withLock { state -> Bool in
            state.failuresInARow += 1
            return state.givenUp == nil && state.failuresInARow >= limits.maxFailuresInARow
        }
        if reached {
            giveUp(.hostFailing(host: endpoint.host, port: endpoint.port, failures: limits.maxFailuresInARow, last: problem))
        }
        return reached
    }

    /// Takes one retry from the host's budget (`http.retry_budget`, plus one per ten answers
    /// it gave: a large build against a mostly healthy host keeps retrying its hiccups);
    /// false when it is spent.
    func takeRetry() -> Bool {
        state.withLock { state in
            guard state.retriesSpent < limits.retryBudget + state.answers / 10 else { return false }
            state.retriesSpent += 1
            return true
        }
    }

    /// Counts an error answer; true when the host already sent this status with this body
    /// this build (the answer is permanent).
    func repeats(status: Int, body: [UInt8]) -> Bool {
        let key = "\(status) \(SHA256.hex(of: body))"
        return state.withLock { state in
            state.errorBodies[key, default: 0] += 1
            return state.errorBodies[key, default: 0] > 1
        }
    }

    /// Runs one request, `exchange`, to the host: it is cancelled when the host is given up
    /// meanwhile, and it gives the host up itself when no byte comes from the host for
    /// `http.stall_s` while it waits. `exchange` calls the `Heard` it is given for each part
    /// of the answer that arrives (the head, each piece of the body).
    func request<T: Sendable>(_ exchange: @escaping @Sendable (Heard) async -> T) async -> T {
        let id = begin()
        defer { end(id) }
        let heard = Heard(health: self, id: id)
        let task = Task { await exchange(heard) }
        if case .stalled = register(id, cancel: { task.cancel() }) { task.cancel() }
        let watchdog = Task { await watch(id) }
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        watchdog.cancel()
        return result
    }

    /// What a request calls when part of its answer arrives.
    struct Heard: Sendable {
        fileprivate let health: HostHealth
        fileprivate let id: Int

        /// The host asked.
        var endpoint: Endpoint { health.endpoint }

        /// The answer's head arrived.
        func head() { health.heard(id, head: true) }

        /// A piece of the body arrived.
        func bytes() { health.heard(id, head: false) }
    }
}

private extension HostHealth {
    struct State {
        var givenUp: TileProblem?
        var failuresInARow = 0
        var retriesSpent = 0
        /// Times each error status and body (its hash) came.
        var errorBodies: [String: Int] = [:]
        /// Requests it answered (not failures).
        var answers = 0
        var requests: [Int: Request] = [:]
        var nextID = 0
        /// Since when the host has sent nothing while a request waited: reset by every byte
        /// from it, and when a request starts with none in flight.
        var quietSince = ContinuousClock.now
    }

    struct Request {
        var cancel: (@Sendable () -> Void)?
        var headArrived = false
    }

    /// How long after the stall time the watchdog looks: a connection attempt that hangs
    /// ends by the client's connect timeout (set to the stall time) first, so that the
    /// message can say what was waited for.
    static let grace: Duration = .seconds(1)

    func begin() -> Int {
        state.withLock { state in
            if state.requests.isEmpty { state.quietSince = .now }
            state.nextID += 1
            state.requests[state.nextID] = Request()
            return state.nextID
        }
    }

    /// Registers the way to cancel a request; returns why the host is given up, if it is.
    func register(_ id: Int, cancel: @escaping @Sendable () -> Void) -> TileProblem? {
        state.withLock { state in
            state.requests[id]?.cancel = cancel
            return state.givenUp
        }
    }

    func end(_ id: Int) {
        state.withLock { _ = $0.requests.removeValue(forKey: id) }
    }

    func heard(_ id: Int, head: Bool) {
        state.withLock { state in
            state.quietSince = .now
            if head { state.requests[id]?.headArrived = true }
        }
    }

    /// Sleeps until the host would be stalled and checks; gives it up when it is, naming
    /// what request `id` waited for.
    func watch(_ id: Int) async {
        let stall = Duration.milliseconds(Int64(limits.stallSeconds * 1000))
        while true {
            let quietSince = state.withLock { state -> ContinuousClock.Instant? in
                state.givenUp == nil && state.requests[id] != nil ? state.quietSince : nil
            }
            guard let quietSince else { return }
            do { try await Task.sleep(until: quietSince + stall + Self.grace, clock: .continuous) } catch { return }
            let phase = state.withLock { state -> TileProblem.TimeoutPhase? in
                guard state.givenUp == nil, let request = state.requests[id], state.quietSince == quietSince else { return nil }
                return request.headArrived ? .body : .answer
            }
            if let phase {
                giveUp(.stalled(host: endpoint.host, port: endpoint.port, seconds: limits.stallSeconds, waitingFor: phase))
                return
            }
        }
    }
}

/// Every host's `HostHealth` this build, made on first use.
final class HostHealthBook: Sendable {
    private let limits: HostHealth.Limits
    private let hosts = LockedBox([Endpoint: HostHealth]())

    init(_ options: HTTPOptions) {
        limits = HostHealth.Limits(
            retryBudget: options.retryBudget, maxFailuresInARow: options.maxFailuresInARow, stallSeconds: options.stallSeconds)
    }

    /// The host's record.
    func health(_ endpoint: Endpoint) -> HostHealth {
        hosts.withLock { hosts in
            if let known = hosts[endpoint] { return known }
            let made = HostHealth(endpoint, limits: limits)
            hosts[endpoint] = made
            return made
        }
    }
}
