import Foundation
import Testing

@testable import MatsiteKit

/// Overlapping builds of one output (cron firing while the last run is still going): the
/// lock beside the output serialises them, and the site is whole afterwards.
@Suite("Output lock and concurrent builds")
struct OutputLockTests {
    @Test("two builds of the same config and output at once both end cleanly and leave a valid site")
    func twoBuildsInOneProcess() async throws {
        let bench = try await CacheBench.start(cacheControl: "max-age=600", delay: .milliseconds(40))
        defer { bench.close() }
        let summaries = try await withThrowingTaskGroup(of: BuildSummary.self) { group in
            for _ in 0..<2 { group.addTask { try await bench.build(times: [0, 10, 20]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(summaries.count == 2)
        // One published; the other waited for it and found nothing to change.
        #expect(summaries.filter(\.unchanged).count == 1)
        try expectValidSite(bench.site.output)
        #expect(try bench.frameFiles().count == 3)
        #expect(try bench.site.entries().allSatisfy { !$0.contains("matsite-tmp") && !$0.contains("matsite-old") })
    }

    @Test("two matsite build processes on the same project at once both exit 0 and leave a valid site")
    func twoProcesses() throws {
        let folder = try CLI.scratch("lock")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.demoConfig.utf8).write(to: folder.appendingPathComponent("matsite.yml"))
        let builds = try (0..<2).map { _ in try CLI.Background(["build", "--quiet"], in: folder) }
        for build in builds { build.wait() }
        for build in builds {
            #expect(build.status == 0, "stderr: \(build.err)")
            #expect(build.err.isEmpty)
        }
        try expectValidSite(folder.appendingPathComponent("site"))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.allSatisfy { !$0.contains("matsite-tmp") && !$0.contains("matsite-old") }, "\(names)")
    }

    @Test("a lock held by another process makes a build with a short lockWait fail with BuildError.locked naming the lock file")
    func heldLock() async throws {
        let site = try TestSite()
        defer { site.remove() }
        let lockFile = site.root.appendingPathComponent(".site.matsite-lock").path
        let holder = try LockHolder(lockFile)
        defer { holder.release() }

        var options = BuildOptions()
        options.useCache = false
        options.lockWait = 0.5
        let yaml = site.yaml(
            """
              - id: demo
                bbox: [-10.0, 40.0, 10.0, 52.0]
                zoom: 4
                source: { demo: radar }
                frames: { count: 2 }
            """)
        await #expect {
            _ = try await Builder(config: site.config(yaml), options: options).run()
        } throws: { error in
            guard case BuildError.locked(let message) = error else { return false }
            // It says the wait it gave up after: the option's half second, not the default
            // 120 s (the message, not a clock, so a loaded machine cannot make it flaky).
            return message.contains(lockFile) && "\(error)".contains(lockFile) && message.contains("waited 0 s")
        }
        #expect(!FileManager.default.fileExists(atPath: site.output.path), "a locked-out build writes nothing")

        // The holder dies without unlocking (a killed build): the next build goes ahead.
        kill(holder.processIdentifier, SIGKILL)
        holder.process.waitUntilExit()
        _ = try await Builder(config: site.config(yaml), options: options).run()
        try expectValidSite(site.output)
    }

    @Test("a build kept waiting names the build that holds the lock: its pid, its command and since when")
    func holderNamed() async throws {
        try await withTestServer { server in
            // The holder hangs in fetch (the server never answers; stall_s and timeout_s far
            // away), holding the lock until it is killed.
            server.route(prefix: "/hung/", .noResponse)
            let project = try CLI.scratch("holder")
            defer { try? FileManager.default.removeItem(at: project) }
            let yaml = HostHealthTests.hungProject(server, frames: 2, http: "{ stall_s: 600, timeout_s: 600 }")
            try Data(yaml.utf8).write(to: project.appendingPathComponent("matsite.yml"))
            let holder = try CLI.Background(["build", "--quiet"], in: project)
            defer { holder.stop(signal: SIGKILL) }
            let lockFile = project.appendingPathComponent(".site.matsite-lock").path
            // Until the holder has written itself into the lock file (a bound for a hang only).
            let deadline = Date().addingTimeInterval(300)
            while Date() < deadline,
                !(FileManager.default.contents(atPath: lockFile).map { String(decoding: $0, as: UTF8.self) }?.contains("\"pid\":\(holder.pid)") ?? false)
            {
                try await Task.sleep(for: .milliseconds(50))
            }
            var config = try ConfigLoader.parse(Data(yaml.utf8), file: "matsite.yml")
            config.directory = project
            var options = BuildOptions()
            options.lockWait = 0.5
            let error = await #expect(throws: BuildError.self) { try await Builder(config: config, options: options).run() }
            let words = error?.description ?? ""
            #expect(words.hasPrefix("another build (pid \(holder.pid), `matsite build --quiet`, running since "), "\(words)")
            #expect(words.contains(" UTC, ") && words.contains(") holds \(lockFile): it is writing "), "\(words)")
            #expect(holder.isRunning)
        }
    }

    static let demoConfig = """
        title: Lock test
        output: site
        cache: cache
        leaflet: /usr/share/javascript/leaflet
        animations:
          - id: demo
            title: Demo
            bbox: [-10.0, 40.0, 10.0, 52.0]
            zoom: 5
            source: { demo: radar }
            frames: { count: 4 }
        """

    /// A process holding the lock on a file until told to let go: `flock --no-fork FILE sh`,
    /// whose shell says `held` once it has the lock and then holds it until its stdin closes.
    /// No clock anywhere: however loaded the machine, the lock is held from `init` until
    /// `release` (or a kill), never for a budget of seconds that a slow build could outlive.
    final class LockHolder {
        let process = Process()
        private let stdin = Pipe()

        /// Starts the holder and returns once it holds the lock (it printed `held`).
        init(_ path: String) throws {
            let stdout = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
            process.arguments = ["--exclusive", "--no-fork", path, "/bin/sh", "-c", "echo held; exec cat >/dev/null"]
            process.standardInput = stdin
            process.standardOutput = stdout
            try process.run()
            let said = stdout.fileHandleForReading.readData(ofLength: 5)
            guard String(decoding: said, as: UTF8.self) == "held\n" else {
                release()
                throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: path])
            }
        }

        var processIdentifier: Int32 { process.processIdentifier }

        /// Lets go: the shell's stdin closes, `cat` ends and the lock goes with it.
        func release() {
            try? stdin.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}
