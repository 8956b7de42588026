public import SatchelOData

/// Generates typed Swift proxies from a service's `$metadata`: entity and complex types as `Codable` structs
/// that also pull-decode (``SatchelJSON/JSONDecodable``), enums, typed keys and filter fields, and a typed
/// service with one accessor per entity set and singleton, navigation accessors and operation imports.
///
/// The pipeline is parse (``ODataMetadata/parse(data:)``) → model (names and Swift types resolved once) →
/// render. Output is deterministic: everything is sorted by name. What cannot be generated is reported as a
/// diagnostic and skipped, never thrown.
///
/// ```swift
/// let metadata = try ODataMetadata.parse(data: Data(contentsOf: metadataFile))
/// let output = ProxyGenerator(metadata: metadata, options: .init(access: .public)).generate()
/// for file in output.files { try file.contents.write(to: directory.appending(path: file.name), …) }
/// ```
public struct ProxyGenerator: Sendable {
    /// How code is generated.
    public struct Options: Sendable, Hashable {
        /// The access level of generated declarations.
        public enum Access: String, Sendable, Hashable, CaseIterable {
            case `public`
            case `internal`
        }

        public var access: Access
        /// Put before every generated type name (`SAP` → `SAPBusinessPartner`).
        public var typePrefix: String
        /// The generated file's name without `.swift`; default: the service type's name.
        public var fileName: String?

        public init(access: Access = .public, typePrefix: String = "", fileName: String? = nil) {
            self.access = access
            self.typePrefix = typePrefix
            self.fileName = fileName
        }
    }

    /// One generated source file.
    public struct File: Sendable, Hashable {
        public var name: String
        public var contents: String
    }

    /// The generated files and what could not be generated.
    public struct Output: Sendable, Hashable {
        public var files: [File]
        public var diagnostics: [ODataDiagnostic]
    }

    public let metadata: ODataMetadata
    public let options: Options

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
