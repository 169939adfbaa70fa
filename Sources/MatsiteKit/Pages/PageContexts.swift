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

    func child(named name: String) -> Any? {
        switch name {
        case "is_embed": return false
        // Absent, not empty, when there are none: the templates test them as sections.
        case "exports": return downloads.isEmpty ? nil : downloads
        case "has_exports": return downloads.isEmpty ? nil : true
        case "og_video": return downloads.first { $0.type == "video/mp4" }?.url
        default: return page.child(named: name)
        }
    }
}

/// `embed.mustache` (`<id>/embed.html`): the animation alone, for iframes; no download links.
struct EmbedPageContext: PageContext {
    static let template = "embed"
    var page: AnimationPageValues

    func child(named name: String) -> Any? {
        name == "is_embed" ? true : page.child(named: name)
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
        case "poster_url": "poster.png"
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
    /// The `<iframe>` to paste, as text (the template escapes it).
    var iframeSnippet: String
    /// The exported loops, URLs relative to the site root.
    var downloads: [DownloadLink]
    /// The first and last frames' times, when the frames have times.
    var firstTime: String?
    var lastTime: String?

    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "title": title
        case "page": "\(id)/index.html"
        case "embed": "\(id)/embed.html"
        case "poster": "\(id)/poster.png"
        case "frame_count": frameCount
        case "width": width
        case "height": height
        case "iframe_snippet": iframeSnippet
        case "exports": downloads.isEmpty ? nil : downloads
        // Absent, not "": an empty string is truthy to Mustache sections.
        case "first_time": firstTime
        case "last_time": lastTime
        default: nil
        }
    }
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
