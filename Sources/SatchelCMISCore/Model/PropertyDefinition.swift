import Foundation

/// The definition of one property of a type.
///
/// ```swift
/// let definition = type.propertyDefinition(id: "cmis:secondaryObjectTypeIds")!
/// definition.propertyType   // .id
/// definition.cardinality    // .multi
/// ```
public struct PropertyDefinition: Sendable, Hashable {
    public var id: String
    public var localName: String?
    public var localNamespace: String?
    public var displayName: String?
    public var queryName: String?
    public var description: String?
    public var propertyType: PropertyType
    public var cardinality: Cardinality
    public var updatability: Updatability
    public var inherited: Bool?
    public var required: Bool?
    public var queryable: Bool?
    public var orderable: Bool?
    /// Whether values outside ``choices`` are allowed.
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
        public var displayName: String?
        public var values: [PropertyValue]
        public var children: [Choice]

        public init(displayName: String? = nil, values: [PropertyValue], children: [Choice] = []) {
            self.displayName = displayName
            self.values = values
            self.children = children
        }
    }
}
