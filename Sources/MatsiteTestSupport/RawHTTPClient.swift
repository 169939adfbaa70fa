// A deliberately dumb HTTP/1.1 client over a raw NIO TCP connection, for the serve tests.
//
// Real clients (URLSession's libcurl, browsers) normalise `..` and `%2e%2e` before sending,
// so traversal attempts need a client that sends the request line exactly as written. It
// also reports faults precisely: a reset, a body cut short, a read that timed out.

import Foundation
import MatsiteSupport
import NIOCore
import NIOPosix

package struct RawHTTPResponse: Sendable {
    package let status: Int
    package let headers: [(name: String, value: String)]
    package let body: [UInt8]

    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package var text: String {
        String(decoding: body, as: UTF8.self)
    }
}

package enum RawHTTPError: Error, Equatable {
    /// The connection ended before the response was complete (`received` body bytes so far).
    case closedEarly(received: Int)
    /// The read failed at the socket, e.g. "connection reset by peer".
    case connectionError(String)
    /// Nothing (or not enough) arrived in time.
    case timedOut
    /// The bytes were not an HTTP response.
    case malformed(String)
}

/// One TCP connection; use through `RawHTTP.withConnection`.
package final class RawHTTPConnection {
    /// What a background reader has received so far. Reads poll it, so a read can time
    /// out and the connection still be read from afterwards.
    package struct Inbox: Sendable {
        package var bytes: [UInt8] = []
        package var ended = false
        package var error: String?
    }

    private let inbox: LockedBox<Inbox>
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var buffered: [UInt8] = []

    fileprivate init(inbox: LockedBox<Inbox>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbox = inbox
        self.outbound = outbound
    }

    /// Sends bytes exactly as given.
    package func send(_ raw: String) async throws {
        try await outbound.write(ByteBuffer(string: raw))
    }

    /// Sends `METHOD target HTTP/1.1` with a Host header and `headers`.
    package func sendRequest(_ method: String = "GET", _ target: String, headers: [(String, String)] = []) async throws {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers {
            text += "\(name): \(value)\r\n"
        }
        try await send(text + "\r\n")
    }

    /// Reads one response. `headRequest` says the response has no body whatever its headers.
    package func readResponse(headRequest: Bool = false, timeout: Duration = RawHTTP.patience) async throws -> RawHTTPResponse {
        let deadline = ContinuousClock.now + timeout
        let headEnd = try await readUntilHeadEnd(deadline: deadline)
        let headText = String(decoding: buffered[..<headEnd], as: UTF8.self)
        buffered.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw RawHTTPError.malformed(headText)
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name }?.value
        }

        let body: [UInt8]
        if headRequest || status == 204 || status == 304 || (100..<200).contains(status) {
            body = []
        } else if let length = header("content-length").flatMap(Int.init) {
            try await fill(length, deadline: deadline)
            body = Array(buffered.prefix(length))
            buffered.removeFirst(length)
        } else if header("transfer-encoding")?.lowercased() == "chunked" {
            body = try await readChunked(deadline: deadline)
        } else {
            while try await readMore(deadline: deadline) {}
            body = buffered
            buffered = []
        }
        return RawHTTPResponse(status: status, headers: headers, body: body)
    }

    /// Reads until the server closes; returns whether it did within `timeout`.
    package func waitForClose(timeout: Duration = RawHTTP.patience) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        do {
            while try await readMore(deadline: deadline) {}
            return true
        } catch RawHTTPError.timedOut {
            return false
        } catch {
            return true
        }
    }

    /// Reads, without parsing, until the bytes received contain `marker` (or the
    /// connection ends, or `timeout` passes), and returns them as text.
    package func readText(until marker: String, timeout: Duration = RawHTTP.patience) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        do {
            while !String(decoding: buffered, as: UTF8.self).contains(marker), try await readMore(deadline: deadline) {}
        } catch RawHTTPError.timedOut {}
        defer { buffered = [] }
        return String(decoding: buffered, as: UTF8.self)
    }

    private func readUntilHeadEnd(deadline: ContinuousClock.Instant) async throws -> Int {
        let marker: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if buffered.count >= 4 {
                for index in 0...(buffered.count - 4) where buffered[index..<(index + 4)].elementsEqual(marker) {
                    return index
                }
            }
            guard try await readMore(deadline: deadline) else {
                throw RawHTTPError.closedEarly(received: 0)
            }
        }
    }

    private func fill(_ count: Int, deadline: ContinuousClock.Instant) async throws {
        while buffered.count < count {
            guard try await readMore(deadline: deadline) else {
                throw RawHTTPError.closedEarly(received: buffered.count)
            }
        }
    }

    private func readChunked(deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let lineEnd = try await readLine(deadline: deadline)
            let sizeText = String(decoding: buffered[..<lineEnd], as: UTF8.self).split(separator: ";")[0]
            buffered.removeFirst(lineEnd + 2)
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw RawHTTPError.malformed("chunk size \(sizeText)")
            }
            if size == 0 {
                _ = try await readLine(deadline: deadline)
                buffered.removeFirst(2)
                return body
            }
            do {
                try await fill(size + 2, deadline: deadline)
            } catch RawHTTPError.closedEarly {
                throw RawHTTPError.closedEarly(received: body.count + buffered.count)
            }
            body += buffered.prefix(size)
            buffered.removeFirst(size + 2)
        }
    }

    private func readLine(deadline: ContinuousClock.Instant) async throws -> Int {
        while true {
            if let index = buffered.indices.dropLast().first(where: { buffered[$0] == 13 && buffered[$0 + 1] == 10 }) {
                return index
            }
            guard try await readMore(deadline: deadline) else {
                throw RawHTTPError.closedEarly(received: 0)
            }
        }
    }

    /// Appends the next bytes to `buffered`; false at end of stream.
    private func readMore(deadline: ContinuousClock.Instant) async throws -> Bool {
        while true {
            // The deadline comes first: a client starved of CPU past it has timed out, even
            // if the bytes arrived meanwhile (as a real client's timer would fire).
            if ContinuousClock.now >= deadline {
                throw RawHTTPError.timedOut
            }
            let (bytes, ended, error) = inbox.withLock { inbox in
                defer { inbox.bytes = [] }
                return (inbox.bytes, inbox.ended, inbox.error)
            }
            if !bytes.isEmpty {
                buffered += bytes
                return true
            }
            if let error {
                throw RawHTTPError.connectionError(error)
            }
            if ended {
                return false
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

package enum RawHTTP {
    /// How long a test waits for something that should happen. Generous: the whole suite
    /// shares two cores with CPU-heavy tests (and CI with other jobs: 30 s was seen to run
    /// out), and waiting ends as soon as it happens.
    package static let patience: Duration = .seconds(300)

    /// Opens a connection to 127.0.0.1:`port`, runs `body`, closes the connection.
    package static func withConnection<Result: Sendable>(
        port: Int,
        _ body: (RawHTTPConnection) async throws -> Result
    ) async throws -> Result {
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(300))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await client.executeThenClose { inbound, outbound in
            let inbox = LockedBox(RawHTTPConnection.Inbox())
            let reader = Task {
                do {
                    for try await chunk in inbound {
                        inbox.withLock { $0.bytes += chunk.readableBytesView }
                    }
                    inbox.withLock { $0.ended = true }
                } catch {
                    inbox.withLock { $0.error = "\(error)" }
                }
            }
            defer { reader.cancel() }
            return try await body(RawHTTPConnection(inbox: inbox, outbound: outbound))
        }
    }

    /// One request on a fresh connection.
    package static func request(
        port: Int,
        _ target: String,
        method: String = "GET",
        headers: [(String, String)] = [],
        timeout: Duration = RawHTTP.patience
    ) async throws -> RawHTTPResponse {
        try await withConnection(port: port) { connection in
            try await connection.sendRequest(method, target, headers: headers)
            return try await connection.readResponse(headRequest: method == "HEAD", timeout: timeout)
        }
    }

    /// Polls `condition` until it holds or `timeout` passes: the tests run in parallel on a
    /// small machine, so "by now" must mean "within a generous bound", never a fixed sleep.
    package static func eventually(timeout: Duration = RawHTTP.patience, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
