import SatchelOData

/// A property of a generated struct.
struct PropertyModel: Hashable {
    var wireName: String
    var swiftName: String
    var kind: ValueKind
    var isOptional: Bool
    var declaredType: String { kind.swiftType + (isOptional ? "?" : "") }
}

/// A key part: its name in the URL, its Swift name, and how to read it from an entity (`nil` when it cannot).
struct KeyPartModel: Hashable {
    var wireName: String
    var swiftName: String
    var kind: ValueKind
    var access: String?
}

/// A filter field: a property path and its kind.
struct FieldModel: Hashable {
    var swiftName: String
    var path: String
    var literal: String
    var swiftType: String
}

/// A navigation accessor.
struct NavigationModel: Hashable {
    var wireName: String
    var swiftName: String
    var targetSwiftName: String
    var isCollection: Bool
}

/// An entity or complex type to generate.
struct StructModel: Hashable {
    var qualifiedName: String
    var swiftName: String
    var isEntity: Bool
    var baseType: String?
    var properties: [PropertyModel]
    var key: [KeyPartModel]
    var fields: [FieldModel]
    var navigation: [NavigationModel]
    var sets: [String]
}

/// An enumeration type to generate.
struct EnumModel: Hashable {
    var qualifiedName: String
    var swiftName: String
    var isFlags: Bool
    var members: [(wireName: String, swiftName: String, value: Int64)]

    static func == (lhs: EnumModel, rhs: EnumModel) -> Bool { lhs.qualifiedName == rhs.qualifiedName }
    func hash(into hasher: inout Hasher) { hasher.combine(qualifiedName) }
}

/// A parameter of a generated operation method.
struct ParameterModel: Hashable {
    var wireName: String
    var swiftName: String
    var kind: ValueKind
    var isOptional: Bool
}

/// A generated operation method (V2 function import, V4 unbound function or action import).
struct OperationModel: Hashable {
    var wireName: String
    var swiftName: String
    var kind: String
    var httpMethod: String?
    var returnType: String?
    var parameters: [ParameterModel]
}

/// The typed service.
struct ServiceModel: Hashable {
    var containerName: String
    var swiftName: String
    var sets: [(wireName: String, swiftName: String, entity: String, isSingleton: Bool)]
    var operations: [OperationModel]
    var skipped: [String]

    static func == (lhs: ServiceModel, rhs: ServiceModel) -> Bool { lhs.swiftName == rhs.swiftName }
    func hash(into hasher: inout Hasher) { hasher.combine(swiftName) }
}

/// Everything to render, names and types resolved.
struct ProxyModel {
    let metadata: ODataMetadata
    let options: ProxyGenerator.Options
    var structs: [StructModel] = []
    var enums: [EnumModel] = []
    var service: ServiceModel?
    var diagnostics: [ODataDiagnostic] = []
    /// Qualified EDM name → Swift type name.
    var typeNames: [String: String] = [:]

    init(metadata: ODataMetadata, options: ProxyGenerator.Options) {
        self.metadata = metadata
        self.options = options
    }

    var version: ODataVersion { metadata.version }

    mutating func build() {
        assignTypeNames()
        let entityTypes = metadata.schemas.flatMap(\.entityTypes).sorted { $0.qualifiedName < $1.qualifiedName }
        let complexTypes = metadata.schemas.flatMap(\.complexTypes).sorted { $0.qualifiedName < $1.qualifiedName }
        for type in metadata.schemas.flatMap(\.enumTypes).sorted(by: { $0.qualifiedName < $1.qualifiedName }) {
            enums.append(enumModel(type))
        }
        for type in complexTypes {
            structs.append(
                structModel(
                    qualifiedName: type.qualifiedName, baseType: type.baseType,
                    properties: metadata.allProperties(of: type), entity: nil))
        }
        for type in entityTypes {
            structs.append(
                structModel(
                    qualifiedName: type.qualifiedName, baseType: type.baseType,
                    properties: metadata.allProperties(of: type), entity: type))
        }
        structs.sort { $0.swiftName < $1.swiftName }
        enums.sort { $0.swiftName < $1.swiftName }
        service = serviceModel()
    }

    // MARK: Names

    /// Gives every entity, complex and enum type a unique Swift name; sorted by qualified name so the result
    /// never depends on document order.
    private mutating func assignTypeNames() {
        var taken = SwiftNames.reservedTypeNames
        var qualified: [(String, String)] = []
        for schema in metadata.schemas {
            for type in schema.entityTypes { qualified.append((type.qualifiedName, type.name)) }
            for type in schema.complexTypes { qualified.append((type.qualifiedName, type.name)) }
            for type in schema.enumTypes { qualified.append((type.qualifiedName, type.name)) }
        }
        for (qualifiedName, name) in qualified.sorted(by: { $0.0 < $1.0 }) {
            var candidate = options.typePrefix + SwiftNames.upperCamel(name)
            if taken.contains(candidate) {
                let namespace = qualifiedName.dropLast(name.count + 1).split(separator: ".").last.map(String.init)
                let qualifiedCandidate = options.typePrefix + SwiftNames.upperCamel((namespace ?? "") + "_" + name)
                candidate = taken.contains(qualifiedCandidate) ? qualifiedCandidate : qualifiedCandidate
            }
            typeNames[qualifiedName] = SwiftNames.unique(candidate, in: &taken)
        }
    }

    /// The kind of a type reference, or `nil` (with a diagnostic) when it cannot be mapped.
    private mutating func kind(of type: CSDLTypeReference, at location: String) -> ValueKind? {
        let element: ValueKind
        let name = metadata.resolve(type.name)
        if let primitive = type.primitive {
            if primitive == .stream {
                diagnostics.append(
                    .init(.note, "Edm.Stream properties are not generated (read them as media)", at: location))
                return nil
            }
            element = .primitive(primitive)
        } else if let definition = metadata.typeDefinition(named: name) {
            guard let primitive = definition.underlyingType.primitive else {
                diagnostics.append(.init(.warning, "type definition \(name) has no primitive type", at: location))
                return nil
            }
            element = .primitive(primitive)
        } else if let enumType = metadata.enumType(named: name), let swiftName = typeNames[enumType.qualifiedName] {
            element = .enumeration(
                swiftName: swiftName, qualifiedName: enumType.qualifiedName, isFlags: enumType.isFlags)
        } else if metadata.complexType(named: name) != nil || metadata.entityType(named: name) != nil,
            let swiftName = typeNames[name]
        {
            // An entity type of this service (an action's parameter, say) travels as its JSON object, as a complex
            // value does.
            element = .complex(swiftName)
        } else {
            diagnostics.append(.init(.warning, "unknown type \(type.name): generated as JSONValue", at: location))
            element = .primitive(.untyped)
        }
        return type.isCollection ? .collection(element) : element
    }

    // MARK: Types

    private mutating func enumModel(_ type: CSDLEnumType) -> EnumModel {
        var taken: Set<String> = ["rawValue", "memberNames", "allCases", "members"]
        let members = type.members.map { member in
            (member.name, SwiftNames.unique(SwiftNames.memberName(member.name), in: &taken), member.value)
        }
        return EnumModel(
            qualifiedName: type.qualifiedName, swiftName: typeNames[type.qualifiedName] ?? type.name,
            isFlags: type.isFlags, members: members)
    }

    private mutating func structModel(
        qualifiedName: String, baseType: String?, properties csdlProperties: [CSDLProperty], entity: CSDLEntityType?
    ) -> StructModel {
        let swiftName = typeNames[qualifiedName] ?? qualifiedName
        let location = (entity == nil ? "ComplexType(" : "EntityType(") + qualifiedName + ")"
        var taken: Set<String> = ["entityKey", "odataProperties", "odataTypeName"]
        var properties: [PropertyModel] = []
        for property in csdlProperties {
            guard let kind = kind(of: property.type, at: location + "/Property(\(property.name))") else { continue }
            let name = SwiftNames.unique(SwiftNames.memberName(property.name), in: &taken)
            // A V4 collection is never null itself (Nullable is about its elements); V2 follows Nullable.
            let optional = property.type.isCollection && version == .v4 ? false : property.type.nullable
            properties.append(PropertyModel(wireName: property.name, swiftName: name, kind: kind, isOptional: optional))
        }
        let fields = fieldModels(properties)
        var key: [KeyPartModel] = []
        var navigation: [NavigationModel] = []
        var sets: [String] = []
        if let entity {
            key = keyModel(entity, properties: properties, location: location)
            navigation = navigationModels(entity, location: location)
            sets = metadata.schemas.flatMap(\.entityContainers).flatMap { $0.entitySets + $0.singletons }
                .filter { metadata.resolve($0.entityType) == qualifiedName }.map(\.name).sorted()
        }
        return StructModel(
            qualifiedName: qualifiedName, swiftName: swiftName, isEntity: entity != nil, baseType: baseType,
            properties: properties, key: key, fields: fields, navigation: navigation, sets: sets)
    }

    /// Fields for primitive and enum properties, and one level into complex properties (`addressCity`).
    private func fieldModels(_ properties: [PropertyModel]) -> [FieldModel] {
        var fields: [FieldModel] = []
        var taken = Set(properties.map { SwiftNames.bare($0.swiftName) })
        for property in properties {
            if let literal = property.kind.literal("$0") {
                fields.append(
                    FieldModel(
                        swiftName: property.swiftName, path: property.wireName, literal: literal,
                        swiftType: property.kind.swiftType))
            } else if case .complex(let complexName) = property.kind,
                let complex = structs.first(where: { $0.swiftName == complexName })
            {
                for inner in complex.properties {
                    guard let literal = inner.kind.literal("$0") else { continue }
                    let name = SwiftNames.unique(
                        SwiftNames.escaped(SwiftNames.bare(property.swiftName) + SwiftNames.upperCamel(inner.wireName)),
                        in: &taken)
                    fields.append(
                        FieldModel(
                            swiftName: name, path: property.wireName + "/" + inner.wireName, literal: literal,
                            swiftType: inner.kind.swiftType))
                }
            }
        }
        return fields
    }

    private mutating func keyModel(
        _ entity: CSDLEntityType, properties: [PropertyModel], location: String
    ) -> [KeyPartModel] {
        let keyNames = metadata.key(of: entity)
        if keyNames.isEmpty {
            diagnostics.append(.init(.warning, "entity type without a key: no Key, no set accessors", at: location))
            return []
        }
        var taken: Set<String> = ["odataKey"]
        var parts: [KeyPartModel] = []
        for keyName in keyNames {
            let path = entity.keyAliases[keyName] ?? keyName
            let segments = path.split(separator: "/").map(String.init)
            var access: [String] = []
            var optional = false
            var current = properties
            var kind: ValueKind?
            for segment in segments {
                guard let property = current.first(where: { $0.wireName == segment }) else {
                    kind = nil
                    break
                }
                access.append(property.swiftName)
                optional = optional || property.isOptional
                kind = property.kind
                if case .complex(let name) = property.kind {
                    current = structs.first(where: { $0.swiftName == name })?.properties ?? []
                }
            }
            guard let kind, kind.literal("$0") != nil else {
                diagnostics.append(.init(.warning, "key property \(path) cannot be typed", at: location))
                return []
            }
            if optional {
                diagnostics.append(
                    .init(
                        .warning, "key property \(path) is nullable: the type gets no entityKey (Key(…) still works)",
                        at: location))
            }
            let name = SwiftNames.unique(SwiftNames.memberName(keyName), in: &taken)
            parts.append(
                KeyPartModel(
                    wireName: keyName, swiftName: name, kind: kind,
                    access: optional ? nil : access.joined(separator: ".")))
        }
        return parts
    }

    private mutating func navigationModels(_ entity: CSDLEntityType, location: String) -> [NavigationModel] {
        var taken: Set<String> = ["service", "path", "get", "update", "delete", "collection", "entity"]
        var result: [NavigationModel] = []
        for navigation in metadata.allNavigationProperties(of: entity) {
            guard let target = metadata.entityType(named: navigation.type.name),
                let targetName = typeNames[target.qualifiedName], !metadata.key(of: target).isEmpty
            else {
                diagnostics.append(
                    .init(
                        .note, "navigation property \(navigation.name) has no keyed target type: no accessor",
                        at: location))
                continue
            }
            result.append(
                NavigationModel(
                    wireName: navigation.name,
                    swiftName: SwiftNames.unique(SwiftNames.memberName(navigation.name), in: &taken),
                    targetSwiftName: targetName, isCollection: navigation.type.isCollection))
        }
        return result.sorted { $0.wireName < $1.wireName }
    }

    // MARK: Service

    private mutating func serviceModel() -> ServiceModel? {
        guard let container = metadata.entityContainer else {
            diagnostics.append(.init(.note, "no entity container: no service type", at: "$metadata"))
            return nil
        }
        var typeTaken = Set(typeNames.values).union(SwiftNames.reservedTypeNames)
        let swiftName = SwiftNames.unique(
            options.typePrefix + SwiftNames.upperCamel(container.name) + "Service", in: &typeTaken)
        var taken: Set<String> = ["service", "init"]
        var sets: [(String, String, String, Bool)] = []
        var skipped: [String] = []
        let keyed = Set(structs.filter { $0.isEntity && !$0.key.isEmpty }.map(\.qualifiedName))
        for set in (container.entitySets + container.singletons).sorted(by: { $0.name < $1.name }) {
            let typeName = metadata.resolve(set.entityType)
            guard keyed.contains(typeName), let entity = typeNames[typeName] else {
                diagnostics.append(
                    .init(.note, "\(set.name): its entity type has no key or is unknown", at: "EntitySet(\(set.name))"))
                skipped.append(set.name)
                continue
            }
            sets.append(
                (set.name, SwiftNames.unique(SwiftNames.memberName(set.name), in: &taken), entity, set.isSingleton))
        }
        var operations: [OperationModel] = []
        for operationImport in container.operationImports.sorted(by: { $0.name < $1.name }) {
            if let model = operationModel(operationImport, taken: &taken) {
                operations.append(model)
            } else {
                skipped.append(operationImport.name)
            }
        }
        for operation in metadata.schemas.flatMap(\.operations).filter(\.isBound)
            .sorted(by: { $0.qualifiedName < $1.qualifiedName })
        {
            diagnostics.append(
                .init(
                    .note,
                    "bound \(operation.kind.rawValue.lowercased()) \(operation.name) is not generated: "
                        + "call it with ODataService.call(_:parameters:boundTo:)",
                    at: "\(operation.kind.rawValue)(\(operation.qualifiedName))"))
            skipped.append(operation.qualifiedName)
        }
        return ServiceModel(
            containerName: container.name, swiftName: swiftName, sets: sets, operations: operations, skipped: skipped)
    }

    private mutating func operationModel(
        _ operationImport: CSDLOperationImport, taken: inout Set<String>
    ) -> OperationModel? {
        let location = "OperationImport(\(operationImport.name))"
        var parameters = operationImport.parameters
        var returnType = operationImport.returnType
        if let name = operationImport.operation {
            let declared = metadata.operations(named: name)
            let overloads = declared.filter { !$0.isBound }
            guard overloads.count == 1, let operation = overloads.first else {
                let reason =
                    if declared.isEmpty {
                        "it names \(name), which no schema declares"
                    } else if overloads.isEmpty {
                        "it names \(name), which is bound (an import names an unbound operation)"
                    } else {
                        "\(overloads.count) unbound overloads of \(name)"
                    }
                diagnostics.append(.init(.warning, "\(reason): not generated", at: location))
                return nil
            }
            parameters = operation.parameters
            returnType = operation.returnType
        }
        var parameterTaken: Set<String> = []
        var models: [ParameterModel] = []
        for parameter in parameters {
            guard let kind = kind(of: parameter.type, at: location + "/Parameter(\(parameter.name))") else {
                return nil
            }
            models.append(
                ParameterModel(
                    wireName: parameter.name,
                    swiftName: SwiftNames.unique(SwiftNames.memberName(parameter.name), in: &parameterTaken),
                    kind: kind, isOptional: parameter.type.nullable))
        }
        return OperationModel(
            wireName: operationImport.name,
            swiftName: SwiftNames.unique(SwiftNames.memberName(operationImport.name), in: &taken),
            kind: operationImport.kind.rawValue, httpMethod: operationImport.httpMethod,
            returnType: returnType?.description, parameters: models)
    }
}
