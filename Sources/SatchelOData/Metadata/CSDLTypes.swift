/// A reference to a type: a primitive (`Edm.String`), an entity, complex or enum type by qualified name, or a
/// collection of one (`Collection(NS.Item)`), with its facets.
public struct CSDLTypeReference: Sendable, Hashable, CustomStringConvertible {
    /// The element type's qualified name (`Edm.Decimal`, `GWSAMPLE_BASIC.BusinessPartner`), alias resolved.
    public var name: String { didSet { primitive = EDMPrimitiveType(qualifiedName: name) } }
    /// The primitive type, when the element type is one (read once per name: payload readers ask per value).
    public private(set) var primitive: EDMPrimitiveType?
    /// Whether this is a collection of the element type (`Collection(…)`).
    public var isCollection: Bool
    /// `Nullable`: whether the value may be null (true when the attribute is missing).
    public var nullable: Bool
    /// `MaxLength` as written: a number or `max`.
    public var maxLength: String?
    /// `Precision`: digits for a decimal, fractional-second digits for a temporal type.
    public var precision: Int?
    /// `Scale` as written: a number, `variable` or `floating`.
    public var scale: String?
    /// `SRID` of a geo type, as written: a number or `variable`.
    public var srid: String?

    /// A reference to the type named `name` (qualified, alias resolved), with its facets.
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

    /// `Collection(Name)` or `Name`.
    public var description: String { isCollection ? "Collection(\(name))" : name }
}

/// A structural property of an entity or complex type.
public struct CSDLProperty: Sendable, Hashable {
    /// The property's name as sent.
    public var name: String
    /// The property's type and facets.
    public var type: CSDLTypeReference
    /// `DefaultValue` as written.
    public var defaultValue: String?
    /// V2 `ConcurrencyMode="Fixed"`: the property takes part in the ETag.
    public var isConcurrencyToken: Bool
    /// The property's annotations (V4 `Annotation` elements, V2 attributes such as `sap:label`).
    public var annotations: [CSDLAnnotation]

    /// A property with the given parts.
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
        /// The dependent property: the property of the navigation property's source.
        public var property: String
        /// The principal property it refers to, on the target.
        public var referencedProperty: String
        /// A constraint with the given parts.
        public init(property: String, referencedProperty: String) {
            self.property = property
            self.referencedProperty = referencedProperty
        }
    }

    /// The navigation property's name as sent.
    public var name: String
    /// The target entity type, a collection for to-many navigation. Empty name when a V2 association could not
    /// be resolved (see the diagnostics).
    public var type: CSDLTypeReference
    /// The navigation property on the target that leads back, if any.
    public var partner: String?
    /// V4 `ContainsTarget`: the targets live inside the source (containment).
    public var containsTarget: Bool
    /// The dependent properties and the principal properties they refer to (in V2, only on the dependent side).
    public var referentialConstraints: [ReferentialConstraint]
    /// `OnDelete` action (`Cascade`, `None`, `SetNull`, `SetDefault`).
    public var onDelete: String?
    /// V2: the association's qualified name and the roles.
    public var relationship: String?
    /// V2: the role of the association this navigation property starts from.
    public var fromRole: String?
    /// V2: the role of the association it leads to.
    public var toRole: String?
    /// The navigation property's annotations.
    public var annotations: [CSDLAnnotation]

    /// A navigation property with the given parts.
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
    /// The type's name, without its namespace.
    public var name: String
    /// The namespace of the schema declaring the type.
    public var namespace: String
    /// The qualified name of the type this one derives from, alias resolved.
    public var baseType: String?
    /// The key property names (V4 property paths; an alias, when given, in `keyAliases`). Inherited keys are
    /// in ``ODataMetadata/key(of:)``.
    public var key: [String]
    /// Key alias → property path, for V4 keys on complex-typed properties.
    public var keyAliases: [String: String]
    /// The structural properties declared by this type (inherited ones are in `ODataMetadata.allProperties(of:)`).
    public var properties: [CSDLProperty]
    /// The navigation properties declared by this type.
    public var navigationProperties: [CSDLNavigationProperty]
    /// `Abstract="true"`: only derived types have instances.
    public var isAbstract: Bool
    /// `OpenType="true"`: instances may carry properties not declared.
    public var isOpen: Bool
    /// A media entity (`HasStream`, V2 `m:HasStream`).
    public var hasStream: Bool
    /// The type's annotations.
    public var annotations: [CSDLAnnotation]

    /// An entity type with the given parts.
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

    /// `Namespace.Name`.
    public var qualifiedName: String { namespace + "." + name }
    /// The structural property declared here with this name; `nil` when none (inherited ones are not searched).
    public func property(_ name: String) -> CSDLProperty? { properties.first { $0.name == name } }
    /// The navigation property declared here with this name; `nil` when none (inherited ones are not searched).
    public func navigationProperty(_ name: String) -> CSDLNavigationProperty? {
        navigationProperties.first { $0.name == name }
    }
}

/// A complex type: a structured value without identity.
public struct CSDLComplexType: Sendable, Hashable {
    /// The type's name, without its namespace.
    public var name: String
    /// The namespace of the schema declaring the type.
    public var namespace: String
    /// The qualified name of the type this one derives from, alias resolved.
    public var baseType: String?
    /// The structural properties declared by this type (inherited ones are in `ODataMetadata.allProperties(of:)`).
    public var properties: [CSDLProperty]
    /// The navigation properties declared by this type (V4).
    public var navigationProperties: [CSDLNavigationProperty]
    /// `Abstract="true"`: only derived types have instances.
    public var isAbstract: Bool
    /// `OpenType="true"`: values may carry properties not declared.
    public var isOpen: Bool
    /// The type's annotations.
    public var annotations: [CSDLAnnotation]

    /// A complex type with the given parts.
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

    /// `Namespace.Name`.
    public var qualifiedName: String { namespace + "." + name }
    /// The structural property declared here with this name; `nil` when none (inherited ones are not searched).
    public func property(_ name: String) -> CSDLProperty? { properties.first { $0.name == name } }
}

/// An enumeration type (V4; V2 has none).
public struct CSDLEnumType: Sendable, Hashable {
    /// A member of an enumeration type.
    public struct Member: Sendable, Hashable {
        /// The member's name, as sent in payloads and literals.
        public var name: String
        /// The member's value: the `Value` attribute, else one more than the previous member's (0 for the first).
        public var value: Int64
        /// The member's annotations.
        public var annotations: [CSDLAnnotation]
        /// A member with the given parts.
        public init(name: String, value: Int64, annotations: [CSDLAnnotation] = []) {
            self.name = name
            self.value = value
            self.annotations = annotations
        }
    }

    /// The type's name, without its namespace.
    public var name: String
    /// The namespace of the schema declaring the type.
    public var namespace: String
    /// `UnderlyingType`: the integer type of the values (`Edm.Int32` when not given).
    public var underlyingType: EDMPrimitiveType
    /// `IsFlags="true"`: a value may combine several members.
    public var isFlags: Bool
    /// The members in declaration order.
    public var members: [Member]
    /// The type's annotations.
    public var annotations: [CSDLAnnotation]

    /// An enumeration type with the given parts.
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

    /// `Namespace.Name`.
    public var qualifiedName: String { namespace + "." + name }
    /// The member with this name; `nil` when none.
    public func member(named name: String) -> Member? { members.first { $0.name == name } }
}

/// A V4 type definition: a named primitive type with facets.
public struct CSDLTypeDefinition: Sendable, Hashable {
    /// The type definition's name, without its namespace.
    public var name: String
    /// The namespace of the schema declaring it.
    public var namespace: String
    /// The primitive type it stands for, with its facets.
    public var underlyingType: CSDLTypeReference
    /// The type definition's annotations.
    public var annotations: [CSDLAnnotation]

    /// A type definition with the given parts.
    public init(name: String, namespace: String, underlyingType: CSDLTypeReference, annotations: [CSDLAnnotation] = [])
    {
        self.name = name
        self.namespace = namespace
        self.underlyingType = underlyingType
        self.annotations = annotations
    }

    /// `Namespace.Name`.
    public var qualifiedName: String { namespace + "." + name }
}
