import Foundation

/// A project as the commands find it: the config named by `--config`, else
/// `./matsite.yml`, else the embedded demo, so `matsite build` in an empty folder shows
/// something, offline.
public struct Project: Sendable {
    /// The loaded config.
    public let config: SiteConfig
    /// The `--config` path as given; nil for the default. Kept so a watcher reloads the
    /// same file the command was started with.
    public let configPath: String?
    /// The folder relative paths are read from (the current folder of the command).
    public let directory: URL
    /// Whether no config file was found and the embedded demo stands in for one.
    public let isEmbeddedDemo: Bool
    /// What the embedded demo leaves out on this machine, and why (a tool it lacks).
    public var demoLeftOut: [DemoLeftOut] = []

    /// Loads the project's config.
    ///
    /// - Parameters:
    ///   - configPath: `--config` as given (relative to `directory`); nil looks for
    ///     `matsite.yml` in `directory` and falls back to the embedded demo.
    ///   - directory: the command's current folder.
    /// - Throws: ``ConfigError`` for a config that is missing (when named) or invalid.
    public static func load(
        config configPath: String?,
        directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) throws -> Project {
        if let configPath {
            let file = URL(fileURLWithPath: configPath, relativeTo: directory).standardizedFileURL
            return Project(config: try ConfigLoader.load(file: file), configPath: configPath, directory: directory, isEmbeddedDemo: false)
        }
        let file = directory.appendingPathComponent("matsite.yml")
        if FileManager.default.fileExists(atPath: file.path) {
            return Project(config: try ConfigLoader.load(file: file), configPath: nil, directory: directory, isEmbeddedDemo: false)
        }
        let demo = ConfigLoader.demo(directory: directory)
        return Project(config: demo.config, configPath: nil, directory: directory, isEmbeddedDemo: true, demoLeftOut: demo.leftOut)
    }

    /// The config file the project reads or, for the demo, the one whose appearance would
    /// replace it.
    public var configFile: URL {
        URL(fileURLWithPath: configPath ?? "matsite.yml", relativeTo: directory).standardizedFileURL
    }

    /// The same project read again from disk (after its files changed).
    public func reloaded() throws -> Project {
        try Project.load(config: configPath, directory: directory)
    }

    /// Builds the site, reporting first when the embedded demo stands in for a config.
    public func build(options: BuildOptions, reporter: any BuildReporter) async throws -> BuildSummary {
        if isEmbeddedDemo {
            reporter.report(.buildingEmbeddedDemo)
            for part in demoLeftOut { reporter.report(.warning(.demoLeftOut(part))) }
        }
        return try await Builder(config: config, options: options, reporter: reporter).run()
    }
}
