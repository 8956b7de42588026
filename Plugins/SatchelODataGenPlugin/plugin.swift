import Foundation
import PackagePlugin

/// Generates typed OData proxies at build time from every `*.odata.xml` (or `*.edmx`) `$metadata` file in a
/// target's sources: one `<name>.swift` per file, compiled into the target.
@main
struct SatchelODataGenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "satchel-odata-gen")
        let inputs = target.sourceFiles.filter { MetadataFiles.isMetadata($0.url) }.map(\.url)
        return inputs.sorted { $0.path < $1.path }.map { input in
            let output = context.pluginWorkDirectoryURL.appendingPathComponent(MetadataFiles.swiftName(input))
            return .buildCommand(
                displayName: "Generating OData proxies from \(input.lastPathComponent)",
                executable: tool.url,
                arguments: ["--metadata", input.path, "--output", output.path, "--quiet"],
                inputFiles: [input],
                outputFiles: [output]
            )
        }
    }
}

/// Which files are `$metadata` documents, and what the generated file is called.
enum MetadataFiles {
    static let suffixes = [".odata.xml", ".edmx"]

    static func isMetadata(_ url: URL) -> Bool { suffixes.contains { url.lastPathComponent.hasSuffix($0) } }

    /// `Sales.odata.xml` → `Sales.swift`.
    static func swiftName(_ url: URL) -> String {
        let name = url.lastPathComponent
        let base = suffixes.first { name.hasSuffix($0) }.map { String(name.dropLast($0.count)) } ?? name
        return base + ".swift"
    }
}
