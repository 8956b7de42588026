public import Foundation
public import SatchelOData

/// The arguments of `satchel-odata-gen` (and of the plugins that run it), parsed without dependencies.
///
/// ```
/// satchel-odata-gen --metadata Service.odata.xml --output Generated/ [--access internal] [--prefix SAP]
/// ```
public struct GeneratorCommandLine: Sendable, Hashable {
    /// The `$metadata` file to read (`--metadata`).
    public var metadataPath: String
    /// A directory, or a file path ending in `.swift` to write exactly that file.
    public var outputPath: String
    /// The generator's options (`--access`, `--prefix`, `--file-name`).
    public var options: ProxyGenerator.Options
    /// `--quiet` (or `-q`): print no warnings. `run()` prints nothing itself; the `satchel-odata-gen` tool reads this.
    public var quiet: Bool

    /// The usage text, which most argument errors add after their message.
    public static let usage = """
        usage: satchel-odata-gen --metadata FILE --output DIR|FILE.swift [--access public|internal] \
        [--prefix PREFIX] [--file-name NAME] [--quiet]
        """

    /// Parses arguments (without the program name); the error message says what is wrong.
    public init(arguments: [String]) throws(GeneratorError) {
        var metadata: String?
        var output: String?
        var options = ProxyGenerator.Options()
        var quiet = false
        var iterator = arguments.makeIterator()
        func value(_ name: String) throws(GeneratorError) -> String {
            guard let value = iterator.next() else { throw GeneratorError("\(name) needs a value\n\(Self.usage)") }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--metadata": metadata = try value(argument)
            case "--output": output = try value(argument)
            case "--access":
                let text = try value(argument)
                guard let access = ProxyGenerator.Options.Access(rawValue: text) else {
                    throw GeneratorError("--access is public or internal, got \(text)")
                }
                options.access = access
            case "--prefix": options.typePrefix = try value(argument)
            case "--file-name": options.fileName = try value(argument)
            case "--quiet", "-q": quiet = true
            default: throw GeneratorError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
        guard let metadata, let output else {
            throw GeneratorError("--metadata and --output are required\n\(Self.usage)")
        }
        self.metadataPath = metadata
        self.outputPath = output
        self.options = options
        self.quiet = quiet
    }

    /// Reads the metadata, generates, and writes the files (only those whose contents changed, so builds stay
    /// incremental). Returns the diagnostics.
    public func run() throws(GeneratorError) -> [ODataDiagnostic] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: metadataPath))
        } catch {
            throw GeneratorError("cannot read \(metadataPath): \(error.localizedDescription)")
        }
        let metadata: ODataMetadata
        do {
            metadata = try ODataMetadata.parse(data: data)
        } catch {
            throw GeneratorError("\(metadataPath) is not usable $metadata: \(error)")
        }
        var options = options
        let outputURL = URL(fileURLWithPath: outputPath)
        let toFile = outputPath.hasSuffix(".swift")
        if toFile { options.fileName = String(outputURL.deletingPathExtension().lastPathComponent) }
        let output = ProxyGenerator(metadata: metadata, options: options).generate()
        let directory = toFile ? outputURL.deletingLastPathComponent() : outputURL
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in output.files {
                try Self.write(file.contents, to: directory.appendingPathComponent(file.name))
            }
        } catch {
            throw GeneratorError("cannot write to \(directory.path): \(error.localizedDescription)")
        }
        return output.diagnostics
    }

    /// Writes `text` unless the file already holds exactly it.
    public static func write(_ text: String, to url: URL) throws {
        let data = Data(text.utf8)
        if (try? Data(contentsOf: url)) == data { return }
        try data.write(to: url, options: .atomic)
    }
}

/// A generator failure a person can act on.
public struct GeneratorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for a person to read (for most argument errors, followed by `usage`).
    public var message: String
    /// An error with `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
