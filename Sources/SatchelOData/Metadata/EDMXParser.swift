import SatchelXML

/// Turns an EDMX tree into an ``ODataMetadata``: one pass over the elements, then V2 associations resolved
/// into navigation targets, partners, constraints and entity-set bindings.
struct EDMXParser {
    var diagnostics: [ODataDiagnostic] = []
    var version: ODataVersion = .v4
    /// Alias → namespace, for every schema in the document.
    var aliases: [String: String] = [:]

    mutating func parse(_ root: XElement) throws -> ODataMetadata {
        guard root.name == "Edmx" else {
            throw ODataError(
                .invalidMetadata, "the document is not EDMX: its root element is <\(root.qualifiedName)>",
                location: "/\(root.qualifiedName)")
        }
        var versionText = root.attribute("Version") ?? ""
        if root.namespace == EDMXNamespace.edmxV4 || versionText.hasPrefix("4") {
            version = .v4
        } else {
            version = .v2
        }
        guard let services = root.child("DataServices") else {
            throw ODataError(.invalidMetadata, "the EDMX document has no DataServices element", location: "/Edmx")
        }
        if version == .v2 {
            versionText =
                services.attribute("DataServiceVersion", namespace: EDMXNamespace.dataServicesMetadata) ?? "2.0"
            if versionText.hasPrefix("3") {
                note(.note, "a V3 service is read with V2 rules", at: "/Edmx/DataServices")
            }
        }
        var references: [CSDLReference] = []
        for child in root.children where child.name != "DataServices" {
            if child.name == "Reference" {
                var includes: [String: String?] = [:]
                for include in child.children("Include") {
                    if let namespace = include.attribute("Namespace") {
                        includes[namespace] = include.attribute("Alias")
                        if let alias = include.attribute("Alias") { aliases[alias] = namespace }
                    }
                }
                references.append(CSDLReference(uri: child.attribute("Uri") ?? "", includes: includes))
            } else {
                note(.note, "unsupported element <\(child.name)> skipped", at: "/Edmx")
            }
        }
        let schemaElements = services.children("Schema")
        for schema in schemaElements {
            if let alias = schema.attribute("Alias"), let namespace = schema.attribute("Namespace") {
                aliases[alias] = namespace
            }
        }
        for child in services.children where child.name != "Schema" {
            note(.note, "unsupported element <\(child.name)> skipped", at: "/Edmx/DataServices")
        }
        var schemas = schemaElements.compactMap { parseSchema($0) }
        if schemas.isEmpty {
            note(.warning, "the document declares no schema", at: "/Edmx/DataServices")
        }
        if version == .v2 {
            resolveAssociations(&schemas)
        }
        return ODataMetadata(
            version: version, versionText: versionText, schemas: schemas, references: references,
            diagnostics: diagnostics)
    }

    mutating func note(_ severity: ODataDiagnostic.Severity, _ message: String, at location: String) {
        diagnostics.append(ODataDiagnostic(severity, message, at: location))
    }

    /// A qualified name with its alias replaced; `Collection(…)` kept around it.
    func resolve(_ name: String) -> String {
        if name.hasPrefix("Collection("), name.hasSuffix(")") {
            return "Collection(" + resolve(String(name.dropFirst(11).dropLast())) + ")"
        }
        guard let dot = name.lastIndex(of: ".") else { return name }
        let prefix = String(name[..<dot])
        if let namespace = aliases[prefix] { return namespace + name[dot...] }
        return name
    }
}
