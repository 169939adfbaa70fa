import Mustache

/// A template's values: one type per template, naming the keys its template reads (the
/// keys are the contract with a project's own templates, docs/player.md "Template
/// contexts"). Mustache asks for each value by key through `child(named:)`.
protocol PageContext: MustacheParent, Sendable {
    /// The template it fills, by name (`player` for `player.mustache`).
    static var template: String { get }
}

/// `player.mustache` (`<id>/index.html`): the animation's page, with its download links.
struct PlayerPageContext: PageContext {
    static let template = "player"
    var page: AnimationPageValues
    /// The exported loops, URLs relative to the page.
    var downloads: [DownloadLink]
    /// The frame images the page preloads (FramePreload.of).
    var preloads: [FramePreload] = []

    func child(named name: String) -> Any? {
        switch name {
        case "is_embed": return false
        // Absent when there are none, as the exports.
        case "frame_preloads": return preloads.isEmpty ? nil : preloads
        // Absent, not empty, when there are none: the templates test them as sections.
        case "exports": return downloads.isEmpty ? nil : downloads
        case "has_exports": return downloads.isEmpty ? nil : true
        case "og_video": return downloads.first { $0.type == "video/mp4" }.map { page.address.absolute("\(page.id)/\($0.url)") ?? $0.url }
        default: return page.child(named: name)
        }
    }
}

/// `embed.mustache` (`<id>/embed.html`): the animation alone, for iframes; no download links.
struct EmbedPageContext: PageContext {
    static let template = "embed"
    var page: AnimationPageValues
    /// The frame images the page preloads (FramePreload.of).
    var preloads: [FramePreload] = []

    func child(named name: String) -> Any? {
        switch name {
        case "is_embed": true
        case "frame_preloads": preloads.isEmpty ? nil : preloads
        default: page.child(named: name)
        }
    }
}

/// `index.mustache` (`index.html`): every animation of the site.
struct IndexPageContext: PageContext {
    static let template = "index"
    var siteTitle: String
    var generator: String
    /// Asset URLs relative to the site root.
    var assets: [String: String]
    var animations: [IndexEntry]

    func child(named name: String) -> Any? {
        switch name {
        case "site_title": siteTitle
        case "generator": generator
        case "assets": assets
        case "animations": animations
        default: nil
        }
    }
}

/// What the player and the embed page both show of an animation.
struct AnimationPageValues: Sendable {
    var siteTitle: String
    var title: String
    var id: String
    var generator: String
    /// The frames' size in pixels.
    var width: Int
    var height: Int
    /// Asset URLs relative to the page.
    var assets: [String: String]
    /// The poster's file name (`poster.png`, `poster.jpg`...), in the animation's folder.
    var poster = "poster.png"
    /// Where the site is served, for the share tags.
    var address = SiteAddress("/")

    func child(named name: String) -> Any? {
        switch name {
        case "site_title": siteTitle
        case "title": title
        case "id": id
        case "generator": generator
        case "width": width
        case "height": height
        case "assets": assets
        case "manifest_url": "manifest.json"
        case "poster_url": poster
        // Link previews fetch these from elsewhere: whole URLs when base_url gives them.
        case "og_image": address.absolute("\(id)/\(poster)") ?? poster
        case "og_url": address.absolute("\(id)/index.html")
        case "twitter_card": "summary_large_image"
        case "index_url": "../index.html"
        case "embed_url": "embed.html"
        default: nil
        }
    }
}

/// One animation on the index page.
struct IndexEntry: MustacheParent, Sendable {
    var id: String
    var title: String
    var frameCount: Int
    var width: Int
    var height: Int
    /// The poster's file name in the animation's folder.
    var poster: String
    /// The base map tiles to draw under the poster, when the site has a base map.
    var baseMap: PosterBaseMap?
    /// The embed code to paste, as text (the template escapes it).
    var iframeSnippet: String
    /// The exported loops, URLs relative to the site root.
    var downloads: [DownloadLink]
    /// The first and last frames' times, when the frames have times.
    var firstTime: String?
    var lastTime: String?
    /// The animation's `time_zone`, for the words the index page's script writes.
    var timeZone: String?
    /// Where the observed frames end and the forecast ends, when the timeline has forecast frames.
    var forecast: ForecastSpan?

    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "title": title
        case "page": "\(id)/index.html"
        case "embed": "\(id)/embed.html"
        case "poster": "\(id)/\(poster)"
        case "base_tiles": baseMap.flatMap { $0.tiles.isEmpty ? nil : $0.tiles }
        case "base_attribution": baseMap.flatMap { $0.attributionHTML.isEmpty ? nil : $0.attributionHTML }
        case "frame_count": frameCount
        case "width": width
        case "height": height
        case "iframe_snippet": iframeSnippet
        case "exports": downloads.isEmpty ? nil : downloads
        // Absent, not "": an empty string is truthy to Mustache sections.
        case "first_time": firstTime
        case "last_time": lastTime
        // What a reader without JavaScript sees; the script puts it in the reader's words.
        case "first_time_text": firstTime.map(Self.utcWords)
        case "last_time_text": lastTime.map(Self.utcWords)
        case "time_zone": timeZone
        case "forecast": forecast
        default: nil
        }
    }
}

/// An index entry's past and future: "observed to 12:05, forecast to 13:05 (run 11:00
/// UTC)", as manifest times (the section `{{#forecast}}` of `index.mustache`).
struct ForecastSpan: MustacheParent, Sendable, Equatable {
    /// The newest observed frame's time; nil when every frame is a forecast.
    var observedTo: String?
    /// The last forecast frame's time.
    var forecastTo: String
    /// The run the forecast frames come from, when they name one.
    var run: String?

    func child(named name: String) -> Any? {
        switch name {
        case "observed_to": observedTo
        case "observed_to_text": observedTo.map(IndexEntry.utcWords)
        case "forecast_to": forecastTo
        case "forecast_to_text": IndexEntry.utcWords(forecastTo)
        case "run": run
        case "run_text": run.map(IndexEntry.utcWords)
        default: nil
        }
    }
}

extension ForecastSpan {
    /// The span of a timeline's frames (time, kind "forecast" or nil, run), or nil when none is
    /// a forecast.
    init?(_ frames: [(time: String?, kind: String?, run: String?)]) {
        let forecasts = frames.filter { $0.kind == "forecast" }
        guard let last = forecasts.last?.time else { return nil }
        self.init(
            observedTo: frames.last { $0.kind != "forecast" && $0.time != nil }?.time, forecastTo: last,
            run: forecasts.lazy.compactMap(\.run).first)
    }
}

extension IndexEntry {
    /// `2026-11-25T11:10:00Z` as `2026-11-25 11:10 UTC`.
    static func utcWords(_ manifestTime: String) -> String {
        guard manifestTime.count >= 16, manifestTime.hasSuffix("Z") else { return manifestTime }
        return manifestTime.prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC"
    }
}

/// Where the site is served, when `base_url` says it whole: link previews and embed code
/// used on another site need absolute URLs.
struct SiteAddress: Sendable, Equatable {
    /// `base_url` ending in `/` when it is absolute (`http://` or `https://`), else nil.
    let base: String?

    init(_ baseURL: String) {
        guard Self.isAbsolute(baseURL) else {
            base = nil
            return
        }
        base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
    }

    /// True for a `base_url` with a scheme and a host.
    static func isAbsolute(_ baseURL: String) -> Bool {
        let lower = baseURL.lowercased()
        return ["http://", "https://"].contains { lower.hasPrefix($0) && lower.count > $0.count }
    }

    /// `path` (below the site root) as a whole URL, or nil when `base_url` is relative.
    func absolute(_ path: String) -> String? { base.map { $0 + path } }
}

/// An exported loop as a download link: its label, URL and MIME type.
struct DownloadLink: MustacheParent, Sendable, Equatable {
    var label: String
    var url: String
    var type: String

    func child(named name: String) -> Any? {
        switch name {
        case "label": label
        case "url": url
        case "type": type
        default: nil
        }
    }
}
