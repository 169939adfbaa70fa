import CMatsiteSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An outside program (ffmpeg, rclone) run with `posix_spawn`: no run loop (Foundation's
/// `Process` needs one, and in a network namespace without loopback it cannot make the
/// socket pair it wakes with, so it never sees the child end), stdout and stderr drained
/// by one thread with `poll` (so neither pipe can fill and stall the child), and a time
/// limit: past it the child gets SIGTERM, then SIGKILL, and the call throws `.timedOut`.
///
///     let output = try Subprocess.run("/usr/bin/rclone", ["lsjson", target], timeLimit: .seconds(600))
///
/// or, feeding stdin as it goes:
///
///     let ffmpeg = try Subprocess(ffmpeg, arguments, stdin: .pipe, timeLimit: .seconds(600))
///     try ffmpeg.write(frame)
///     let output = try ffmpeg.finish()
package final class Subprocess: @unchecked Sendable {
    /// Where the child's standard input comes from.
    package enum Input: Sendable {
        /// `/dev/null`.
        case none
        /// A pipe that `write` feeds and `finish` closes.
        case pipe
    }

    /// How the child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    /// What a finished child left.
    package struct Output: Sendable {
        package var termination: Termination
        package var stdout: [UInt8]
        /// The end of stderr (at most `stderrKept` bytes).
        package var stderr: [UInt8]

        /// The exit status, or 128 + the signal (as shells report it).
        package var status: Int32 {
            switch termination {
            case .exited(let status): status
            case .signalled(let signal): 128 + signal
            }
        }

        /// stderr as text, trimmed.
        package var stderrText: String {
            String(decoding: stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// How much of stderr is kept for messages.
    package static let stderrKept = 64 << 10
    /// How long a child gets between SIGTERM and SIGKILL.
    package static let killGrace: Duration = .seconds(2)
    /// How long output is still read after the child ended (a grandchild may hold the pipes).
    package static let drainAfterExit: Duration = .seconds(1)

    /// The executable, for messages.
    package let executable: String
    /// The child's process id.
    package var pid: pid_t { core.pid }
    private let timeLimit: Duration
    private var stdinFD: Int32?
    /// What the threads share: they hold it, not the subprocess, so that dropping the
    /// subprocess can stop a child still running.
    private let core: Core

    fileprivate final class Core: Sendable {
        let pid: pid_t
        let state = LockedBox(State())
        let done = DispatchSemaphore(value: 0)

        init(pid: pid_t) { self.pid = pid }
    }

    fileprivate struct State {
        package var stdout: [UInt8] = []
        package var stderr: [UInt8] = []
        package var termination: Termination?
        var timedOut = false
        var finished = false
    }

    /// Starts `executable` (a path) with `arguments`; each complete stderr line goes to
    /// `stderrLine` as it comes.
    package init(
        _ executable: String, _ arguments: [String], stdin: Input = .none, timeLimit: Duration,
        stderrLine: (@Sendable (String) -> Void)? = nil
    ) throws(SubprocessError) {
        self.executable = executable
        self.timeLimit = timeLimit
        // A child that stops reading must be an error from write, not a signal that kills matsite.
        Self.ignoreSIGPIPE
        let out = try Self.pipe(executable), err = try Self.pipe(executable)
        var input: (read: Int32, write: Int32)?
        if stdin == .pipe { input = try Self.pipe(executable) }
        let wake = try Self.pipe(executable)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, err.write, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with default signal handling and nothing blocked, whatever
        // matsite ignores (SIGPIPE) or blocks.
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var child: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { for arg in argv { free(arg) } }
        // ETXTBSY: the program was written a moment ago (updated in place, or a stand-in),
        // and a child another thread forked meanwhile still holds it open for writing until
        // that child execs. It passes within milliseconds: try again a few times.
        var code = ETXTBSY
        for attempt in 0..<6 where code == ETXTBSY {
            if attempt > 0 { usleep(UInt32(10_000 << attempt)) }
            code = (argv + [nil]).withUnsafeBufferPointer { args in
                posix_spawn(&child, executable, &actions, &attributes, args.baseAddress!, environ)
            }
        }
        // The child's ends are the child's now (or nobody's).
        close(out.write)
        close(err.write)
        if let input { close(input.read) }
        guard code == 0 else {
            for fd in [out.read, err.read, wake.read, wake.write] + (input.map { [$0.write] } ?? []) { close(fd) }
            throw .cannotStart(executable: executable, errno: code)
        }
        let core = Core(pid: child)
        self.core = core
        stdinFD = input?.write
        let deadline = ContinuousClock.now + timeLimit
        Self.thread { Self.waitForChild(core, wake: wake.write) }
        Self.thread { Self.pump(core, out: out.read, err: err.read, wake: wake.read, deadline: deadline, stderrLine: stderrLine) }
    }

    deinit {
        // A subprocess dropped without finish (an error on the way): not left running.
        if let fd = stdinFD { close(fd) }
        terminate()
    }

    /// Runs `executable` to its end: its output, or `.timedOut` past `timeLimit`.
    package static func run(
        _ executable: String, _ arguments: [String], timeLimit: Duration, stderrLine: (@Sendable (String) -> Void)? = nil
    ) throws(SubprocessError) -> Output {
        try Subprocess(executable, arguments, timeLimit: timeLimit, stderrLine: stderrLine).finish()
    }

    /// Writes `bytes` to the child's stdin (blocking while the pipe is full).
    package func write(_ bytes: [UInt8]) throws(SubprocessError) {
        guard let fd = stdinFD else { return }
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + sent, $0.count - sent) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                // The child is gone or was stopped: say why, not just EPIPE.
                let output = wait()
                if core.state.withLock({ $0.timedOut }) { throw .timedOut(executable: executable, limit: timeLimit, stderr: output.stderrText) }
                throw .stoppedReading(executable: executable, errno: code, output: output)
            }
            sent += n
        }
    }

    /// Closes stdin and waits for the end: the output (whatever the exit status), or
    /// `.timedOut`.
    package func finish() throws(SubprocessError) -> Output {
        let output = wait()
        if core.state.withLock({ $0.timedOut }) { throw .timedOut(executable: executable, limit: timeLimit, stderr: output.stderrText) }
        return output
    }

    /// Stops the child now (SIGKILL), unless it has ended.
    package func terminate() {
        // Until waitpid has reaped it the pid is the child's, never another process's.
        core.state.withLock { if $0.termination == nil { kill(core.pid, SIGKILL) } }
    }
}

private extension Subprocess {
    func wait() -> Output {
        if let fd = stdinFD {
            close(fd)
            stdinFD = nil
        }
        if !core.state.withLock({ $0.finished }) {
            core.done.wait()
            core.done.signal() // later waits return at once
        }
        return core.state.withLock { Output(termination: $0.termination ?? .signalled(SIGKILL), stdout: $0.stdout, stderr: $0.stderr) }
    }

    /// Waits until the child ends, reaps it, then wakes the pump.
    static func waitForChild(_ core: Core, wake: Int32) {
        // Wait without reaping first: until the status is recorded under the lock, the pid
        // stays the child's, so a kill sent meanwhile can never reach another process.
        var info = siginfo_t()
        while waitid(P_PID, id_t(core.pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        core.state.withLock { state in
            var status: Int32 = 0
            while waitpid(core.pid, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED/WEXITSTATUS are macros: the bits, as <sys/wait.h> defines them.
            let signal = status & 0x7f
            state.termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        }
        var byte: UInt8 = 1
        _ = systemWrite(wake, &byte, 1)
        close(wake)
    }

    /// Reads stdout and stderr until both end and the child has ended; enforces the time limit.
    static func pump(
        _ core: Core, out: Int32, err: Int32, wake: Int32, deadline: ContinuousClock.Instant, stderrLine: (@Sendable (String) -> Void)?
    ) {
        let state = core.state, pid = core.pid
        var fds = [
            pollfd(fd: out, events: Int16(POLLIN), revents: 0), pollfd(fd: err, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        var pending: [UInt8] = []
        var killAt: ContinuousClock.Instant?
        var exitedAt: ContinuousClock.Instant?
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        func emit(_ line: ArraySlice<UInt8>) {
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { stderrLine?(text) }
        }
        while true {
            let now = ContinuousClock.now
            if exitedAt == nil, state.withLock({ $0.termination != nil }) { exitedAt = now }
            let streamsOpen = fds[0].fd >= 0 || fds[1].fd >= 0
            if let exitedAt, !streamsOpen || now - exitedAt >= Self.drainAfterExit { break }
            if exitedAt == nil {
                if killAt == nil, now >= deadline {
                    state.withLock {
                        $0.timedOut = true
                        if $0.termination == nil { kill(pid, SIGTERM) }
                    }
                    killAt = now + Self.killGrace
                } else if let due = killAt, now >= due {
                    state.withLock { if $0.termination == nil { kill(pid, SIGKILL) } }
                    killAt = now + .seconds(3600)
                }
            }
            let until = exitedAt.map { $0 + Self.drainAfterExit } ?? killAt ?? deadline
            let wait = max(.zero, min(until - now, .seconds(60)))
            let ms = Int32(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000) + 1
            let ready = poll(&fds, nfds_t(fds.count), ms)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0 else { continue }
            for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = read(fds[i].fd, &buffer, buffer.count)
                if n <= 0 {
                    if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                    close(fds[i].fd)
                    fds[i].fd = -1
                    continue
                }
                let chunk = buffer[0..<n]
                switch i {
                case 0:
                    state.withLock { $0.stdout += chunk }
                case 1:
                    state.withLock {
                        $0.stderr += chunk
                        if $0.stderr.count > Self.stderrKept { $0.stderr.removeFirst($0.stderr.count - Self.stderrKept) }
                    }
                    pending += chunk
                    while let newline = pending.firstIndex(of: 0x0A) {
                        emit(pending[..<newline])
                        pending.removeSubrange(...newline)
                    }
                default:
                    // The child ended: stop watching the wake pipe.
                    close(fds[i].fd)
                    fds[i].fd = -1
                }
            }
        }
        if !pending.isEmpty { emit(pending[...]) }
        for fd in fds where fd.fd >= 0 { close(fd.fd) }
        state.withLock { $0.finished = true }
        core.done.signal()
    }

    static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// A pipe whose both ends close on exec (the child gets its copies through dup2).
    static func pipe(_ executable: String) throws(SubprocessError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard matsite_pipe_cloexec(&fds) == 0 else { throw .cannotStart(executable: executable, errno: errno) }
        return (fds[0], fds[1])
    }

    /// Runs `body` on a new thread of its own (no run loop, no dispatch queue to starve).
    static func thread(_ body: @escaping @Sendable () -> Void) {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, box)
        if code == 0 {
            pthread_detach(thread)
        } else {
            // No thread to spare: run it here rather than never.
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        }
    }
}

extension Subprocess {
    /// Runs `body` for each index below `count`, `width` at a time, each lane on a thread of
    /// its own, and returns when all have ended: matsite's one way to wait on several
    /// blocking children at once (rclone calls). A lane mostly sleeps in `finish`, so it
    /// takes no slot of ``CPUPool`` (which is for CPU work) and holds no thread of Swift's
    /// cooperative pool.
    package static func lanes(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let lanes = min(max(1, width), count)
        let ended = DispatchSemaphore(value: 0)
        for lane in 0..<lanes {
            thread {
                for index in stride(from: lane, to: count, by: lanes) { body(index) }
                ended.signal()
            }
        }
        for _ in 0..<lanes { ended.wait() }
    }
}

/// `write(2)`, under a name no method shadows.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// A subprocess that could not run to its end.
package enum SubprocessError: ClassifiedError, CustomStringConvertible {
    /// posix_spawn (or a pipe) failed.
    case cannotStart(executable: String, errno: Int32)
    /// It ran past its time limit and was stopped.
    case timedOut(executable: String, limit: Duration, stderr: String)
    /// It stopped reading its input (it ended, or closed stdin).
    case stoppedReading(executable: String, errno: Int32, output: Subprocess.Output)

    package var exitClass: ExitClass { .failed }

    package var description: String {
        switch self {
        case .cannotStart(let executable, let code):
            return "cannot start \(executable): \(String(cString: strerror(code)))"
        case .timedOut(let executable, let limit, let stderr):
            return "\(executable) ran past its time limit of \(limit.components.seconds) s and was stopped" + Self.said(stderr)
        case .stoppedReading(let executable, _, let output):
            return "\(executable) stopped reading its input (\(output.termination))" + Self.said(output.stderrText)
        }
    }

    /// The end of what the program said on stderr, if anything.
    package static func said(_ stderr: String) -> String {
        stderr.isEmpty ? "" : ": " + String(stderr.suffix(600))
    }
}
