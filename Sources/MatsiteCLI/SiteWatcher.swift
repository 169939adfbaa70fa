import Foundation
import MatsiteKit
import MatsiteServe

/// `matsite serve --watch`: rebuilds the served site when the project's config or
/// templates change, and tells open pages to reload.
///
/// It polls modification times (twice a second by default) rather than using inotify or
/// FSEvents: the files are few, polling behaves the same on every platform and on network
/// file systems, and editors that save by replacing a file are seen like any other write.
public struct SiteWatcher: Sendable {
    private let project: Project
    private let output: String
    private let server: StaticSiteServer
    private let reporter: any BuildReporter
    private let interval: Duration

    /// A watcher for `project` that builds into `output` (the folder `server` serves).
    public init(
        project: Project, output: String, server: StaticSiteServer, reporter: any BuildReporter,
        interval: Duration = .milliseconds(500)
    ) {
        self.project = project
        self.output = output
        self.server = server
        self.reporter = reporter
        self.interval = interval
    }

    /// Polls until the task is cancelled. A failed rebuild is reported and the watch goes
    /// on: the previous site stays served until the files are fixed. The YAML is read again
    /// only when something changed, not on every poll.
    public func run() async {
        var current = project
        var last = fingerprint(of: current)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let seen = fingerprint(of: current)
            guard seen != last else { continue }
            // Taken before the rebuild, so an edit made while it runs triggers another.
            last = seen
            reporter.report(.rebuilding)
            do {
                let previousTemplates = current.config.templates
                current = try current.reloaded()
                // A config that now names another templates folder: watch that one.
                if current.config.templates != previousTemplates { last = fingerprint(of: current) }
                var options = BuildOptions()
                options.output = output
                let summary = try await Builder(config: current.config, options: options, reporter: reporter).run()
                reporter.report(.rebuilt(summary))
                server.notifyReload()
            } catch {
                reporter.report(.rebuildFailed(error))
            }
        }
    }

    /// Modification times of the config file and of every file under the project's
    /// templates folder; a file that appears or goes changes it too.
    func fingerprint(of project: Project) -> [String: Date] {
        var paths = [project.configFile.path]
        if let templates = project.config.templates {
            let folder = project.config.resolve(templates)
            if let walker = FileManager.default.enumerator(atPath: folder.path) {
                for case let name as String in walker { paths.append(folder.appendingPathComponent(name).path) }
            }
        }
        var marks: [String: Date] = [:]
        for path in paths {
            if let date = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date { marks[path] = date }
        }
        return marks
    }
}
