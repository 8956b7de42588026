import Foundation

/// An object type: its place in the hierarchy, its flags and its property definitions.
///
/// ```swift
/// let type = try BrowserParser.typeDefinition(data)
/// type.baseTypeId                                        // .document
/// type.propertyDefinition(id: "cmis:name")?.updatability // .readwrite
/// ```
public struct TypeDefinition: Sendable, Hashable {
    public var id: String
    public var localName: String?
    public var localNamespace: String?
    public var displayName: String?
    public var queryName: String?
    public var description: String?
    public var baseTypeId: BaseTypeId
    /// The parent type; `nil` for base types.
    public var parentTypeId: String?
    public var creatable: Bool?
    public var fileable: Bool?
    public var queryable: Bool?
    public var fulltextIndexed: Bool?
    public var includedInSupertypeQuery: Bool?
    public var controllablePolicy: Bool?
    public var controllableACL: Bool?
    public var typeMutability: TypeMutability?
    /// Document types: whether documents of this type are versionable.
    public var versionable: Bool?
    /// Document types: whether content is allowed or required.
    public var contentStreamAllowed: ContentStreamAllowed?
    /// Relationship types: the allowed source types (empty: any).
    public var allowedSourceTypes: [String]?
    /// Relationship types: the allowed target types (empty: any).
    public var allowedTargetTypes: [String]?
    /// The property definitions in the order the repository sent them.
    public var propertyDefinitions: [PropertyDefinition] {
        didSet { propertyPositions = Self.positions(of: propertyDefinitions) }
    }
    /// Where each property id sits in ``propertyDefinitions`` (parsers look up every property of every object).
    private var propertyPositions: [String: Int]
    /// Repository-specific data.
    public var extensions: [CMISExtension]

    /// A type definition with the required fields.
    public init(
        id: String, baseTypeId: BaseTypeId, parentTypeId: String? = nil,
        propertyDefinitions: [PropertyDefinition] = []
    ) {
        self.id = id
        self.baseTypeId = baseTypeId
        self.parentTypeId = parentTypeId
        self.propertyDefinitions = propertyDefinitions
        propertyPositions = Self.positions(of: propertyDefinitions)
        extensions = []
    }

    /// The property definition with this id.
    public func propertyDefinition(id: String) -> PropertyDefinition? {
        propertyPosition(id: id).map { propertyDefinitions[$0] }
    }

    /// The index of the definition of `id` in ``propertyDefinitions``; read its fields through the array to
    /// avoid copying the whole definition.
    func propertyPosition(id: String) -> Int? { propertyPositions[id] }

    /// The first definition of each id wins, as a linear search would find it.
    private static func positions(of definitions: [PropertyDefinition]) -> [String: Int] {
        var positions = [String: Int](minimumCapacity: definitions.count)
        for (index, definition) in definitions.enumerated() where positions[definition.id] == nil {
            positions[definition.id] = index
        }
        return positions
    }
}

/// Whether a type may be subtyped, changed or deleted (CMIS 1.1).
public struct TypeMutability: Sendable, Hashable {
    public var create: Bool?
    public var update: Bool?
    public var delete: Bool?

    public init(create: Bool? = nil, update: Bool? = nil, delete: Bool? = nil) {
        self.create = create
        self.update = update
        self.delete = delete
    }
}

/// A page of type definitions (`getTypeChildren`).
public struct TypeDefinitionList: Sendable, Hashable {
    public var types: [TypeDefinition]
    public var hasMoreItems: Bool
    public var numItems: Int64?

    public init(types: [TypeDefinition], hasMoreItems: Bool = false, numItems: Int64? = nil) {
        self.types = types
        self.hasMoreItems = hasMoreItems
        self.numItems = numItems
    }
}

/// A node of the type tree (`getTypeDescendants`).
public struct TypeDefinitionContainer: Sendable, Hashable {
    public var type: TypeDefinition
    public var children: [TypeDefinitionContainer]

    public init(type: TypeDefinition, children: [TypeDefinitionContainer] = []) {
        self.type = type
        self.children = children
    }
}

extension [TypeDefinition] {
    /// Where the first of these types that defines property `id` has it: the type's index here, and the
    /// definition's position in its ``TypeDefinition/propertyDefinitions``. An object's property is defined by its
    /// type or one of its secondary types; reading fields through the positions copies no definition.
    func propertyPosition(id: String) -> (type: Int, position: Int)? {
        for type in indices {
            if let position = self[type].propertyPosition(id: id) { return (type, position) }
        }
        return nil
    }
}
