import Foundation
import PackagePlugin

/// Compiles the package's top-level `templates/` folder into the MatsiteKit module, so
/// the `matsite` binary carries its default pages and player and runs from anywhere.
@main
struct EmbedTemplates: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "templates")
        var inputs: [URL] = []
        if let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let file as URL in walker where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                inputs.append(file)
            }
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedTemplates.swift")
        return [.buildCommand(
            displayName: "Embedding \(inputs.count) template files",
            executable: try context.tool(named: "embed-templates").url,
            arguments: [folder.path, output.path],
            inputFiles: inputs,
            outputFiles: [output]
        )]
    }
}
