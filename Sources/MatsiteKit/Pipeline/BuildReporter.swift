/// Receives a build's progress. Implementations must be thread-safe: tiles finish on
/// many tasks at once.
public protocol BuildReporter: Sendable {
    /// An animation's work is known.
    func planned(animation: String, frames: Int, tiles: Int)
    /// A tile was loaded (`bytes` of it).
    func tileLoaded(bytes: Int)
    /// A frame was written or reused.
    func frameDone(animation: String, index: Int, reused: Bool)
    /// Something the user should know; the build goes on.
    func warning(_ message: String)
    /// A detail for `--verbose`.
    func detail(_ message: String)
    /// An animation's frames were published as tile pyramids: what that cost (one line).
    func levelsPublished(animation: String, summary: String)
    /// An animation's loop was exported (or kept): one format's cost, one line.
    func exported(animation: String, summary: String)
}

extension BuildReporter {
    /// By default, a detail.
    public func levelsPublished(animation: String, summary: String) { detail(summary) }
    /// By default, a detail.
    public func exported(animation: String, summary: String) { detail(summary) }
}

/// A reporter that drops everything.
public struct SilentReporter: BuildReporter {
    public init() {}
    public func planned(animation: String, frames: Int, tiles: Int) {}
    public func tileLoaded(bytes: Int) {}
    public func frameDone(animation: String, index: Int, reused: Bool) {}
    public func warning(_ message: String) {}
    public func detail(_ message: String) {}
}

/// What a finished build did.
public struct BuildSummary: Sendable {
    /// Animations built.
    public var animations = 0
    /// Frames in the site.
    public var frames = 0
    /// Frames kept from the previous build (inputs unchanged).
    public var framesReused = 0
    /// Tiles the frames needed.
    public var tiles = 0
    /// HTTP requests made.
    public var requests = 0
    /// Body bytes received over HTTP.
    public var bytesFetched = 0
    /// 304 answers (cache revalidated).
    public var notModified = 0
    /// Bytes of the published site.
    public var outputBytes: Int64 = 0
    /// Wall seconds.
    public var seconds = 0.0
    /// True when the new site equalled the old one, so nothing was replaced.
    public var unchanged = false
    /// Where the site is.
    public var output = ""
    /// Warnings given.
    public var warnings: [String] = []
}
