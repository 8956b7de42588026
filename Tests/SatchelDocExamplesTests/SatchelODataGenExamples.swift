import Foundation
import SatchelOData
import SatchelODataGen

/// The code of SatchelODataGen's DocC article (GettingStarted.md), compiled with the suite.
enum ODataGenExamples {
    /// GettingStarted.md: generate proxies from a `$metadata` file into a directory.
    static func generate(metadataFile: URL, directory: URL) throws {
        let metadata = try ODataMetadata.parse(contentsOf: metadataFile)
        let options = ProxyGenerator.Options(access: .internal, typePrefix: "GW")
        let output = ProxyGenerator(metadata: metadata, options: options).generate()
        for diagnostic in output.diagnostics where diagnostic.severity == .warning {
            print(diagnostic)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for file in output.files {
            try GeneratorCommandLine.write(file.contents, to: directory.appendingPathComponent(file.name))
        }
    }

    /// GettingStarted.md: generate from the `$metadata` a running service sends.
    static func generate(from service: ODataService, into file: URL) async throws {
        let document = try await service.metadataDocument()
        let metadata = try ODataMetadata.parse(data: document)
        let output = ProxyGenerator(metadata: metadata).generate()
        if let generated = output.files.first {
            try GeneratorCommandLine.write(generated.contents, to: file)
        }
    }

    /// GettingStarted.md: the generator driven by command-line arguments, as `satchel-odata-gen` runs it.
    static func runCommandLine() {
        do {
            let commandLine = try GeneratorCommandLine(arguments: [
                "--metadata", "Sources/App/Catalog.odata.xml", "--output", "Sources/App/Generated/",
            ])
            let diagnostics = try commandLine.run()
            for diagnostic in diagnostics { print(diagnostic) }
        } catch {
            print(error.message)
        }
    }

    /// GettingStarted.md: how OData names become Swift names.
    static func names() -> [String] {
        let type = SwiftNames.upperCamel("CT_Address")  // "CTAddress"
        let member = SwiftNames.memberName("SO_ID")  // "soID"
        let keyword = SwiftNames.memberName("default")  // "`default`"
        return [type, member, keyword]
    }
}
