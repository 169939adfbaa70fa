import Foundation

/// WMTS and WMS sources: capabilities are read, then frames and tile URLs follow from them.
enum OGCSources {
    /// The message of an OGC exception document sent instead of an image, if it is one.
    static let exceptionMessage: @Sendable ([UInt8]) -> String? = { _ in nil }

    static func resolveWMTS(_ config: WMTSSourceConfig, animation: AnimationConfig, fetcher: HTTPFetcher) async throws -> ResolvedSource {
        throw BuildError.stage("plan", "WMTS sources are not wired yet")
    }

    static func resolveWMS(_ config: WMSSourceConfig, animation: AnimationConfig, fetcher: HTTPFetcher) async throws -> ResolvedSource {
        throw BuildError.stage("plan", "WMS sources are not wired yet")
    }
}
