import Foundation

/// An object type: its place in the hierarchy, its flags and its property definitions.
///
/// ```swift
/// let type = try BrowserParser.typeDefinition(data)
/// type.baseTypeId                                        // .document
/// type.propertyDefinition(id: "cmis:name")?.updatability // .readwrite
/// ```
public struct TypeDefinition: Sendable, Hashable {
    /// The type id (`cmis:document`, `D:my:invoice` …).
    public var id: String
    /// The local name, when given.
    public var localName: String?
    /// The local namespace, when given.
    public var localNamespace: String?
    /// A name to show, when given.
    public var displayName: String?
    /// The name to use in CMIS QL (`FROM …`), when given.
    public var queryName: String?
    /// What the type is for, when given.
    public var description: String?
    /// The base type the type derives from.
    public var baseTypeId: BaseTypeId
    /// The parent type; `nil` for base types.
    public var parentTypeId: String?
    /// Whether objects of this type can be created; `nil` when not given.
    public var creatable: Bool?
    /// Whether objects of this type can be filed in folders; `nil` when not given.
    public var fileable: Bool?
    /// Whether the type can be used in a query's `FROM`; `nil` when not given.
    public var queryable: Bool?
    /// Whether objects of this type are full-text indexed; `nil` when not given.
    public var fulltextIndexed: Bool?
    /// Whether queries on a supertype return objects of this type; `nil` when not given.
    public var includedInSupertypeQuery: Bool?
    /// Whether policies can be applied to objects of this type; `nil` when not given.
    public var controllablePolicy: Bool?
    /// Whether ACLs of objects of this type can be changed; `nil` when not given.
    public var controllableACL: Bool?
    /// Whether the type may be subtyped, changed or deleted; `nil` when not given.
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
    /// Whether subtypes of the type may be created; `nil` when not given.
    public var create: Bool?
    /// Whether the type may be changed; `nil` when not given.
    public var update: Bool?
    /// Whether the type may be deleted; `nil` when not given.
    public var delete: Bool?

    /// Mutability with these flags; each defaults to unknown.
    public init(create: Bool? = nil, update: Bool? = nil, delete: Bool? = nil) {
        self.create = create
        self.update = update
        self.delete = delete
    }
}

/// A page of type definitions (`getTypeChildren`).
public struct TypeDefinitionList: Sendable, Hashable {
    /// The types of this page.
    public var types: [TypeDefinition]
    /// Whether more types follow this page.
    public var hasMoreItems: Bool
    /// The total number of types, when the repository knows it.
    public var numItems: Int64?

    /// A page of types; `hasMoreItems` defaults to `false`, `numItems` to unknown.
    public init(types: [TypeDefinition], hasMoreItems: Bool = false, numItems: Int64? = nil) {
        self.types = types
        self.hasMoreItems = hasMoreItems
        self.numItems = numItems
    }
}

/// A node of the type tree (`getTypeDescendants`).
public struct TypeDefinitionContainer: Sendable, Hashable {
    /// The type at this node.
    public var type: TypeDefinition
    /// The node's subtypes, as far as the requested depth reaches.
    public var children: [TypeDefinitionContainer]

    /// A node with its subtypes (none by default).
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
