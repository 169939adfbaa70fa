// Builds killed (SIGKILL) at random points: the site must always be exactly the old one
// or exactly the complete new one, and the next build must succeed without cleanup.
// The suite runs a few trials; scripts/kill-test.sh runs many (MATSITE_KILL_TRIALS).

import Foundation
import Testing

@Suite("Interrupted builds: SIGKILL at random points never leaves a damaged site", .serialized)
struct InterruptedBuildTests {
    /// Builds compared file for file share one clock: the manifests say it as `now`.
    static let clock = "2026-11-21T12:00:00Z"

    static var trials: Int {
        ProcessInfo.processInfo.environment["MATSITE_KILL_TRIALS"].flatMap(Int.init) ?? 3
    }

    struct Bench {
        let root: URL
        let cli: URL
        let configs: [URL]
        let references: [[String: String]]
        /// Seconds a whole build takes here.
        let buildSeconds: Double

        var site: URL { root.appendingPathComponent("site") }

        func build(_ which: Int, into output: URL) throws -> (status: Int32, err: String) {
            let result = try Hostile.run(
                cli,
                [
                    "build", "--quiet", "--no-cache", "--config", configs[which].path,
                    "--output", output.path, "--at", InterruptedBuildTests.clock,
                ], in: root, timeout: 120)
            return (result.status, result.err)
        }
    }

    /// Two configs differing in title, frames and zoom, each built once as a reference.
    func bench() throws -> Bench {
        let cli = try #require(Hostile.cli, "build the CLI first: swift build")
        let root = try Hostile.scratch("kill")
        let frames = ProcessInfo.processInfo.environment["MATSITE_KILL_FRAMES"].flatMap(Int.init) ?? 4
        let yamls = [
            Hostile.demoYAML(title: "Old site", frames: frames, zoom: 4),
            Hostile.demoYAML(title: "New site", frames: frames + 2, zoom: 4),
        ]
        var configs: [URL] = []
        for (i, yaml) in yamls.enumerated() {
            let file = root.appendingPathComponent("config-\(i).yml")
            try Data(yaml.utf8).write(to: file)
            configs.append(file)
        }
        var bench = Bench(root: root, cli: cli, configs: configs, references: [], buildSeconds: 0)
        var references: [[String: String]] = []
        let started = Date()
        for i in 0..<2 {
            let reference = root.appendingPathComponent("reference-\(i)")
            let result = try bench.build(i, into: reference)
            try #require(result.status == 0, "reference build failed: \(result.err)")
            references.append(Hostile.snapshot(reference))
        }
        bench = Bench(
            root: root, cli: cli, configs: configs, references: references,
            buildSeconds: Date().timeIntervalSince(started) / 2)
        return bench
    }

    @Test("a build killed at random points leaves the old site or the complete new one, and the next build succeeds")
    func killedBuildsNeverDamageTheSite() throws {
        let bench = try bench()
        defer { Hostile.remove(bench.root) }
        let first = try bench.build(0, into: bench.site)
        try #require(first.status == 0, "\(first.err)")
        var current = 0
        var outcomes = [0, 0]
        for trial in 0..<Self.trials {
            let target = 1 - current
            let process = Process()
            process.executableURL = bench.cli
            process.arguments = [
                "build", "--quiet", "--no-cache", "--config", bench.configs[target].path, "--output", bench.site.path, "--at", Self.clock,
            ]
            process.currentDirectoryURL = bench.root
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            // Up to past the end of a build, so some kills land during or after the swap.
            let delay = Double.random(in: 0...(bench.buildSeconds * 1.5))
            try process.run()
            usleep(UInt32(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let now = Hostile.snapshot(bench.site)
            let which = bench.references.firstIndex(of: now)
            #expect(
                which != nil,
                "trial \(trial) (killed after \(String(format: "%.2f", delay)) s): the site is neither the old nor the new one; problems: \(Hostile.manifestProblems(bench.site))"
            )
            #expect(Hostile.manifestProblems(bench.site).isEmpty)
            if let which {
                outcomes[which == target ? 1 : 0] += 1
                current = which
            } else {
                break
            }
        }
        // The next build after a kill needs no cleanup, and tidies what the kill left.
        let target = 1 - current
        let last = try bench.build(target, into: bench.site)
        #expect(last.status == 0, "the build after the kills failed: \(last.err)")
        #expect(Hostile.snapshot(bench.site) == bench.references[target])
        let leftovers = Hostile.leftovers(
            beside: bench.site,
            keep: [
                "config-0.yml", "config-1.yml", "reference-0", "reference-1",
                ".reference-0.matsite-lock", ".reference-1.matsite-lock",
            ])
        #expect(leftovers.isEmpty, "left behind: \(leftovers)")
        print(
            "kill trials: \(Self.trials), old site kept \(outcomes[0]), new site complete \(outcomes[1]), damaged 0 (build \(String(format: "%.2f", bench.buildSeconds)) s)"
        )
    }
}
