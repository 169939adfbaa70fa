import Foundation
import MatsiteImaging

/// `export:`: the animation's loop written as video and animated images too.
public struct ExportConfig: Sendable, Equatable {
    /// An exported loop's format.
    public enum Format: String, CaseIterable, Sendable {
        /// H.264 in MP4 (`yuv420p`, `+faststart`), through the `ffmpeg` executable.
        case mp4
        /// Animated GIF through giflib.
        case gif
        /// Animated WebP through libwebpmux.
        case webp

        /// The file extension.
        public var ext: String { rawValue }
    }

    /// The formats, in config order (no repeats).
    public var formats: [Format]
    /// `export_width`: the loop's width in pixels (the height keeps the aspect ratio); nil:
    /// the frames' own width. Both edges are made even, as H.264 needs.
    public var width: Int?
    /// `export_background`: the colour under the frames; nil: the demo base map when the
    /// site's `base_map` is the demo, else `defaultBackground`.
    public var background: RGB?
    /// `export_background` given as an XYZ tile URL template (`{z}`, `{x}`, `{y}`): the
    /// frames' tiles at their zoom, fetched and cached like frame tiles, drawn under them.
    public var backgroundTiles: String?
    /// `export_quality`: 100 (the default) writes lossless WebP; less, lossy WebP at that quality.
    public var webpQuality = 100
    /// `export_timeout_s`: how long ffmpeg may take to write the MP4 before it is stopped
    /// and the build fails (a hung encoder must not hold a cron build for ever).
    public var timeoutSeconds = 600
    /// Line of `export:` in the config, for messages.
    public var line: Int?

    /// A grey-blue like the demo base map's sea: the radar colours stand out on it.
    public static let defaultBackground = RGB(0xd4, 0xdc, 0xe3)

    /// True when the export fetches something: its background tiles.
    var needsNetwork: Bool { backgroundTiles != nil }

    /// Creates settings for `formats`.
    public init(formats: [Format]) {
        self.formats = formats
    }
}
