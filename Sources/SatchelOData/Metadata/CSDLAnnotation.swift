/// An annotation from `$metadata`: a V4 vocabulary annotation (`<Annotation Term="Org.OData.Core.V1.Description"
/// String="…"/>`), or a V2 annotation attribute such as SAP's `sap:label="Customer"`.
///
/// V2 attributes in SAP's namespace get the term `sap:<name>`, those in the data services metadata namespace
/// `m:<name>`; attributes in other foreign namespaces get `<namespace URI>#<name>`.
///
/// ```swift
/// let label = entityType.annotations.value(of: "sap:label")?.stringValue          // V2
/// let described = property.annotations.value(of: "Org.OData.Core.V1.Description")  // V4
/// ```
public struct CSDLAnnotation: Sendable, Hashable {
    /// The term's qualified name (aliases resolved to namespaces where the schema declared them).
    public var term: String
    /// The `Qualifier` that tells apart annotations of the same term; `nil` when not given.
    public var qualifier: String?
    /// The annotation's value (`true` for a V4 annotation written without one).
    public var value: CSDLExpression
    /// Annotations of the annotation.
    public var annotations: [CSDLAnnotation]

    /// An annotation with the given parts.
    public init(term: String, qualifier: String? = nil, value: CSDLExpression, annotations: [CSDLAnnotation] = []) {
        self.term = term
        self.qualifier = qualifier
        self.value = value
        self.annotations = annotations
    }
}

/// The value of an annotation: a constant, a path, a collection, a record, or a dynamic expression kept as
/// its element name and text.
public indirect enum CSDLExpression: Sendable, Hashable {
    /// A `String` constant (also the value of every V2 annotation attribute).
    case string(String)
    /// A `Bool` constant.
    case bool(Bool)
    /// An `Int` constant (one that does not fit in 64 bits is read as `.number`).
    case int(Int64)
    /// Decimal and float constants keep their lexical form.
    case number(String)
    /// Date, DateTimeOffset, Duration, Guid, TimeOfDay, Binary constants: (kind, lexical form).
    case constant(kind: String, value: String)
    /// `EnumMember`: one or more qualified members separated by spaces.
    case enumMember(String)
    /// `Path`, `PropertyPath`, `NavigationPropertyPath`, `AnnotationPath`, `ModelElementPath`: (kind, path).
    case path(kind: String, value: String)
    /// A `Collection` of expressions, in order.
    case collection([CSDLExpression])
    /// A record: its type (if given) and its property values in order.
    case record(type: String?, properties: [CSDLPropertyValue])
    /// The `Null` expression.
    case null
    /// Any other expression (`If`, `Apply`, `LabeledElement`, …): element name and its text, not evaluated.
    case unsupported(element: String, text: String)

    /// The string of a `.string` or `.enumMember` value.
    public var stringValue: String? {
        switch self {
        case .string(let value), .enumMember(let value): value
        default: nil
        }
    }

    /// The value of a `.bool`; an annotation without a value (`<Annotation Term="Core.Immutable"/>`) reads true.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        if case .string(let value) = self { return value == "true" ? true : value == "false" ? false : nil }
        return nil
    }
}

/// A property of a record expression.
public struct CSDLPropertyValue: Sendable, Hashable {
    /// The property's name.
    public var property: String
    /// The property's value.
    public var value: CSDLExpression
    /// A property value with the given parts.
    public init(property: String, value: CSDLExpression) {
        self.property = property
        self.value = value
    }
}

extension Array where Element == CSDLAnnotation {
    /// The first annotation with this term (and qualifier, if given).
    public func first(term: String, qualifier: String? = nil) -> CSDLAnnotation? {
        first { $0.term == term && (qualifier == nil || $0.qualifier == qualifier) }
    }

    /// The value of the first annotation with this term.
    public func value(of term: String, qualifier: String? = nil) -> CSDLExpression? {
        first(term: term, qualifier: qualifier)?.value
    }
}
