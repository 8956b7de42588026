/// A reference to a type: a primitive (`Edm.String`), an entity, complex or enum type by qualified name, or a
/// collection of one (`Collection(NS.Item)`), with its facets.
public struct CSDLTypeReference: Sendable, Hashable, CustomStringConvertible {
    /// The element type's qualified name (`Edm.Decimal`, `GWSAMPLE_BASIC.BusinessPartner`), alias resolved.
    public var name: String { didSet { primitive = EDMPrimitiveType(qualifiedName: name) } }
    /// The primitive type, when the element type is one (read once per name: payload readers ask per value).
    public private(set) var primitive: EDMPrimitiveType?
    public var isCollection: Bool
    public var nullable: Bool
    public var maxLength: String?
    public var precision: Int?
    /// `Scale` as written: a number, `variable` or `floating`.
    public var scale: String?
    public var srid: String?

    public init(
        name: String, isCollection: Bool = false, nullable: Bool = true, maxLength: String? = nil,
        precision: Int? = nil, scale: String? = nil, srid: String? = nil
    ) {
        self.name = name
        self.primitive = EDMPrimitiveType(qualifiedName: name)
        self.isCollection = isCollection
        self.nullable = nullable
        self.maxLength = maxLength
        self.precision = precision
        self.scale = scale
        self.srid = srid
    }

    /// Reads `Collection(X)` or `X`.
    public init(parsing text: String, nullable: Bool = true) {
        if text.hasPrefix("Collection("), text.hasSuffix(")") {
            self.init(name: String(text.dropFirst(11).dropLast()), isCollection: true, nullable: nullable)
        } else {
            self.init(name: text, nullable: nullable)
        }
    }

    public var description: String { isCollection ? "Collection(\(name))" : name }
}

/// A structural property of an entity or complex type.
public struct CSDLProperty: Sendable, Hashable {
    public var name: String
    public var type: CSDLTypeReference
    public var defaultValue: String?
    /// V2 `ConcurrencyMode="Fixed"`: the property takes part in the ETag.
    public var isConcurrencyToken: Bool
    public var annotations: [CSDLAnnotation]

    public init(
        name: String, type: CSDLTypeReference, defaultValue: String? = nil, isConcurrencyToken: Bool = false,
        annotations: [CSDLAnnotation] = []
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.isConcurrencyToken = isConcurrencyToken
        self.annotations = annotations
    }
}

/// A navigation property. In V2 it is resolved from its association: `type`, `partner` and
/// `referentialConstraints` are filled in from the `Association` the `Relationship` names.
public struct CSDLNavigationProperty: Sendable, Hashable {
    /// A dependent property and the principal property it refers to.
    public struct ReferentialConstraint: Sendable, Hashable {
        public var property: String
        public var referencedProperty: String
        public init(property: String, referencedProperty: String) {
            self.property = property
            self.referencedProperty = referencedProperty
        }
    }

    public var name: String
    /// The target entity type, a collection for to-many navigation. Empty name when a V2 association could not
    /// be resolved (see the diagnostics).
    public var type: CSDLTypeReference
    /// The navigation property on the target that leads back, if any.
    public var partner: String?
    /// V4 `ContainsTarget`: the targets live inside the source (containment).
    public var containsTarget: Bool
    public var referentialConstraints: [ReferentialConstraint]
    /// `OnDelete` action (`Cascade`, `None`, `SetNull`, `SetDefault`).
    public var onDelete: String?
    /// V2: the association's qualified name and the roles.
    public var relationship: String?
    public var fromRole: String?
    public var toRole: String?
    public var annotations: [CSDLAnnotation]

    public init(
        name: String, type: CSDLTypeReference, partner: String? = nil, containsTarget: Bool = false,
        referentialConstraints: [ReferentialConstraint] = [], onDelete: String? = nil, relationship: String? = nil,
        fromRole: String? = nil, toRole: String? = nil, annotations: [CSDLAnnotation] = []
    ) {
        self.name = name
        self.type = type
        self.partner = partner
        self.containsTarget = containsTarget
        self.referentialConstraints = referentialConstraints
        self.onDelete = onDelete
        self.relationship = relationship
        self.fromRole = fromRole
        self.toRole = toRole
        self.annotations = annotations
    }
}

/// An entity type: a key, properties, navigation properties.
public struct CSDLEntityType: Sendable, Hashable {
    public var name: String
    public var namespace: String
    public var baseType: String?
    /// The key property names (V4 property paths; an alias, when given, in `keyAliases`). Inherited keys are
    /// in ``ODataMetadata/key(of:)``.
    public var key: [String]
    /// Key alias → property path, for V4 keys on complex-typed properties.
    public var keyAliases: [String: String]
    public var properties: [CSDLProperty]
    public var navigationProperties: [CSDLNavigationProperty]
    public var isAbstract: Bool
    public var isOpen: Bool
    /// A media entity (`HasStream`, V2 `m:HasStream`).
    public var hasStream: Bool
    public var annotations: [CSDLAnnotation]

    public init(
        name: String, namespace: String, baseType: String? = nil, key: [String] = [],
        keyAliases: [String: String] = [:],
        properties: [CSDLProperty] = [], navigationProperties: [CSDLNavigationProperty] = [], isAbstract: Bool = false,
        isOpen: Bool = false, hasStream: Bool = false, annotations: [CSDLAnnotation] = []
    ) {
        self.name = name
        self.namespace = namespace
        self.baseType = baseType
        self.key = key
        self.keyAliases = keyAliases
        self.properties = properties
        self.navigationProperties = navigationProperties
        self.isAbstract = isAbstract
        self.isOpen = isOpen
        self.hasStream = hasStream
        self.annotations = annotations
    }

    public var qualifiedName: String { namespace + "." + name }
    public func property(_ name: String) -> CSDLProperty? { properties.first { $0.name == name } }
    public func navigationProperty(_ name: String) -> CSDLNavigationProperty? {
        navigationProperties.first { $0.name == name }
    }
}

/// A complex type: a structured value without identity.
public struct CSDLComplexType: Sendable, Hashable {
    public var name: String
    public var namespace: String
    public var baseType: String?
    public var properties: [CSDLProperty]
    public var navigationProperties: [CSDLNavigationProperty]
    public var isAbstract: Bool
    public var isOpen: Bool
    public var annotations: [CSDLAnnotation]

    public init(
        name: String, namespace: String, baseType: String? = nil, properties: [CSDLProperty] = [],
        navigationProperties: [CSDLNavigationProperty] = [], isAbstract: Bool = false, isOpen: Bool = false,
        annotations: [CSDLAnnotation] = []
    ) {
        self.name = name
        self.namespace = namespace
        self.baseType = baseType
        self.properties = properties
        self.navigationProperties = navigationProperties
        self.isAbstract = isAbstract
        self.isOpen = isOpen
        self.annotations = annotations
    }

    public var qualifiedName: String { namespace + "." + name }
    public func property(_ name: String) -> CSDLProperty? { properties.first { $0.name == name } }
}

/// An enumeration type (V4; V2 has none).
public struct CSDLEnumType: Sendable, Hashable {
    public struct Member: Sendable, Hashable {
        public var name: String
        public var value: Int64
        public var annotations: [CSDLAnnotation]
        public init(name: String, value: Int64, annotations: [CSDLAnnotation] = []) {
            self.name = name
            self.value = value
            self.annotations = annotations
        }
    }

    public var name: String
    public var namespace: String
    public var underlyingType: EDMPrimitiveType
    public var isFlags: Bool
    public var members: [Member]
    public var annotations: [CSDLAnnotation]

    public init(
        name: String, namespace: String, underlyingType: EDMPrimitiveType = .int32, isFlags: Bool = false,
        members: [Member] = [], annotations: [CSDLAnnotation] = []
    ) {
        self.name = name
        self.namespace = namespace
        self.underlyingType = underlyingType
        self.isFlags = isFlags
        self.members = members
        self.annotations = annotations
    }

    public var qualifiedName: String { namespace + "." + name }
    public func member(named name: String) -> Member? { members.first { $0.name == name } }
}

/// A V4 type definition: a named primitive type with facets.
public struct CSDLTypeDefinition: Sendable, Hashable {
    public var name: String
    public var namespace: String
    public var underlyingType: CSDLTypeReference
    public var annotations: [CSDLAnnotation]

    public init(name: String, namespace: String, underlyingType: CSDLTypeReference, annotations: [CSDLAnnotation] = [])
    {
        self.name = name
        self.namespace = namespace
        self.underlyingType = underlyingType
        self.annotations = annotations
    }

    public var qualifiedName: String { namespace + "." + name }
}
