import Foundation
import Testing

@testable import MatsiteDeploy
@testable import MatsiteKit

/// `matsite deploy` end to end: the real binary and the real rclone, to a folder (rclone's
/// local backend). Tests/deploy runs the same against SFTP and S3 servers.
@Suite("matsite deploy", .enabled(if: RcloneBinary.find(configured: nil) != nil, "rclone is not installed (scripts/install-deps.sh installs it)"))
struct DeployCommandTests {
    static func config(target: String?, create: Bool = false) -> String {
        """
        title: Deploy test
        animations:
          - id: loop
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 4
            source: { demo: radar }
            frames: { count: 3 }
        """ + (target.map { "\ndeploy:\n  target: \"\($0)\"\n" + (create ? "  create: true\n" : "") } ?? "\n")
    }

    @Test("a deploy sends the whole site, a second one nothing; --dry-run changes nothing")
    func sendsThenNothing() throws {
        let project = try CLI.scratch("deploy")
        defer { try? FileManager.default.removeItem(at: project) }
        let target = project.appendingPathComponent("remote")
        try Data(Self.config(target: target.path).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        #expect(try CLI.run(["build", "--quiet"], in: project).status == 0)
        // A folder that is not there is a typo until the config says to create it.
        let missing = try CLI.run(["deploy"], in: project)
        #expect(missing.status == 2)
        #expect(missing.err.contains("deploy.target: \(target.path) does not exist"), "\(missing.err)")
        #expect(missing.err.contains("deploy.create: true"))
        #expect(!FileManager.default.fileExists(atPath: target.path))
        try Data(Self.config(target: target.path, create: true).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        // What a deploy sends: the site but its dot-files and the builds' report, which stays
        // on the build host.
        let site = CLI.tree(project.appendingPathComponent("site")).filter { !$0.hasPrefix(".") && $0 != SiteStatus.file }
        #expect(FileManager.default.fileExists(atPath: project.appendingPathComponent("site/\(SiteStatus.file)").path))
        let files = site.filter { !$0.hasSuffix("/") && !FileManager.default.isDirectory(project.appendingPathComponent("site/\($0)")) }

        let dry = try CLI.run(["deploy", "--dry-run"], in: project)
        #expect(dry.status == 0, "\(dry.err)")
        #expect(dry.err.contains("  upload index.html ("))
        #expect(!FileManager.default.fileExists(atPath: target.path))

        let first = try CLI.run(["deploy"], in: project)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.err.contains("uploaded \(files.count) files"), "\(first.err)")
        #expect(CLI.tree(target) == (site + [DeployLedger.name]).sorted())
        for path in files {
            #expect(
                FileManager.default.contents(atPath: target.appendingPathComponent(path).path)
                    == FileManager.default.contents(atPath: project.appendingPathComponent("site/\(path)").path))
        }

        let again = try CLI.run(["deploy"], in: project)
        #expect(again.status == 0)
        #expect(again.err.hasSuffix("uploaded 0 files, 0 B; \(files.count) unchanged; deleted 0; 0 in their grace period\n"), "\(again.err)")
        let quiet = try CLI.run(["deploy", "--quiet"], in: project)
        #expect(quiet.status == 0 && quiet.err.isEmpty && quiet.out.isEmpty)
    }

    @Test("check says which rclone a deploy runs, whether the target is there, and how readers fare on it")
    func check() throws {
        let project = try CLI.scratch("deploy-check")
        defer { try? FileManager.default.removeItem(at: project) }
        let target = project.appendingPathComponent("remote")
        try Data(Self.config(target: target.path).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        let missing = try CLI.run(["check"], in: project)
        #expect(missing.status == 2, "as deploy ends for it: \(missing.out)\(missing.err)")
        #expect(missing.out.contains("deploy:\n  target: \(target.path)\n  rclone: v"), "\(missing.out)")
        #expect(missing.out.contains("problem: deploy.target does not exist: create it, or set deploy.create: true"))
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let present = try CLI.run(["check"], in: project)
        #expect(present.status == 0, "\(present.out)\(present.err)")
        #expect(present.out.contains("target: \(target.path) (reachable)"), "\(present.out)")
        #expect(present.out.contains("readers: local: rclone uploads to a temporary name and renames it into place"), "\(present.out)")
    }

    @Test("no deploy.target, or no built site, is a usage error (exit 2) saying what to do")
    func usageErrors() throws {
        let project = try CLI.scratch("deploy-usage")
        defer { try? FileManager.default.removeItem(at: project) }
        try Data(Self.config(target: nil).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        let missing = try CLI.run(["deploy"], in: project)
        #expect(missing.status == 2)
        #expect(missing.err.contains("matsite.yml: deploy.target: missing: add a deploy: section"), "\(missing.err)")
        try Data(Self.config(target: project.appendingPathComponent("remote").path).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        let unbuilt = try CLI.run(["deploy"], in: project)
        #expect(unbuilt.status == 2)
        #expect(unbuilt.err.contains("holds no built site (no manifest.json): run matsite build first"), "\(unbuilt.err)")
        // No matsite.yml at all: the embedded demo builds, but there is nothing to deploy.
        let empty = try CLI.scratch("deploy-none")
        defer { try? FileManager.default.removeItem(at: empty) }
        let none = try CLI.run(["deploy"], in: empty)
        #expect(none.status == 2)
        #expect(
            none.err
                == "error: \(empty.path)/matsite.yml: not found: deploy publishes the site a config describes; run it beside matsite.yml or name one with --config (it needs a deploy: section)\n",
            "\(none.err)")
        #expect(CLI.tree(empty).isEmpty, "nothing built, nothing written")
    }

    @Test("a frame's reduced copies go up as content-named (immutable) files and stay on the target while their frame is in the site")
    func reducedLevels() throws {
        let project = try CLI.scratch("deploy-levels")
        defer { try? FileManager.default.removeItem(at: project) }
        let target = project.appendingPathComponent("remote")
        // 1343 x 755 demo radar frames: two copies each (r1, r2).
        func config(frames: Int) -> String {
            """
            title: Deploy test
            animations:
              - id: loop
                bbox: [-125.0, 24.0, -66.0, 50.0]
                zoom: 5
                source: { demo: radar }
                frames: { count: \(frames) }
            deploy:
              target: "\(target.path)"
              create: true

            """
        }
        func copies(_ folder: URL) -> [String] {
            CLI.tree(folder).filter { $0.range(of: #"^loop/frames/[0-9a-f]{16}/r[12]\.png$"#, options: .regularExpression) != nil }
        }
        try Data(config(frames: 2).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        #expect(try CLI.run(["build", "--quiet"], in: project).status == 0)
        let first = copies(project.appendingPathComponent("site"))
        #expect(first.count == 4, "\(first)")
        for path in first {
            #expect(DeployWave.of(path) == .hashed && DeployWave.of(path).cacheControl.contains("immutable"), "\(path)")
        }
        let deployed = try CLI.run(["deploy"], in: project)
        #expect(deployed.status == 0, "\(deployed.err)")
        for path in first {
            #expect(
                FileManager.default.contents(atPath: target.appendingPathComponent(path).path)
                    == FileManager.default.contents(atPath: project.appendingPathComponent("site/\(path)").path), "\(path)")
        }
        // The window grows: the frames kept keep their copies in the site, so the deploy
        // sends only the new frame's, and nothing on the target leaves the site.
        try Data(config(frames: 3).utf8).write(to: project.appendingPathComponent("matsite.yml"))
        #expect(try CLI.run(["build", "--quiet"], in: project).status == 0)
        let second = copies(project.appendingPathComponent("site"))
        #expect(second.count == 6 && Set(first).isSubset(of: second), "\(second)")
        let again = try CLI.run(["deploy"], in: project)
        #expect(again.status == 0, "\(again.err)")
        #expect(again.err.hasSuffix("deleted 0; 0 in their grace period\n"), "\(again.err)")
        #expect(copies(target) == second)
    }
}

extension FileManager {
    fileprivate func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }
}
