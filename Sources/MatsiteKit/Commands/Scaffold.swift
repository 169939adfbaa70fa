import Foundation

/// `matsite init`: a project that builds offline on the first try.
public enum Scaffold {
    /// Files `init` writes, relative to the project folder.
    public static let files = ["matsite.yml", "README.md"]

    /// Writes the project into `folder`; refuses to overwrite anything.
    public static func create(in folder: URL) throws -> [String] {
        let existing = (files + ["templates"]).filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
        guard existing.isEmpty else {
            throw ConfigError(
                file: folder.path, line: nil, keyPath: "",
                message: "refusing to overwrite \(existing.joined(separator: ", ")); choose an empty folder")
        }
        do {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("templates"), withIntermediateDirectories: true)
            try Data(config.utf8).write(to: folder.appendingPathComponent("matsite.yml"))
            try Data(readme.utf8).write(to: folder.appendingPathComponent("README.md"))
        } catch {
            throw BuildError.stage(.scaffold, ScaffoldWriteError(folder: folder.path, underlying: error))
        }
        return files + ["templates/"]
    }

    /// The templates folder of the project in `folder`: the one its `matsite.yml` names
    /// (`templates:`), else `templates/` beside it; `named` is false when a config there
    /// names none (files written there are then not used until it does).
    /// - Throws: ``ConfigError`` when the project's config cannot be read.
    public static func templatesFolder(of folder: URL) throws -> (folder: URL, named: Bool) {
        let file = folder.appendingPathComponent("matsite.yml")
        guard FileManager.default.fileExists(atPath: file.path) else { return (folder.appendingPathComponent("templates"), true) }
        let config = try ConfigLoader.load(file: file)
        guard let templates = config.templates else { return (folder.appendingPathComponent("templates"), false) }
        return (config.resolve(templates).standardizedFileURL, true)
    }

    /// Writes matsite's default templates (every file of its `templates/`, as compiled in)
    /// into `folder`, to edit: all of them, or none when any is there already, unless
    /// `force` replaces those. Returns the files written, relative to `folder`, sorted.
    public static func writeTemplates(into folder: URL, force: Bool) throws -> [String] {
        let names = EmbeddedTemplates.files.keys.sorted()
        let existing = names.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
        guard force || existing.isEmpty else {
            let shown = existing.prefix(4).joined(separator: ", ") + (existing.count > 4 ? " and \(existing.count - 4) more" : "")
            throw ConfigError(
                file: folder.path, line: nil, keyPath: "",
                message: "refusing to overwrite \(shown); nothing was written (--force replaces them with matsite's own)")
        }
        do {
            for name in names {
                let file = folder.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data((EmbeddedTemplates.files[name] ?? "").utf8).write(to: file)
            }
        } catch {
            throw BuildError.stage(.scaffold, ScaffoldWriteError(folder: folder.path, underlying: error))
        }
        return names
    }

    static let config = """
        # matsite.yml: one site of animated map layers.
        # `matsite build` turns it into site/ (frames, manifests, player pages).
        # Every key is documented in matsite's docs/config.md; unknown keys are errors.

        title: My weather loops
        base_url: /                  # where site/ will be served (used in the iframe snippet)
        output: site
        cache: .matsite-cache
        templates: templates         # files here override matsite's default pages

        # Background map for the player, loaded by viewers' browsers on demand.
        # The demo base map needs no network at all:
        base_map: { demo: true }
        # base_map:
        #   url: https://tile.openstreetmap.org/{z}/{x}/{y}.png
        #   attribution: "© <a href=\\"https://www.openstreetmap.org/copyright\\">OpenStreetMap</a> contributors"
        #   max_zoom: 19

        http:
          user_agent: "my-weather-loops/1.0 (you@example.org)"   # say who you are to tile servers
          concurrency: 6
          retries: 4

        animations:
          - id: demo
            title: Demo radar (procedural, offline)
            bbox: [-10.5, 40.0, 12.5, 53.0]   # west, south, east, north
            zoom: 6
            frame_duration_ms: 400
            last_frame_duration_ms: 1500
            crossfade_ms: 250
            attribution: "Demo data made by matsite"
            source: { demo: radar }           # weather drawn from the clock: it moves like a live feed
            frames:                           # a rolling window: the last two hours, every 10 minutes;
              last: PT1H50M                   # each build (or --at) moves it on, and frames that stay
              step: PT10M                     # in the window are kept, not drawn again
            time_label: both                  # "12:40 PM · 20 minutes ago"; absolute | relative | both
            opacity: 0.85                     # the layer's opacity in the player (a slider changes it)
            legend:                           # the colour key under the map: [value, colour, label]
              unit: dBZ
              stops: [[10, "#78c8e6"], [20, "#1e78cd", "20 light"], [30, "#149632"], [40, "#f0e628", "40 moderate"],
                      [50, "#fa8c14", "50 heavy"], [60, "#c81414", "60 hail"], [70, "#e628c8"]]
            points:                           # point layers, clustered when the site is built
              - id: reports
                title: Storm reports
                demo: reports                 # made from the same weather; or geojson: FILE, csv: FILE, url: URL
                time: time                    # each report shows in the frames of the
                window: PT30M                 # 30 minutes after its time
                label: type
                popup: [type, magnitude, time, remarks]
            # export: [gif, mp4]              # the loop as files to post (labels need fonts-dejavu-core; MP4 ffmpeg)

        # More sources: uncomment one animation at a time and adapt it.
        #
        #  - id: radar-xyz                       # an XYZ tile server with a time in the URL
        #    title: Radar, last hour
        #    bbox: [-95.5, 29.0, -74.5, 43.5]
        #    zoom: 6
        #    source:
        #      url: https://{s}.radar.example.org/{time}/{z}/{x}/{y}.png
        #      subdomains: [a, b, c]
        #      max_zoom: 7
        #    frames:                               # a rolling window: the last hour, every 10 minutes,
        #      last: PT1H                          # ending at now - 2 minutes (the feed's lag);
        #      step: PT10M                         # a newest frame not published yet is left out
        #      delay: PT2M                         # until the next build
        #    time_format: "%Y%m%d%H%M"
        #
        #  - id: radar-index                      # a feed that lists its frames in a JSON index
        #    title: Radar, newest 12
        #    bbox: [-95.5, 29.0, -74.5, 43.5]
        #    zoom: 5
        #    source: { url: "{host}{path}/256/{z}/{x}/{y}/2/1_1.png", max_zoom: 7 }
        #    frames:
        #      index:
        #        url: https://api.example.org/public/weather-maps.json
        #        items: radar.past                 # the list, by dotted path
        #        time: time                        # Unix seconds or ISO 8601
        #        fields: { path: path }            # {path} from each item
        #        globals: { host: host }           # {host} from the document's root
        #        latest: 12
        #
        #  - id: local-tiles                      # tiles in folders, one per frame
        #    title: Model run
        #    bbox: [5.0, 45.0, 11.0, 48.0]
        #    zoom: 7
        #    missing: transparent                 # gdal2tiles leaves out empty tiles: draw them empty
        #    source: { path: "tiles/{frame}/{z}/{x}/{y}.png" }
        #    frames: { count: 24 }
        #
        #  - id: archive                          # one MBTiles archive per frame
        #    title: Flood forecast
        #    bbox: [5.0, 45.0, 11.0, 48.0]
        #    zoom: 8
        #    source: { mbtiles: "mbtiles/{frame}.mbtiles" }
        #    frames: { count: 6 }
        #
        #  - id: wmts                             # a WMTS layer with a time dimension
        #    title: Satellite, last two hours
        #    bbox: [-20.0, 30.0, 40.0, 60.0]
        #    zoom: 4
        #    source:
        #      wmts: { capabilities: "https://wmts.example.org/WMTSCapabilities.xml", layer: IR_108 }
        #    frames: { last: PT2H, latest: 12 }     # advertised times of the last two hours, at most 12
        #
        #  - id: wms                              # a WMS layer with a time dimension
        #    title: Precipitation, newest 8
        #    bbox: [-125.0, 24.0, -66.0, 50.0]
        #    zoom: 4
        #    source:
        #      wms: { url: "https://wms.example.org/wms", layers: precip, version: 1.3.0 }
        #    frames: { latest: 8 }
        #
        #  - id: storm                            # layers on one timeline: radar over satellite
        #    title: Radar over satellite
        #    bbox: [-95.5, 29.0, -74.5, 43.5]
        #    zoom: 6
        #    frames: { last: PT2H, step: PT5M }    # the timeline the player steps through
        #    layers:                              # drawn bottom to top; each takes source, frames,
        #      - id: satellite                    # format, opacity, legend, attribution... as above
        #        title: Infrared satellite
        #        source: { url: "https://sat.example.org/{time}/{z}/{x}/{y}.jpg" }
        #        time_format: "%Y%m%d%H%M"
        #        frames: { last: PT2H, step: PT10M }   # its own cadence
        #        format: jpeg
        #        max_age: PT20M                   # older than this at a timeline time: not shown
        #      - id: radar                        # no frames: the timeline's times
        #        title: Radar
        #        source: { url: "https://radar.example.org/{time}/{z}/{x}/{y}.png" }
        #        time_format: "%Y%m%d%H%M"
        #        opacity: 0.8
        #        legend: { unit: dBZ, stops: [[5, "#04e9e7"], [35, "#fdf802"], [65, "#f800fd"]] }

        """

    static let readme = """
        # My matsite project

        Build the site (frames, manifests and player pages) into `site/`:

            matsite build

        Preview it at http://127.0.0.1:8000, rebuilding when `matsite.yml` or `templates/` change:

            matsite serve --watch

        Check the config and probe every source without writing anything:

            matsite check

        Publish by copying `site/` to any static host; embed an animation with the `<iframe>`
        snippet shown on `site/index.html`. Run `matsite build` from cron to keep loops current:
        unchanged frames are kept, tiles come from `.matsite-cache` when still fresh, and a
        failed run leaves the published site as it was.

        Change the pages: `matsite init --templates` copies matsite's own templates into
        `templates/` (`index.mustache`, `player.mustache`, `embed.mustache`, `assets/player.css`,
        ...). Edit what you want to change and delete the rest: a file in `templates/` replaces
        matsite's own, also after you upgrade matsite.

        """
}

/// `init` could not write its files.
struct ScaffoldWriteError: Swift.Error, CustomStringConvertible {
    let folder: String
    /// What the file system said.
    let underlying: any Error

    var description: String { "cannot write into \(folder): \(underlying.localizedDescription)" }
}
