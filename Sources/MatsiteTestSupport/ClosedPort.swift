import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A port on 127.0.0.1 that refuses connections for as long as this value lives: a TCP
/// socket bound there but never listening. Another test's server cannot take the port
/// meanwhile (a port merely freed can be handed to the next server that binds port 0, and
/// a "dead" host would then answer).
package final class ClosedPort: @unchecked Sendable {
    package let port: Int
    private let fd: Int32

    package init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
