import Foundation
import MatsiteCapabilities
import Testing

@testable import MatsiteKit

/// The manifests' JSON as the contract spells it (CONTRACT.md, "Manifests"): the keys,
/// what is left out, and what older manifests still decode to. The golden tests pin whole
/// built manifests; these pin the wire rules one by one, so a broken rule names itself.
@Suite("Manifest: the wire format")
struct ManifestWireTests {
    static let time = try! TimeInstant.parse("2026-11-21T10:00:00Z")

    static func frame(index: Int = 0, layers: [Int?]? = nil) -> AnimationManifest.Frame {
        AnimationManifest.Frame(
            index: index, url: layers == nil ? "frames/1a2b3c4d5e6f7a8b.png" : "", time: time, durationMs: 500,
            bytes: layers == nil ? 183_422 : 0, sha256: layers == nil ? String(repeating: "ab", count: 32) : "",
            missingTiles: nil, inputHash: layers == nil ? "cafe" : "", layers: layers)
    }

    static func manifest(frames: [AnimationManifest.Frame]) -> AnimationManifest {
        AnimationManifest(
            id: "radar", title: "Radar", bounds: BoundingBox(west: -95.5, south: 29, east: -74.5, north: 43.5),
            zoom: 7, width: 1911, height: 1582, tileSize: 256, attribution: "Data: NOAA", attributionHtml: "Data: NOAA",
            crossfadeMs: 300, loop: true, poster: "poster.png", baseMap: nil, fallback: nil,
            embed: .init(allowedOrigins: []), frames: frames)
    }

    static func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder.manifest.encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("an animation manifest writes the contract's keys in snake_case, and no key for what it lacks")
    func contractKeys() throws {
        let json = try Self.object(Self.manifest(frames: [Self.frame()]))
        for key in ["version", "id", "title", "bounds", "zoom", "width", "height", "tile_size", "attribution", "frames"] {
            #expect(json[key] != nil, "no \(key)")
        }
        #expect(json["tile_size"] as? Int == 256 && json["crossfade_ms"] as? Int == 300)
        // Optional parts absent from the value are absent from the JSON, never `null`.
        for key in ["skipped", "legend", "pyramid", "layers", "points", "exports", "fallback", "base_map", "time_zone"] {
            #expect(json[key] == nil, "\(key) written though the manifest has none")
        }
        let bounds = try #require(json["bounds"] as? [String: Double])
        #expect(bounds == ["west": -95.5, "south": 29, "east": -74.5, "north": 43.5])
        let frame = try #require((json["frames"] as? [[String: Any]])?.first)
        #expect(Set(frame.keys) == ["index", "url", "time", "duration_ms", "bytes", "sha256", "input_hash"])
        #expect(frame["time"] as? String == "2026-11-21T10:00:00Z")
    }

    @Test("the JSON is the same text every time: keys sorted, slashes unescaped")
    func stableText() throws {
        let manifest = Self.manifest(frames: [Self.frame(), Self.frame(index: 1)])
        let once = try JSONEncoder.manifest.encode(manifest)
        let twice = try JSONEncoder.manifest.encode(try JSONDecoder.manifest.decode(AnimationManifest.self, from: once))
        #expect(once == twice)
        let text = String(decoding: once, as: UTF8.self)
        #expect(text.contains("\"frames/1a2b3c4d5e6f7a8b.png\"") && !text.contains("\\/"))
        #expect(text.range(of: "\"attribution\"")!.lowerBound < text.range(of: "\"bounds\"")!.lowerBound)
    }

    @Test("a timeline entry of a layered animation has no file: url, bytes, sha256 and input_hash are left out and read back empty")
    func timelineEntry() throws {
        let entry = Self.frame(layers: [0, nil])
        let json = try Self.object(entry)
        #expect(Set(json.keys) == ["index", "time", "duration_ms", "layers"])
        #expect((json["layers"] as? [Any])?.count == 2 && (json["layers"] as? [Any])?[1] is NSNull)
        let back = try JSONDecoder.manifest.decode(AnimationManifest.Frame.self, from: try JSONEncoder.manifest.encode(entry))
        #expect(back == entry)
    }

    @Test("a frame without layers must name its file: the error names the missing key")
    func frameNeedsItsFile() throws {
        let json = Data(#"{"index": 0, "duration_ms": 500, "bytes": 1, "sha256": "ab", "input_hash": "c"}"#.utf8)
        do {
            _ = try JSONDecoder.manifest.decode(AnimationManifest.Frame.self, from: json)
            Issue.record("a frame without url decoded")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "url")
        }
    }

    @Test("a legend stop is written as the config writes it: [value, colour] or [value, colour, label]")
    func legendStops() throws {
        let legend = AnimationManifest.Legend(
            unit: "dBZ", stops: [.init(value: 10, color: "#9ad"), .init(value: 20, color: "#48f", label: "light")])
        let text = String(decoding: try JSONEncoder.manifest.encode(legend), as: UTF8.self)
        let compact = text.filter { !$0.isWhitespace }
        #expect(compact.contains(##"[10,"#9ad"]"##) && compact.contains(##"[20,"#48f","light"]"##), "\(text)")
        #expect(try JSONDecoder.manifest.decode(AnimationManifest.Legend.self, from: Data(text.utf8)) == legend)
    }

    @Test("a fallback written before tiles were named by content (url with {frame}) still decodes, with no templates")
    func olderFallback() throws {
        let json = Data(#"{"url": "tiles/{frame}/{z}/{x}/{y}.png", "min_zoom": 8, "max_native_zoom": 9}"#.utf8)
        let fallback = try JSONDecoder.manifest.decode(AnimationManifest.Fallback.self, from: json)
        #expect(fallback.templates.isEmpty && fallback.subdomains.isEmpty && fallback.published == nil)
        #expect(fallback.minZoom == 8 && fallback.maxNativeZoom == 9)
    }

    @Test("times are written to the whole second in UTC, also for an instant with milliseconds")
    func wholeSeconds() throws {
        let instant = TimeInstant(millisecondsSinceEpoch: Self.time.millisecondsSinceEpoch + 999)
        #expect(instant.manifestText == "2026-11-21T10:00:00Z")
        let before = TimeInstant(millisecondsSinceEpoch: -1)
        #expect(before.manifestText == "1969-12-31T23:59:59Z")
    }

    @Test("the site index lists each animation's page, embed, manifest and poster")
    func siteIndex() throws {
        let index = SiteManifest(
            title: "Weather", generator: "matsite 1.0.0",
            animations: [
                .init(
                    id: "radar", title: "Radar", page: "radar/index.html", embed: "radar/embed.html",
                    manifest: "radar/manifest.json", poster: "radar/poster.png")
            ])
        let json = try Self.object(index)
        #expect(Set(json.keys) == ["version", "title", "generator", "animations"] && json["version"] as? Int == 1)
        let entry = try #require((json["animations"] as? [[String: String]])?.first)
        #expect(
            entry == [
                "id": "radar", "title": "Radar", "page": "radar/index.html", "embed": "radar/embed.html",
                "manifest": "radar/manifest.json", "poster": "radar/poster.png",
            ])
    }
}
