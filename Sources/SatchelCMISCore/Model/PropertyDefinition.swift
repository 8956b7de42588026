import Foundation

/// The definition of one property of a type.
///
/// ```swift
/// let definition = type.propertyDefinition(id: "cmis:secondaryObjectTypeIds")!
/// definition.propertyType   // .id
/// definition.cardinality    // .multi
/// ```
public struct PropertyDefinition: Sendable, Hashable {
    /// The property id (`cmis:name`).
    public var id: String
    /// The local name, when given.
    public var localName: String?
    /// The local namespace, when given.
    public var localNamespace: String?
    /// A name to show, when given.
    public var displayName: String?
    /// The name to use in CMIS QL, when given.
    public var queryName: String?
    /// What the property is for, when given.
    public var description: String?
    /// The data type of the values.
    public var propertyType: PropertyType
    /// Single- or multi-valued.
    public var cardinality: Cardinality
    /// When the property may be changed.
    public var updatability: Updatability
    /// Whether the property comes from a supertype; `nil` when not given.
    public var inherited: Bool?
    /// Whether objects must have a value; `nil` when not given.
    public var required: Bool?
    /// Whether the property may be used in a query's `WHERE`; `nil` when not given.
    public var queryable: Bool?
    /// Whether the property may be used in `ORDER BY`; `nil` when not given.
    public var orderable: Bool?
    /// Whether values outside `choices` are allowed.
    public var openChoice: Bool?
    /// The default values (empty: none).
    public var defaultValue: [PropertyValue]
    /// The allowed values, possibly hierarchical.
    public var choices: [Choice]
    /// String properties: the maximum length.
    public var maxLength: Int64?

    /// A property definition with the required fields.
    public init(
        id: String, propertyType: PropertyType, cardinality: Cardinality = .single,
        updatability: Updatability = .readwrite
    ) {
        self.id = id
        self.propertyType = propertyType
        self.cardinality = cardinality
        self.updatability = updatability
        defaultValue = []
        choices = []
    }

    /// One allowed value (or group of values) of a property.
    public struct Choice: Sendable, Hashable {
        /// A name to show for the choice, when given.
        public var displayName: String?
        /// The value or values this choice stands for.
        public var values: [PropertyValue]
        /// Choices nested under this one.
        public var children: [Choice]

        /// A choice with these values, optionally named and with nested choices.
        public init(displayName: String? = nil, values: [PropertyValue], children: [Choice] = []) {
            self.displayName = displayName
            self.values = values
            self.children = children
        }
    }
}
