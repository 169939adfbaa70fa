import ArgumentParser
import Foundation
import MatsiteKit

/// The `matsite` command: parses, validates, calls one MatsiteKit entry point, and maps
/// errors to exit codes (0 built, 1 build failed, 2 bad config or usage).
@main
struct Matsite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matsite",
        abstract: "Pre-stitched animated map tiles: a static site of radar loops and satellite sequences.",
        discussion: """
        matsite reads matsite.yml, fetches the map tiles that cover each animation's box \
        (XYZ/TMS templates, WMTS, WMS, local folders, MBTiles), stitches every frame into one \
        PNG, and writes a static site with players that preload every frame and crossfade \
        without flicker.

        Exit codes: 0 success; 1 the build failed (fetch, decode, write); 2 bad config or usage.

        Examples:
          matsite build                      build ./matsite.yml (or the offline demo) into ./site
          matsite build --config radar.yml --output public
          matsite init my-loops              start a project that builds offline
          matsite serve --watch              preview ./site on http://127.0.0.1:8000
          matsite check                      validate the config and probe every source
        """,
        version: "matsite \(MatsiteKit.Matsite.version)",
        subcommands: [Build.self],
        defaultSubcommand: nil
    )
}

/// Shared exit-code mapping.
enum Exit {
    static func code(for error: any Error) -> Int32 {
        switch error {
        case is ConfigError: 2
        case is ValidationError: 2
        default: 1
        }
    }

    static func fail(_ error: any Error, reporter: ConsoleReporter? = nil) -> ExitCode {
        reporter?.finish()
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        return ExitCode(code(for: error))
    }
}

extension Matsite {
    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build the site: fetch tiles, stitch frames, write pages and manifests.",
            discussion: """
            Reads --config (default ./matsite.yml). With no config file present, builds the \
            embedded demo (procedural radar tiles, no network) into ./site.

            Publishing is atomic: the new site is built beside the output folder and swapped \
            in whole; a build that fails or is killed leaves the previous site as it was. \
            Frames whose input tiles did not change are kept, not stitched again.

            Progress goes to stderr: a live bar on a terminal, plain lines otherwise.
            """
        )

        @Option(name: .shortAndLong, help: "The config file (default: ./matsite.yml; the embedded demo when absent).")
        var config: String?

        @Option(name: .shortAndLong, help: "Output folder (overrides the config's output:).")
        var output: String?

        @Flag(name: .shortAndLong, help: "Print errors only.")
        var quiet = false

        @Flag(name: .shortAndLong, help: "Print every frame and detail.")
        var verbose = false

        @Flag(name: .customLong("no-cache"), help: "Ignore the tile cache: fetch everything and store nothing.")
        var noCache = false

        func run() async throws {
            let reporter = ConsoleReporter(mode: quiet ? .quiet : nil, verbose: verbose)
            let siteConfig: SiteConfig
            do {
                siteConfig = try ProjectConfig.load(config)
            } catch {
                throw Exit.fail(error)
            }
            if siteConfig.file == "(embedded demo)" { reporter.say("no matsite.yml here: building the embedded demo (offline)") }
            var options = BuildOptions()
            options.output = output
            options.useCache = !noCache
            do {
                let summary = try await Builder(config: siteConfig, options: options, reporter: reporter).run()
                reporter.finish()
                reporter.say(Self.describe(summary))
            } catch {
                throw Exit.fail(error, reporter: reporter)
            }
        }

        static func describe(_ s: BuildSummary) -> String {
            let reused = s.framesReused > 0 ? " (\(s.framesReused) unchanged)" : ""
            let fetched = s.requests > 0 ? ", \(s.requests) requests, \(ConsoleReporter.size(s.bytesFetched)) fetched" : ""
            let revalidated = s.notModified > 0 ? " (\(s.notModified) not modified)" : ""
            let state = s.unchanged ? "unchanged, nothing replaced" : "published"
            return "built \(s.animations) animation(s): \(s.frames) frames\(reused), \(s.tiles) tiles\(fetched)\(revalidated); \(ConsoleReporter.size(Int(s.outputBytes))) in \(s.output) (\(state)) in \(String(format: "%.2f", s.seconds)) s"
        }
    }
}

/// Which config a command uses.
enum ProjectConfig {
    static func load(_ path: String?) throws -> SiteConfig {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if let path {
            return try ConfigLoader.load(file: URL(fileURLWithPath: path, relativeTo: cwd).standardizedFileURL)
        }
        let file = cwd.appendingPathComponent("matsite.yml")
        if FileManager.default.fileExists(atPath: file.path) { return try ConfigLoader.load(file: file) }
        return ConfigLoader.demo(directory: cwd)
    }
}
