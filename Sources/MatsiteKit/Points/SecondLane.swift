import Foundation

/// A thread of its own that runs jobs one after another, in the order given, while the
/// caller goes on with the next piece of work: clustering a zoom while the zoom below is
/// encoded and written uses both cores, where one did both in turn. One job at a time:
/// `submit` waits for the lane to be free, so the work handed over (a level and its
/// bytes) never piles up in memory.
///
/// The lane is a `Thread`, not a dispatch work item: the caller blocks while the lane is
/// busy, and a dispatch pool whose threads all wait that way may not start the item that
/// would free them.
final class SecondLane: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: (@Sendable () throws -> Void)?
    private var busy = false
    private var closed = false
    private var failure: (any Error)?

    init() {
        let thread = Thread { [self] in run() }
        thread.name = "matsite.lane"
        thread.start()
    }

    /// Hands `job` over once the job before it is done; throws the error of an
    /// earlier job instead (the caller then stops: its later jobs would be wasted).
    func submit(_ job: @escaping @Sendable () throws -> Void) throws {
        condition.lock()
        defer { condition.unlock() }
        while waiting != nil || busy, failure == nil { condition.wait() }
        if let failure { throw failure }
        waiting = job
        condition.broadcast()
    }

    /// Waits for every job handed over, ends the thread and throws the first job's error.
    func finish() throws {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
        while waiting != nil || busy { condition.wait() }
        if let failure { throw failure }
    }

    private func run() {
        condition.lock()
        while true {
            while waiting == nil, !closed { condition.wait() }
            guard let job = waiting else { break }
            waiting = nil
            busy = true
            let failed = failure != nil
            condition.broadcast()
            condition.unlock()
            var error: (any Error)?
            // After a failure the caller stops; a job it handed over meanwhile is dropped.
            if !failed {
                do { try job() } catch let thrown { error = thrown }
            }
            condition.lock()
            busy = false
            if let error, failure == nil { failure = error }
            condition.broadcast()
        }
        condition.unlock()
    }
}
