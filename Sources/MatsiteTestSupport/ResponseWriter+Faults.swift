import Foundation
import MatsiteServe
import NIOCore
import NIOPosix

/// Fault injection for the loopback server's responses: what a slow, broken or silent tile
/// server does, so the fetcher's timeouts, retries and error texts can be tested over real
/// sockets. Kept out of MatsiteServe because `matsite serve` never misbehaves on purpose.
extension LoopbackHTTPServer.ResponseWriter {
    /// Waits, e.g. to make the response slower than a client's timeout. Throws
    /// `CancellationError` when the server stops meanwhile.
    package func delay(_ duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }

    /// Resets the connection (SO_LINGER 0, then close: the peer gets an RST and unread
    /// data is discarded), which a client sees as "connection reset by peer".
    package func resetConnection() async {
        abandon()
        if let sockets = channel as? SocketOptionProvider {
            try? await sockets.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close().get()
    }

    /// Never answers: waits until the client gives up (closes) or the server stops.
    package func neverAnswer() async {
        abandon()
        let channel = self.channel
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}
