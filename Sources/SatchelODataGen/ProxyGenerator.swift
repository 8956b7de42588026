public import SatchelOData

/// Generates typed Swift proxies from a service's `$metadata`: entity and complex types as `Codable` structs
/// that also pull-decode (`JSONDecodable`), enums, typed keys and filter fields, and a typed
/// service with one accessor per entity set and singleton, navigation accessors and operation imports.
///
/// The pipeline is parse (`ODataMetadata.parse(data:)`) → model (names and Swift types resolved once) →
/// render. Output is deterministic: everything is sorted by name. What cannot be generated is reported as a
/// diagnostic and skipped, never thrown.
///
/// ```swift
/// let metadata = try ODataMetadata.parse(data: Data(contentsOf: metadataFile))
/// let output = ProxyGenerator(metadata: metadata, options: .init(access: .public)).generate()
/// for file in output.files { try GeneratorCommandLine.write(file.contents, to: directory.appending(path: file.name)) }
/// ```
public struct ProxyGenerator: Sendable {
    /// How code is generated.
    public struct Options: Sendable, Hashable {
        /// The access level of generated declarations.
        public enum Access: String, Sendable, Hashable, CaseIterable {
            /// Generated declarations are `public`, and the file imports Foundation, SatchelJSON and SatchelOData
            /// publicly.
            case `public`
            /// Generated declarations have no access modifier (internal).
            case `internal`
        }

        /// The access level of generated declarations; `.public` by default.
        public var access: Access
        /// Put before every generated type name (`SAP` → `SAPBusinessPartner`).
        public var typePrefix: String
        /// The generated file's name without `.swift`; default: the service type's name.
        public var fileName: String?

        /// Options with the given parts; by default public, no prefix, the file named after the service type.
        public init(access: Access = .public, typePrefix: String = "", fileName: String? = nil) {
            self.access = access
            self.typePrefix = typePrefix
            self.fileName = fileName
        }
    }

    /// One generated source file.
    public struct File: Sendable, Hashable {
        /// The file's name, with `.swift`.
        public var name: String
        /// The Swift source.
        public var contents: String
    }

    /// The generated files and what could not be generated.
    public struct Output: Sendable, Hashable {
        /// The generated files (one today).
        public var files: [File]
        /// What could not be generated (notes and warnings); the metadata's own diagnostics are not repeated here.
        public var diagnostics: [ODataDiagnostic]
    }

    /// The parsed `$metadata` to generate from.
    public let metadata: ODataMetadata
    /// How code is generated.
    public let options: Options

    /// A generator for `metadata` with `options`.
    public init(metadata: ODataMetadata, options: Options = Options()) {
        self.metadata = metadata
        self.options = options
    }

    /// Generates the proxies: one file with the types and the service.
    public func generate() -> Output {
        var model = ProxyModel(metadata: metadata, options: options)
        model.build()
        let text = ProxyRenderer(model: model).render()
        let fileName = (options.fileName ?? model.service?.swiftName ?? "ODataProxies") + ".swift"
        return Output(files: [File(name: fileName, contents: text)], diagnostics: model.diagnostics)
    }
}
