import Foundation

/// A system call that failed: what matsite was doing (naming the path), the call, and
/// its `errno`, kept so that callers can tell a missing file from a full disk.
package struct SystemCallError: Error, CustomStringConvertible, Sendable {
    /// What matsite was doing, e.g. `cannot write /srv/site/index.html`.
    package let action: String
    /// The call that failed, e.g. `open`.
    package let call: String
    /// The `errno` it left.
    package let errno: Int32

    /// An error for `call` failing with `errno` while doing `action`.
    package init(_ action: String, call: String, errno: Int32) {
        self.action = action
        self.call = call
        self.errno = errno
    }

    /// The action and the system's words for `errno`.
    package var description: String { "\(action): \(String(cString: strerror(errno)))" }
}

/// Runs a system call that returns -1 on failure (with `errno` set), retrying when a
/// signal interrupted it, and throws a `SystemCallError` naming `action` otherwise:
/// errno is read at once, before any other call can change it.
@discardableResult
package func systemCall<Result: FixedWidthInteger>(
    _ call: String, _ action: @autoclosure () -> String,
    _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemCallError(action(), call: call, errno: code)
    }
}
