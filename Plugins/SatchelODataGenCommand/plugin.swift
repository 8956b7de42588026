import Foundation
import PackagePlugin

/// `swift package generate-odata-proxies [--target T …] [-- generator options]`: writes `<name>.swift` into
/// `Generated/` next to each `*.odata.xml` (or `*.edmx`) file of the chosen targets, for projects that commit
/// generated code instead of generating it at build time.
@main
struct SatchelODataGenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = Set(extractor.extractOption(named: "target"))
        let passThrough = extractor.remainingArguments
        let tool = try context.tool(named: "satchel-odata-gen")
        for target in context.package.targets {
            guard let target = target as? SourceModuleTarget,
                targetNames.isEmpty || targetNames.contains(target.name)
            else { continue }
            for file in target.sourceFiles where isMetadata(file.url) {
                let output = file.url.deletingLastPathComponent().appendingPathComponent("Generated")
                    .appendingPathComponent(swiftName(file.url))
                let process = Process()
                process.executableURL = tool.url
                process.arguments = ["--metadata", file.url.path, "--output", output.path] + passThrough
                try process.run()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else {
                    Diagnostics.error("satchel-odata-gen failed for \(file.url.lastPathComponent)")
                    return
                }
                print("Generated \(output.path)")
            }
        }
    }

    private func isMetadata(_ url: URL) -> Bool {
        url.lastPathComponent.hasSuffix(".odata.xml") || url.lastPathComponent.hasSuffix(".edmx")
    }

    private func swiftName(_ url: URL) -> String {
        let name = url.lastPathComponent
        for suffix in [".odata.xml", ".edmx"] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count)) + ".swift"
        }
        return name + ".swift"
    }
}
