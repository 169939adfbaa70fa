import Foundation
import Mustache

/// Renders the site's pages from Mustache templates: the defaults compiled into matsite
/// from `templates/`, overridden file by file by a project's `templates:` folder.
///
/// Every `*.mustache` file is a template named by its path without the extension (so
/// partials work); files under `assets/` are published content-hashed.
struct PageRenderer: Sendable {
    private let library: MustacheLibrary
    /// Asset files by name (e.g. `player.js`), text.
    let assets: [String: String]
    /// The scripts concatenated into `player-bundle.js`, in order (`player-bundle.txt`).
    let bundle: [String]

    /// The file naming the bundle's scripts.
    static let bundleList = "player-bundle.txt"

    /// Loads the templates, applying overrides from `overrides` when given.
    init(overrides: URL?) throws {
        var files = EmbeddedTemplates.files
        if let overrides {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: overrides.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw PageTemplateError.folderMissing(overrides.path)
            }
            let root = overrides.standardizedFileURL.resolvingSymlinksInPath()
            if let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey]) {
                for case let file as URL in walker {
                    let values = try? file.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
                    guard values?.isRegularFile == true, values?.isSymbolicLink != true else { continue }
                    let relative = String(file.standardizedFileURL.path.dropFirst(root.path.count + 1))
                    guard let data = FileManager.default.contents(atPath: file.path), let text = String(data: data, encoding: .utf8) else {
                        throw PageTemplateError.notText(file.path)
                    }
                    files[relative] = text
                }
            }
        }
        var library = MustacheLibrary()
        var assets: [String: String] = [:]
        var bundle: [String] = []
        for (name, text) in files {
            if name.hasPrefix("assets/") {
                let assetName = String(name.dropFirst("assets/".count))
                guard !assetName.contains("/") else { continue }
                assets[assetName] = text
            } else if name == Self.bundleList {
                bundle = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            } else if name.hasSuffix(".mustache") {
                do { try library.register(text, named: String(name.dropLast(".mustache".count))) } catch {
                    throw PageTemplateError.doesNotParse(name: name, detail: "\(error)")
                }
            }
        }
        for required in ["index", "player", "embed"] where library.getTemplate(named: required) == nil {
            throw PageTemplateError.missing(required)
        }
        for name in bundle where assets[name] == nil {
            throw PageTemplateError.notAnAsset(list: Self.bundleList, name: name)
        }
        self.library = library
        self.assets = assets
        self.bundle = bundle
    }

    /// Renders a page: its context's template, filled from it.
    func render<Context: PageContext>(_ context: Context) throws -> String {
        guard let text = library.render(context, withTemplate: Context.template) else {
            throw PageTemplateError.missing(Context.template)
        }
        return text
    }
}

/// A page template that cannot be used. The templates are the project's own files (the
/// config's `templates:` folder over matsite's): an edit mends them, so a config error.
enum PageTemplateError: ClassifiedError, CustomStringConvertible, Equatable {
    /// The `templates:` folder is not there.
    case folderMissing(String)
    /// A template file is not UTF-8 text.
    case notText(String)
    /// A template does not parse: the Mustache library's words.
    case doesNotParse(name: String, detail: String)
    /// A template a page needs is not there.
    case missing(String)
    /// The bundle's list names a script that is not among the assets.
    case notAnAsset(list: String, name: String)

    var exitClass: ExitClass { .config }

    var description: String {
        switch self {
        case .folderMissing(let path): "the templates folder \(path) does not exist (config key templates)"
        case .notText(let path): "template \(path) is not UTF-8 text"
        case .doesNotParse(let name, let detail): "template \(name) does not parse: \(detail)"
        case .missing(let name): "template \(name).mustache is missing"
        case .notAnAsset(let list, let name): "template \(list) lists \(name), which is not a file of assets/"
        }
    }
}
