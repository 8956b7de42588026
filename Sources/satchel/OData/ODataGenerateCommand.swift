import ArgumentParser
import Foundation
import SatchelHTTP
import SatchelOData
import SatchelODataGen

/// `satchel odata generate`: typed Swift proxies from a service's `$metadata` (a file or a URL).
struct ODataGenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate typed Swift proxies from $metadata.",
        discussion: """
            Writes one Swift file with the entity, complex and enum types (Codable, pull-decodable), their keys \
            and filter fields, and a typed service with an accessor per entity set, singleton and operation \
            import. --metadata is a file or an http(s) URL (fetched with --user/--password-stdin and the other \
            connection options). Diagnostics (what could not be generated) go to standard error.
            """
    )

    @Option(help: ArgumentHelp("The $metadata document: a file or an http(s) URL.", valueName: "file|url"))
    var metadata: String

    @Option(help: ArgumentHelp("The directory to write to, or a file path ending in .swift.", valueName: "dir"))
    var output: String

    @Option(help: ArgumentHelp("public or internal declarations.", valueName: "level"))
    var access: String = "public"

    @Option(help: ArgumentHelp("Put before every generated type name.", valueName: "prefix"))
    var prefix: String = ""

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard ProxyGenerator.Options.Access(rawValue: access) != nil else {
            throw ValidationError("--access is public or internal, got \(access)")
        }
    }

    func run() async throws {
        let command = self
        try await CommandRunner.run(global) { try await command.generate() }
    }

    private func generate() async throws {
        let data = try await readMetadata()
        let document: ODataMetadata
        do {
            document = try ODataMetadata.parse(data: data)
        } catch {
            throw CLIError(.invalidResponse, "\(metadata) is not usable $metadata: \(error)")
        }
        var options = ProxyGenerator.Options(
            access: ProxyGenerator.Options.Access(rawValue: access) ?? .public, typePrefix: prefix)
        let toFile = output.hasSuffix(".swift")
        let outputURL = URL(fileURLWithPath: output)
        if toFile { options.fileName = outputURL.deletingPathExtension().lastPathComponent }
        let result = ProxyGenerator(metadata: document, options: options).generate()
        let directory = toFile ? outputURL.deletingLastPathComponent() : outputURL
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in result.files {
                let url = directory.appendingPathComponent(file.name)
                try GeneratorCommandLine.write(file.contents, to: url)
                Terminal.writeError("wrote \(url.path)\n")
            }
        } catch {
            throw CLIError(.localFile, "cannot write to \(directory.path): \(error.localizedDescription)")
        }
        for diagnostic in result.diagnostics { Terminal.writeError("\(diagnostic)\n") }
    }

    private func readMetadata() async throws -> Data {
        if metadata.hasPrefix("http://") || metadata.hasPrefix("https://") {
            let url = try ConnectionOptions.url(metadata, option: "--metadata")
            let request = HTTPClient.Request(
                .get, url: url, headers: ["Accept": "application/xml"], operation: "read $metadata")
            return try await connection.makeClient().send(request).body
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: metadata))
        } catch {
            throw CLIError(.localFile, "cannot read \(metadata): \(error.localizedDescription)")
        }
    }
}
