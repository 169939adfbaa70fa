import Foundation
import GRDB
import MatsiteCapabilities
import NIOHTTP1

/// Loads any locator: HTTP through the shared fetcher, files, MBTiles rows, demo tiles.
struct TileSourceLoader: TileLoader {
    private let fetcher: HTTPFetcher?
    private let archives = MBTilesArchives()
    /// Recognises an OGC exception document in place of an image (WMS/WMTS).
    private let exceptions: (@Sendable ([UInt8]) -> [ServiceException]?)?
    private let refusingHosts = RefusingHosts()

    /// A loader; `fetcher` nil refuses http locators.
    init(fetcher: HTTPFetcher?, exceptions: (@Sendable ([UInt8]) -> [ServiceException]?)? = nil) {
        self.fetcher = fetcher
        self.exceptions = exceptions
    }

    func load(_ locator: TileLocator) async -> TileOutcome {
        switch locator {
        case .http(let url): return await loadHTTP(url, revalidateAbsence: false)
        case .file(let path): return loadFile(path)
        case .mbtiles(let path, let z, let x, let y): return archives.tile(path: path, z: z, x: x, tmsY: y)
        case .demo(let tile):
            let bytes = (try? await CPUPool.shared.run { DemoRadar.tile(tile) }) ?? []
            return bytes.isEmpty ? .problem(.unreadable("the demo tile could not be drawn")) : .tile(bytes, digest: DemoRadar.digest(tile))
        }
    }
}

extension TileSourceLoader {
    func loadRevalidatingAbsence(_ locator: TileLocator) async -> TileOutcome {
        guard case .http(let url) = locator else { return await load(locator) }
        return await loadHTTP(url, revalidateAbsence: true)
    }

    /// Known without loading: fresh cached HTTP responses, and demo tiles (named by their
    /// drawing's version and coordinates). Files and archives are read: they are local,
    /// and have no checksum to trust.
    func freshDigests(_ locators: [TileLocator]) -> [TileDigest]? {
        if case .demo = locators.first {
            var digests: [TileDigest] = []
            for locator in locators {
                guard case .demo(let tile) = locator else { return nil }
                digests.append(DemoRadar.digest(tile))
            }
            return digests
        }
        var urls: [String] = []
        urls.reserveCapacity(locators.count)
        for locator in locators {
            guard case .http(let url) = locator else { return nil }
            urls.append(url)
        }
        return fetcher?.freshDigests(urls)
    }
}

private extension TileSourceLoader {
    func loadHTTP(_ url: String, revalidateAbsence: Bool) async -> TileOutcome {
        guard let fetcher else { return .problem(.transfer("no HTTP client")) }
        let host = URL(string: url)?.host ?? ""
        if let refusal = refusingHosts.refusal(for: host) { return .problem(refusal) }
        let response: HTTPResponseData
        do {
            response = try await fetcher.get(url, accept: "image/png,image/*;q=0.8,*/*;q=0.1", revalidateAbsence: revalidateAbsence)
        } catch {
            return .problem(error.problem)
        }
        switch response.status {
        case 200, 203:
            break
        case 204, 404:
            return .problem(.notFound(.http(status: response.status)))
        case let status:
            // WMTS servers send their exception report with a 400 (MapProxy's and GeoServer's
            // TileOutOfRange, InvalidDimensionValue): its words say more than the status.
            if (400..<500).contains(status), status != 429, !TileProblem.accessStatuses.contains(status),
                let exceptions = exceptions?(response.body)
            {
                return .problem(.serviceException(exceptions))
            }
            let problem = TileProblem.refused(status: status, excerpt: TileProblem.excerpt(response.body))
            // The server does not allow this client: the host's other tiles fail at once.
            if TileProblem.accessStatuses.contains(status) { refusingHosts.refuse(host, problem) }
            return .problem(problem)
        }
        let contentType = response.headers.first(name: "Content-Type")
        if let problem = TileCheck.problem(with: response.body, contentType: contentType) {
            if let exceptions = exceptions?(response.body) { return .problem(.serviceException(exceptions)) }
            return .problem(problem)
        }
        return .tile(response.body, digest: response.sha256.map { TileDigest(sha256: $0, size: response.body.count) })
    }

    func loadFile(_ path: String) -> TileOutcome {
        guard FileManager.default.fileExists(atPath: path) else { return .problem(.notFound(.file)) }
        guard let data = FileManager.default.contents(atPath: path) else { return .problem(.unreadable("cannot read the file")) }
        let bytes = [UInt8](data)
        if let problem = TileCheck.problem(with: bytes) { return .problem(problem) }
        return .tile(bytes)
    }
}

/// Hosts that answered 401/403: the rest of their tiles fail at once with the same problem.
private final class RefusingHosts: Sendable {
    private let refused = LockedBox([String: TileProblem]())

    func refusal(for host: String) -> TileProblem? {
        refused.withLock { $0[host] }
    }

    func refuse(_ host: String, _ problem: TileProblem) {
        refused.withLock { $0[host] = problem }
    }
}

/// Open MBTiles archives (SQLite, read-only), one queue per file.
final class MBTilesArchives: Sendable {
    private let queues = LockedBox([String: Result<DatabaseQueue, any Swift.Error>]())

    func tile(path: String, z: Int, x: Int, tmsY: Int) -> TileOutcome {
        let queue: DatabaseQueue
        switch open(path) {
        case .success(let opened): queue = opened
        case .failure(let error as MBTilesMissingError): return .problem(.notFound(error.absence))
        case .failure(let error): return .problem(.unreadable("cannot open the MBTiles archive: \(error)"))
        }
        do {
            let data = try queue.read { db in
                try Data.fetchOne(
                    db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                    arguments: [z, x, tmsY])
            }
            guard let data else { return .problem(.notFound(.archiveRow)) }
            let bytes = [UInt8](data)
            if let problem = TileCheck.problem(with: bytes) { return .problem(problem) }
            return .tile(bytes)
        } catch {
            return .problem(.unreadable("the MBTiles query failed: \(error)"))
        }
    }

    private func open(_ path: String) -> Result<DatabaseQueue, any Swift.Error> {
        queues.withLock { queues in
            if let existing = queues[path] { return existing }
            let result: Result<DatabaseQueue, any Swift.Error>
            if !FileManager.default.fileExists(atPath: path) {
                result = .failure(MBTilesMissingError(path: path))
            } else {
                var configuration = Configuration()
                configuration.readonly = true
                result = Result { try DatabaseQueue(path: path, configuration: configuration) }
            }
            queues[path] = result
            return result
        }
    }
}

private struct MBTilesMissingError: Swift.Error, CustomStringConvertible {
    let path: String
    var description: String { "no such file" }
    /// A missing archive is a missing source file, like a missing tile file.
    var absence: TileProblem.Absence { .file }
}
