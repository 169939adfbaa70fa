import Foundation
import Testing

@testable import MatsiteKit

/// What a build may take from the site it replaces: frames by their inputs, reached
/// through no symlink, still the size their manifest says.
@Suite("Previous site")
struct PreviousSiteTests {
    static let demo = """
          - id: demo
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 3
            fallback: { levels: 0 }
            source: { demo: radar }
            frames: { count: 2 }
        """

    /// A site built from the demo, and its two frames' manifest entries.
    func builtSite() async throws -> (TestSite, [AnimationManifest.Frame]) {
        let site = try TestSite()
        try await site.build(site.yaml(Self.demo))
        let data = try Data(contentsOf: site.output.appendingPathComponent("demo/manifest.json"))
        return (site, try JSONDecoder.manifest.decode(AnimationManifest.self, from: data).frames)
    }

    @Test("each frame is found by its input hash; the last frame and the poster are known")
    func framesByInputHash() async throws {
        let (site, frames) = try await builtSite()
        defer { site.remove() }
        let previous = PreviousSite(output: site.output)
        for frame in frames {
            #expect(previous.frame(animation: "demo", inputHash: frame.inputHash) == frame)
        }
        #expect(previous.frame(animation: "demo", inputHash: "0000") == nil)
        #expect(previous.frame(animation: "other", inputHash: frames[0].inputHash) == nil)
        #expect(previous.isLastFrame(animation: "demo", inputHash: frames[1].inputHash))
        #expect(!previous.isLastFrame(animation: "demo", inputHash: frames[0].inputHash))
        #expect(previous.hasPoster(animation: "demo"))
    }

    @Test("a frame file changed in size since its manifest was written is not offered")
    func changedFileIsNotOffered() async throws {
        let (site, frames) = try await builtSite()
        defer { site.remove() }
        let file = site.output.appendingPathComponent("demo").appendingPathComponent(frames[0].url)
        try Data([0x89, 0x50]).write(to: file)
        let previous = PreviousSite(output: site.output)
        #expect(previous.frame(animation: "demo", inputHash: frames[0].inputHash) == nil)
        #expect(previous.frame(animation: "demo", inputHash: frames[1].inputHash) != nil)
    }

    @Test("files reached through a planted symlink are neither listed nor offered")
    func symlinksAreNotFollowed() async throws {
        let (site, frames) = try await builtSite()
        defer { site.remove() }
        // The frames folder moved elsewhere and linked back: same names, same sizes.
        let outside = site.root.appendingPathComponent("elsewhere")
        let folder = site.output.appendingPathComponent("demo/frames")
        try FileManager.default.moveItem(at: folder, to: outside)
        try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: outside)
        let previous = PreviousSite(output: site.output)
        #expect(previous.paths(under: "demo/frames/").isEmpty)
        #expect(frames.allSatisfy { previous.frame(animation: "demo", inputHash: $0.inputHash) == nil })
        #expect(!previous.link(animation: "demo", relative: frames[0].url, to: site.root.appendingPathComponent("taken.png")))
    }

    @Test("a manifest URL leaving the frames folder is never offered")
    func urlsStayInside() {
        #expect(PreviousSite.safeRelative("frames/1a2b3c4d5e6f7a8b.png"))
        #expect(!PreviousSite.safeRelative("../other/frames/1a2b3c4d5e6f7a8b.png"))
        #expect(!PreviousSite.safeRelative("frames/../../manifest.json"))
        #expect(!PreviousSite.safeRelative("/etc/passwd"))
        #expect(!PreviousSite.safeRelative("poster.png"))
    }

    @Test("a kept file is hard-linked: the new site's file is the same inode")
    func linkIsHardLink() async throws {
        let (site, frames) = try await builtSite()
        defer { site.remove() }
        let previous = PreviousSite(output: site.output)
        let target = site.root.appendingPathComponent("kept.png")
        #expect(previous.link(animation: "demo", relative: frames[0].url, to: target))
        let source = site.output.appendingPathComponent("demo").appendingPathComponent(frames[0].url)
        var a = stat(), b = stat()
        #expect(stat(source.path, &a) == 0 && stat(target.path, &b) == 0)
        #expect(a.st_ino == b.st_ino && a.st_dev == b.st_dev)
    }

    @Test("holds compares bytes, not only sizes")
    func holdsComparesBytes() async throws {
        let (site, _) = try await builtSite()
        defer { site.remove() }
        let previous = PreviousSite(output: site.output)
        let manifest = [UInt8](try Data(contentsOf: site.output.appendingPathComponent("manifest.json")))
        #expect(previous.holds(manifest, at: "manifest.json"))
        var changed = manifest
        changed[changed.count / 2] ^= 0x20
        #expect(!previous.holds(changed, at: "manifest.json"))
        #expect(!previous.holds(manifest, at: "missing.json"))
    }

    @Test("no previous site, or a damaged index, reads as empty")
    func emptyWhenAbsentOrDamaged() async throws {
        let (site, frames) = try await builtSite()
        defer { site.remove() }
        #expect(PreviousSite(output: site.root.appendingPathComponent("nothing-here")).files.isEmpty)
        try Data("{ not json".utf8).write(to: site.output.appendingPathComponent("manifest.json"))
        let previous = PreviousSite(output: site.output)
        #expect(previous.frame(animation: "demo", inputHash: frames[0].inputHash) == nil)
        #expect(!previous.hasPoster(animation: "demo"))
    }
}
