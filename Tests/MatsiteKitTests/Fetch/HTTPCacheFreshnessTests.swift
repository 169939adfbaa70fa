import Foundation
import NIOHTTP1
import Testing

@testable import MatsiteKit

/// Freshness arithmetic of a stored entry (RFC 9111 section 4.2), without a server: the
/// clock is the entry's `storedAt` and the `now` asked about.
@Suite("HTTP cache freshness")
struct HTTPCacheFreshnessTests {
    static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()

    static func entry(stored: Date, _ headers: [(String, String)]) -> HTTPCache.Entry {
        HTTPCache.Entry(headers: HTTPHeaders(headers), body: [1, 2, 3], storedAt: stored)
    }

    @Test("max-age counts from when the response was stored")
    func maxAge() {
        let stored = Date(timeIntervalSince1970: 1_795_000_000)
        let entry = Self.entry(stored: stored, [("Cache-Control", "max-age=600")])
        #expect(entry.isFresh(now: stored.addingTimeInterval(599)))
        #expect(!entry.isFresh(now: stored.addingTimeInterval(601)))
    }

    @Test("Expires without a Date header stays fresh until the time it names, not half way there")
    func expiresWithoutDate() {
        let stored = Date(timeIntervalSince1970: 1_795_000_000)
        let expires = Self.formatter.string(from: stored.addingTimeInterval(600))
        let entry = Self.entry(stored: stored, [("Expires", expires)])
        #expect(entry.isFresh(now: stored.addingTimeInterval(400)))
        #expect(!entry.isFresh(now: stored.addingTimeInterval(601)))
    }

    @Test("Expires with a Date header is measured from that Date")
    func expiresWithDate() {
        let stored = Date(timeIntervalSince1970: 1_795_000_000)
        let entry = Self.entry(
            stored: stored,
            [
                ("Date", Self.formatter.string(from: stored)),
                ("Expires", Self.formatter.string(from: stored.addingTimeInterval(600))),
            ])
        #expect(entry.isFresh(now: stored.addingTimeInterval(400)))
        #expect(!entry.isFresh(now: stored.addingTimeInterval(601)))
    }

    @Test("the Last-Modified heuristic is a tenth of the age at storage, not one that grows while stored")
    func heuristic() {
        let stored = Date(timeIntervalSince1970: 1_795_000_000)
        // Modified 10 h before it was stored: fresh for 1 h.
        let entry = Self.entry(stored: stored, [("Last-Modified", Self.formatter.string(from: stored.addingTimeInterval(-36_000)))])
        #expect(entry.isFresh(now: stored.addingTimeInterval(3_500)))
        #expect(!entry.isFresh(now: stored.addingTimeInterval(3_700)))
    }

    @Test("no-cache, no-store and a past or invalid Expires are never fresh")
    func neverFresh() {
        let stored = Date(timeIntervalSince1970: 1_795_000_000)
        for headers in [
            [("Cache-Control", "no-cache, max-age=600")], [("Cache-Control", "no-store")],
            [("Expires", "0")], [("Expires", Self.formatter.string(from: stored.addingTimeInterval(-60)))],
        ] {
            #expect(!Self.entry(stored: stored, headers).isFresh(now: stored.addingTimeInterval(1)), "\(headers)")
        }
    }

    @Test("an Age header counts against max-age: a response already 590 s old in a CDN is fresh for 10 s more")
    func ageCounts() {
        let stored = Date(timeIntervalSince1970: 1_795_000_000)
        let entry = Self.entry(stored: stored, [("Cache-Control", "max-age=600"), ("Age", "590")])
        #expect(entry.isFresh(now: stored.addingTimeInterval(9)))
        #expect(!entry.isFresh(now: stored.addingTimeInterval(11)))
    }
}
