/// A V2 association: two ends and an optional referential constraint. Navigation properties are resolved
/// against these when `$metadata` is parsed.
public struct CSDLAssociation: Sendable, Hashable {
    /// One end of an association: a role played by an entity type, with its multiplicity.
    public struct End: Sendable, Hashable {
        /// The role's name, which navigation properties name in `FromRole` and `ToRole`.
        public var role: String
        /// The entity type's qualified name.
        public var type: String
        /// `1`, `0..1` or `*`.
        public var multiplicity: String
        /// The `OnDelete` action of this end (`Cascade`, `None`), when given.
        public var onDelete: String?
        /// An end with the given parts.
        public init(role: String, type: String, multiplicity: String, onDelete: String? = nil) {
            self.role = role
            self.type = type
            self.multiplicity = multiplicity
            self.onDelete = onDelete
        }
    }

    /// Principal role and properties, dependent role and properties.
    public struct Constraint: Sendable, Hashable {
        /// The role whose key is referred to.
        public var principalRole: String
        /// The principal's key properties, in the order of `dependentProperties`.
        public var principalProperties: [String]
        /// The role whose properties refer to the principal.
        public var dependentRole: String
        /// The dependent's properties that hold the principal's key.
        public var dependentProperties: [String]
        /// A constraint with the given parts.
        public init(
            principalRole: String, principalProperties: [String], dependentRole: String, dependentProperties: [String]
        ) {
            self.principalRole = principalRole
            self.principalProperties = principalProperties
            self.dependentRole = dependentRole
            self.dependentProperties = dependentProperties
        }
    }

    /// The association's name, without its namespace.
    public var name: String
    /// The namespace of the schema declaring it.
    public var namespace: String
    /// The two ends.
    public var ends: [End]
    /// The referential constraint, when declared.
    public var referentialConstraint: Constraint?
    /// The association's annotations.
    public var annotations: [CSDLAnnotation]

    /// An association with the given parts.
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

    /// `Namespace.Name`, as navigation properties name it in `Relationship`.
    public var qualifiedName: String { namespace + "." + name }
    /// The end playing `role`; `nil` when none.
    public func end(role: String) -> End? { ends.first { $0.role == role } }
}

/// A V2 association set: which entity set plays each role of an association.
public struct CSDLAssociationSet: Sendable, Hashable {
    /// The association set's name.
    public var name: String
    /// The association's qualified name.
    public var association: String
    /// Role → entity set name.
    public var ends: [String: String]
    /// The association set's annotations.
    public var annotations: [CSDLAnnotation]
    /// An association set with the given parts.
    public init(name: String, association: String, ends: [String: String], annotations: [CSDLAnnotation] = []) {
        self.name = name
        self.association = association
        self.ends = ends
        self.annotations = annotations
    }
}

/// A parameter of a function, action or V2 function import.
public struct CSDLParameter: Sendable, Hashable {
    /// The parameter's name as sent.
    public var name: String
    /// The parameter's type and facets.
    public var type: CSDLTypeReference
    /// V2 `Mode` (`In`, `Out`, `InOut`).
    public var mode: String?
    /// The parameter's annotations.
    public var annotations: [CSDLAnnotation]
    /// A parameter with the given parts.
    public init(name: String, type: CSDLTypeReference, mode: String? = nil, annotations: [CSDLAnnotation] = []) {
        self.name = name
        self.type = type
        self.mode = mode
        self.annotations = annotations
    }
}

/// A V4 function (no side effects, called with GET) or action (called with POST).
public struct CSDLOperation: Sendable, Hashable {
    /// Whether an operation is a function or an action.
    public enum Kind: String, Sendable, Hashable {
        /// A function: no side effects, called with GET (V2 function imports sent with GET too).
        case function = "Function"
        /// An action: may change data, called with POST (V2 function imports sent with POST too).
        case action = "Action"
    }

    /// Function or action.
    public var kind: Kind
    /// The operation's name, without its namespace.
    public var name: String
    /// The namespace of the schema declaring it.
    public var namespace: String
    /// Bound operations take the binding parameter first.
    public var isBound: Bool
    /// `IsComposable="true"` (functions): further path segments or query options may follow the call.
    public var isComposable: Bool
    /// `EntitySetPath`: where returned entities live, relative to the binding parameter.
    public var entitySetPath: String?
    /// The parameters in order (the binding parameter first for a bound operation).
    public var parameters: [CSDLParameter]
    /// The return type; `nil` when the operation returns nothing.
    public var returnType: CSDLTypeReference?
    /// The operation's annotations.
    public var annotations: [CSDLAnnotation]

    /// An operation with the given parts.
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

    /// `Namespace.Name`.
    public var qualifiedName: String { namespace + "." + name }
}

/// An operation reachable from the service root: a V2 `FunctionImport` (with its own parameters, return type
/// and HTTP method) or a V4 `FunctionImport`/`ActionImport` (naming a function or action).
public struct CSDLOperationImport: Sendable, Hashable {
    /// V4: `ActionImport` or `FunctionImport`; V2: `.action` for an import sent with POST, else `.function`.
    public var kind: CSDLOperation.Kind
    /// The name the import is called by, below the service root.
    public var name: String
    /// V4: the function's or action's qualified name.
    public var operation: String?
    /// The entity set returned entities belong to, when declared.
    public var entitySet: String?
    /// V2: `m:HTTPMethod` (`GET` or `POST`).
    public var httpMethod: String?
    /// V2: the parameters (V4 imports take them from the operation).
    public var parameters: [CSDLParameter]
    /// V2: the return type (V4 imports take it from the operation).
    public var returnType: CSDLTypeReference?
    /// `IncludeInServiceDocument="true"` (false when not given).
    public var includeInServiceDocument: Bool
    /// The import's annotations.
    public var annotations: [CSDLAnnotation]

    /// An operation import with the given parts.
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
    /// The entity set's (or singleton's) name, the first segment of its URLs.
    public var name: String
    /// The entity type's qualified name.
    public var entityType: String
    /// Whether this is a V4 singleton (one entity, addressed without a key).
    public var isSingleton: Bool
    /// Navigation property path → target entity set (V4 `NavigationPropertyBinding`; in V2 derived from
    /// association sets).
    public var navigationBindings: [String: String]
    /// `IncludeInServiceDocument`: whether the service document lists it (true when not given).
    public var includeInServiceDocument: Bool
    /// The entity set's annotations.
    public var annotations: [CSDLAnnotation]

    /// An entity set or singleton with the given parts.
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
    /// The container's name.
    public var name: String
    /// The namespace of the schema declaring it.
    public var namespace: String
    /// V2 `m:IsDefaultEntityContainer`; always true in V4 (one container per service).
    public var isDefault: Bool
    /// The entity sets, in document order.
    public var entitySets: [CSDLEntitySet]
    /// V4 singletons (also ``CSDLEntitySet`` values, with `isSingleton`).
    public var singletons: [CSDLEntitySet]
    /// V2 association sets.
    public var associationSets: [CSDLAssociationSet]
    /// V2 function imports, V4 function and action imports.
    public var operationImports: [CSDLOperationImport]
    /// The container's annotations.
    public var annotations: [CSDLAnnotation]

    /// A container with the given parts.
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
    /// The path of the annotated element (`NS.Type`, `NS.Type/Property`), alias resolved.
    public var target: String
    /// The `Qualifier` applied to all the annotations of the group; `nil` when not given.
    public var qualifier: String?
    /// The annotations, in order.
    public var annotations: [CSDLAnnotation]
    /// A group with the given parts.
    public init(target: String, qualifier: String? = nil, annotations: [CSDLAnnotation]) {
        self.target = target
        self.qualifier = qualifier
        self.annotations = annotations
    }
}

/// One `Schema` element.
public struct CSDLSchema: Sendable, Hashable {
    /// The schema's namespace.
    public var namespace: String
    /// The schema's `Alias`, resolved to the namespace wherever a name uses it.
    public var alias: String?
    /// The entity types, in document order.
    public var entityTypes: [CSDLEntityType] = []
    /// The complex types, in document order.
    public var complexTypes: [CSDLComplexType] = []
    /// The enumeration types (V4), in document order.
    public var enumTypes: [CSDLEnumType] = []
    /// The type definitions (V4), in document order.
    public var typeDefinitions: [CSDLTypeDefinition] = []
    /// The associations (V2), in document order.
    public var associations: [CSDLAssociation] = []
    /// The functions and actions (V4), in document order.
    public var operations: [CSDLOperation] = []
    /// The entity containers declared in this schema.
    public var entityContainers: [CSDLEntityContainer] = []
    /// The `Annotations` elements: annotations written apart from their targets.
    public var annotationGroups: [CSDLAnnotationGroup] = []
    /// Annotations on the schema itself (including V2 `sap:schema-version`).
    public var annotations: [CSDLAnnotation] = []

    /// An empty schema.
    public init(namespace: String, alias: String? = nil) {
        self.namespace = namespace
        self.alias = alias
    }
}

/// A V4 `edmx:Reference`: another document whose namespaces this one uses (vocabularies, shared models).
public struct CSDLReference: Sendable, Hashable {
    /// The referenced document's URI.
    public var uri: String
    /// Included namespace → alias.
    public var includes: [String: String?]
    /// A reference with the given parts.
    public init(uri: String, includes: [String: String?]) {
        self.uri = uri
        self.includes = includes
    }
}
