import Foundation

/// A service's `$metadata`: its schemas (types, associations, operations, containers), the protocol version,
/// and the diagnostics collected while reading it.
///
/// ```swift
/// let metadata = try ODataMetadata.parse(data: body)
/// let set = metadata.entitySet(named: "BusinessPartnerSet")
/// let type = set.flatMap { metadata.entityType(named: $0.entityType) }
/// print(metadata.version, type?.key ?? [], metadata.diagnostics.count)
/// ```
public struct ODataMetadata: Sendable, Hashable {
    /// The protocol version the document declares.
    public var version: ODataVersion
    /// The version as written (`DataServiceVersion` in V2, `Version` in V4): `"2.0"`, `"4.01"`, …
    public var versionText: String
    /// The schemas in document order.
    public var schemas: [CSDLSchema]
    /// V4 `edmx:Reference`s.
    public var references: [CSDLReference]
    /// What was skipped or could not be resolved; the model is usable anyway.
    public var diagnostics: [ODataDiagnostic]

    /// Metadata with the given parts; `versionText` defaults to the version's number (`2.0`, `4.0`).
    public init(
        version: ODataVersion, versionText: String? = nil, schemas: [CSDLSchema], references: [CSDLReference] = [],
        diagnostics: [ODataDiagnostic] = []
    ) {
        self.version = version
        self.versionText = versionText ?? version.rawValue
        self.schemas = schemas
        self.references = references
        self.diagnostics = diagnostics
    }

    // MARK: Types

    /// The entity type with this qualified name (an alias is resolved); `nil` when none.
    public func entityType(named name: String) -> CSDLEntityType? {
        let name = resolve(name)
        return schemas.lazy.flatMap(\.entityTypes).first { $0.qualifiedName == name }
    }

    /// The complex type with this qualified name (an alias is resolved); `nil` when none.
    public func complexType(named name: String) -> CSDLComplexType? {
        let name = resolve(name)
        return schemas.lazy.flatMap(\.complexTypes).first { $0.qualifiedName == name }
    }

    /// The enumeration type with this qualified name (an alias is resolved); `nil` when none.
    public func enumType(named name: String) -> CSDLEnumType? {
        let name = resolve(name)
        return schemas.lazy.flatMap(\.enumTypes).first { $0.qualifiedName == name }
    }

    /// The type definition with this qualified name (an alias is resolved); `nil` when none.
    public func typeDefinition(named name: String) -> CSDLTypeDefinition? {
        let name = resolve(name)
        return schemas.lazy.flatMap(\.typeDefinitions).first { $0.qualifiedName == name }
    }

    /// The V2 association with this qualified name (an alias is resolved); `nil` when none.
    public func association(named name: String) -> CSDLAssociation? {
        let name = resolve(name)
        return schemas.lazy.flatMap(\.associations).first { $0.qualifiedName == name }
    }

    /// V4 functions and actions with this qualified name (overloads included).
    public func operations(named name: String) -> [CSDLOperation] {
        let name = resolve(name)
        return schemas.flatMap(\.operations).filter { $0.qualifiedName == name }
    }

    /// The key property names of an entity type, inherited from its base types when it declares none.
    public func key(of type: CSDLEntityType) -> [String] {
        var current: CSDLEntityType? = type
        var seen = Set<String>()
        while let candidate = current, seen.insert(candidate.qualifiedName).inserted {
            if !candidate.key.isEmpty { return candidate.key }
            current = candidate.baseType.flatMap(entityType(named:))
        }
        return []
    }

    /// The structural properties of an entity type, base types' first.
    public func allProperties(of type: CSDLEntityType) -> [CSDLProperty] {
        chain(type).flatMap(\.properties)
    }

    /// The navigation properties of an entity type, base types' first.
    public func allNavigationProperties(of type: CSDLEntityType) -> [CSDLNavigationProperty] {
        chain(type).flatMap(\.navigationProperties)
    }

    /// The structural properties of a complex type, base types' first.
    public func allProperties(of type: CSDLComplexType) -> [CSDLProperty] {
        var types: [CSDLComplexType] = []
        var current: CSDLComplexType? = type
        var seen = Set<String>()
        while let candidate = current, seen.insert(candidate.qualifiedName).inserted {
            types.insert(candidate, at: 0)
            current = candidate.baseType.flatMap(complexType(named:))
        }
        return types.flatMap(\.properties)
    }

    private func chain(_ type: CSDLEntityType) -> [CSDLEntityType] {
        var types: [CSDLEntityType] = []
        var current: CSDLEntityType? = type
        var seen = Set<String>()
        while let candidate = current, seen.insert(candidate.qualifiedName).inserted {
            types.insert(candidate, at: 0)
            current = candidate.baseType.flatMap(entityType(named:))
        }
        return types
    }

    // MARK: Containers

    /// The default container: V2's `m:IsDefaultEntityContainer`, else the first one.
    public var entityContainer: CSDLEntityContainer? {
        let containers = schemas.flatMap(\.entityContainers)
        return containers.first(where: \.isDefault) ?? containers.first
    }

    /// All entity sets of all containers.
    public var entitySets: [CSDLEntitySet] { schemas.flatMap(\.entityContainers).flatMap(\.entitySets) }

    /// The entity set with this name, in any container; `nil` when none (singletons are not searched).
    public func entitySet(named name: String) -> CSDLEntitySet? {
        schemas.lazy.flatMap(\.entityContainers).flatMap(\.entitySets).first { $0.name == name }
    }

    /// The V4 singleton with this name, in any container; `nil` when none.
    public func singleton(named name: String) -> CSDLEntitySet? {
        schemas.lazy.flatMap(\.entityContainers).flatMap(\.singletons).first { $0.name == name }
    }

    /// A V2 function import or a V4 function/action import.
    public func operationImport(named name: String) -> CSDLOperationImport? {
        schemas.lazy.flatMap(\.entityContainers).flatMap(\.operationImports).first { $0.name == name }
    }

    /// The entity type of an entity set or singleton.
    public func entityType(ofSet name: String) -> CSDLEntityType? {
        (entitySet(named: name) ?? singleton(named: name)).flatMap { entityType(named: $0.entityType) }
    }

    // MARK: Annotations

    /// Annotations written apart for a target path (`NS.Type`, `NS.Type/Property`, `NS.Container/Set`),
    /// aliases resolved.
    public func externalAnnotations(for target: String) -> [CSDLAnnotation] {
        let target = resolve(target)
        return schemas.flatMap(\.annotationGroups).filter { resolve($0.target) == target }.flatMap(\.annotations)
    }

    /// A qualified name with a schema alias replaced by the schema's namespace.
    public func resolve(_ name: String) -> String {
        for schema in schemas {
            if let alias = schema.alias, name.hasPrefix(alias + ".") {
                return schema.namespace + name.dropFirst(alias.count)
            }
        }
        return name
    }
}
