/// A V2 association: two ends and an optional referential constraint. Navigation properties are resolved
/// against these when `$metadata` is parsed.
public struct CSDLAssociation: Sendable, Hashable {
    public struct End: Sendable, Hashable {
        public var role: String
        /// The entity type's qualified name.
        public var type: String
        /// `1`, `0..1` or `*`.
        public var multiplicity: String
        public var onDelete: String?
        public init(role: String, type: String, multiplicity: String, onDelete: String? = nil) {
            self.role = role
            self.type = type
            self.multiplicity = multiplicity
            self.onDelete = onDelete
        }
    }

    /// Principal role and properties, dependent role and properties.
    public struct Constraint: Sendable, Hashable {
        public var principalRole: String
        public var principalProperties: [String]
        public var dependentRole: String
        public var dependentProperties: [String]
        public init(
            principalRole: String, principalProperties: [String], dependentRole: String, dependentProperties: [String]
        ) {
            self.principalRole = principalRole
            self.principalProperties = principalProperties
            self.dependentRole = dependentRole
            self.dependentProperties = dependentProperties
        }
    }

    public var name: String
    public var namespace: String
    public var ends: [End]
    public var referentialConstraint: Constraint?
    public var annotations: [CSDLAnnotation]

    public init(
        name: String, namespace: String, ends: [End], referentialConstraint: Constraint? = nil,
        annotations: [CSDLAnnotation] = []
    ) {
        self.name = name
        self.namespace = namespace
        self.ends = ends
        self.referentialConstraint = referentialConstraint
        self.annotations = annotations
    }

    public var qualifiedName: String { namespace + "." + name }
    public func end(role: String) -> End? { ends.first { $0.role == role } }
}

/// A V2 association set: which entity set plays each role of an association.
public struct CSDLAssociationSet: Sendable, Hashable {
    public var name: String
    /// The association's qualified name.
    public var association: String
    /// Role → entity set name.
    public var ends: [String: String]
    public var annotations: [CSDLAnnotation]
    public init(name: String, association: String, ends: [String: String], annotations: [CSDLAnnotation] = []) {
        self.name = name
        self.association = association
        self.ends = ends
        self.annotations = annotations
    }
}

/// A parameter of a function, action or V2 function import.
public struct CSDLParameter: Sendable, Hashable {
    public var name: String
    public var type: CSDLTypeReference
    /// V2 `Mode` (`In`, `Out`, `InOut`).
    public var mode: String?
    public var annotations: [CSDLAnnotation]
    public init(name: String, type: CSDLTypeReference, mode: String? = nil, annotations: [CSDLAnnotation] = []) {
        self.name = name
        self.type = type
        self.mode = mode
        self.annotations = annotations
    }
}

/// A V4 function (no side effects, called with GET) or action (called with POST).
public struct CSDLOperation: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case function = "Function"
        case action = "Action"
    }

    public var kind: Kind
    public var name: String
    public var namespace: String
    /// Bound operations take the binding parameter first.
    public var isBound: Bool
    public var isComposable: Bool
    public var entitySetPath: String?
    public var parameters: [CSDLParameter]
    public var returnType: CSDLTypeReference?
    public var annotations: [CSDLAnnotation]

    public init(
        kind: Kind, name: String, namespace: String, isBound: Bool = false, isComposable: Bool = false,
        entitySetPath: String? = nil, parameters: [CSDLParameter] = [], returnType: CSDLTypeReference? = nil,
        annotations: [CSDLAnnotation] = []
    ) {
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.isBound = isBound
        self.isComposable = isComposable
        self.entitySetPath = entitySetPath
        self.parameters = parameters
        self.returnType = returnType
        self.annotations = annotations
    }

    public var qualifiedName: String { namespace + "." + name }
}

/// An operation reachable from the service root: a V2 `FunctionImport` (with its own parameters, return type
/// and HTTP method) or a V4 `FunctionImport`/`ActionImport` (naming a function or action).
public struct CSDLOperationImport: Sendable, Hashable {
    public var kind: CSDLOperation.Kind
    public var name: String
    /// V4: the function's or action's qualified name.
    public var operation: String?
    public var entitySet: String?
    /// V2: `m:HTTPMethod` (`GET` or `POST`).
    public var httpMethod: String?
    /// V2: the parameters (V4 imports take them from the operation).
    public var parameters: [CSDLParameter]
    /// V2: the return type (V4 imports take it from the operation).
    public var returnType: CSDLTypeReference?
    public var includeInServiceDocument: Bool
    public var annotations: [CSDLAnnotation]

    public init(
        kind: CSDLOperation.Kind, name: String, operation: String? = nil, entitySet: String? = nil,
        httpMethod: String? = nil, parameters: [CSDLParameter] = [], returnType: CSDLTypeReference? = nil,
        includeInServiceDocument: Bool = false, annotations: [CSDLAnnotation] = []
    ) {
        self.kind = kind
        self.name = name
        self.operation = operation
        self.entitySet = entitySet
        self.httpMethod = httpMethod
        self.parameters = parameters
        self.returnType = returnType
        self.includeInServiceDocument = includeInServiceDocument
        self.annotations = annotations
    }
}

/// An entity set or (V4) singleton, with its navigation property bindings.
public struct CSDLEntitySet: Sendable, Hashable {
    public var name: String
    /// The entity type's qualified name.
    public var entityType: String
    /// Whether this is a V4 singleton (one entity, addressed without a key).
    public var isSingleton: Bool
    /// Navigation property path → target entity set (V4 `NavigationPropertyBinding`; in V2 derived from
    /// association sets).
    public var navigationBindings: [String: String]
    public var includeInServiceDocument: Bool
    public var annotations: [CSDLAnnotation]

    public init(
        name: String, entityType: String, isSingleton: Bool = false, navigationBindings: [String: String] = [:],
        includeInServiceDocument: Bool = true, annotations: [CSDLAnnotation] = []
    ) {
        self.name = name
        self.entityType = entityType
        self.isSingleton = isSingleton
        self.navigationBindings = navigationBindings
        self.includeInServiceDocument = includeInServiceDocument
        self.annotations = annotations
    }
}

/// An entity container: the service's entry points.
public struct CSDLEntityContainer: Sendable, Hashable {
    public var name: String
    public var namespace: String
    /// V2 `m:IsDefaultEntityContainer`; always true in V4 (one container per service).
    public var isDefault: Bool
    public var entitySets: [CSDLEntitySet]
    /// V4 singletons (also ``CSDLEntitySet`` values, with `isSingleton`).
    public var singletons: [CSDLEntitySet]
    public var associationSets: [CSDLAssociationSet]
    public var operationImports: [CSDLOperationImport]
    public var annotations: [CSDLAnnotation]

    public init(
        name: String, namespace: String, isDefault: Bool = true, entitySets: [CSDLEntitySet] = [],
        singletons: [CSDLEntitySet] = [], associationSets: [CSDLAssociationSet] = [],
        operationImports: [CSDLOperationImport] = [], annotations: [CSDLAnnotation] = []
    ) {
        self.name = name
        self.namespace = namespace
        self.isDefault = isDefault
        self.entitySets = entitySets
        self.singletons = singletons
        self.associationSets = associationSets
        self.operationImports = operationImports
        self.annotations = annotations
    }
}

/// Annotations written apart from their target (`<Annotations Target="NS.Type/Property">`).
public struct CSDLAnnotationGroup: Sendable, Hashable {
    public var target: String
    public var qualifier: String?
    public var annotations: [CSDLAnnotation]
    public init(target: String, qualifier: String? = nil, annotations: [CSDLAnnotation]) {
        self.target = target
        self.qualifier = qualifier
        self.annotations = annotations
    }
}

/// One `Schema` element.
public struct CSDLSchema: Sendable, Hashable {
    public var namespace: String
    public var alias: String?
    public var entityTypes: [CSDLEntityType] = []
    public var complexTypes: [CSDLComplexType] = []
    public var enumTypes: [CSDLEnumType] = []
    public var typeDefinitions: [CSDLTypeDefinition] = []
    public var associations: [CSDLAssociation] = []
    public var operations: [CSDLOperation] = []
    public var entityContainers: [CSDLEntityContainer] = []
    public var annotationGroups: [CSDLAnnotationGroup] = []
    /// Annotations on the schema itself (including V2 `sap:schema-version`).
    public var annotations: [CSDLAnnotation] = []

    public init(namespace: String, alias: String? = nil) {
        self.namespace = namespace
        self.alias = alias
    }
}

/// A V4 `edmx:Reference`: another document whose namespaces this one uses (vocabularies, shared models).
public struct CSDLReference: Sendable, Hashable {
    public var uri: String
    /// Included namespace → alias.
    public var includes: [String: String?]
    public init(uri: String, includes: [String: String?]) {
        self.uri = uri
        self.includes = includes
    }
}
