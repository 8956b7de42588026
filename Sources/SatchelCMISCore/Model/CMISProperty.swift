public import Foundation

/// A property of a CMIS object: its id, type, cardinality and typed values.
///
/// A single-valued property has zero (not set) or one value; a multi-valued property any number.
///
/// ```swift
/// let name = object.properties["cmis:name"]?.stringValue
/// let size = object.properties["cmis:contentStreamLength"]?.int64Value
/// let created = object.properties["cmis:creationDate"]?.dateValue
/// let secondaryTypes = object.properties["cmis:secondaryObjectTypeIds"]?.stringValues ?? []
/// ```
public struct CMISProperty: Sendable, Hashable {
    /// The property definition id (`cmis:name`).
    public var id: String
    /// The local name, when the response carried it.
    public var localName: String?
    /// The display name, when the response carried it.
    public var displayName: String?
    /// The query name, when the response carried it.
    public var queryName: String?
    /// The data type; every value in ``values`` has this type.
    public var type: PropertyType
    /// Single- or multi-valued.
    public var cardinality: Cardinality
    /// The values, all of type ``type``; empty when the property is not set.
    public var values: [PropertyValue]

    /// A property with these values.
    public init(
        id: String, type: PropertyType, cardinality: Cardinality = .single, values: [PropertyValue],
        localName: String? = nil, displayName: String? = nil, queryName: String? = nil
    ) {
        self.id = id
        self.type = type
        self.cardinality = cardinality
        self.values = values
        self.localName = localName
        self.displayName = displayName
        self.queryName = queryName
    }

    /// A property of `definition` (its id, type, cardinality and names) with these values.
    ///
    /// ```swift
    /// let name = CMISProperty(definition: type.propertyDefinition(id: "cmis:name")!, values: [.string("a.txt")])
    /// ```
    public init(definition: PropertyDefinition, values: [PropertyValue]) {
        self.init(
            id: definition.id, type: definition.propertyType, cardinality: definition.cardinality, values: values,
            localName: definition.localName, displayName: definition.displayName, queryName: definition.queryName)
    }

    /// The first value, or `nil` when the property is not set.
    public var firstValue: PropertyValue? { values.first }
    /// Whether the property has no value.
    public var isEmpty: Bool { values.isEmpty }
    /// The first value's text (string, id, URI, HTML).
    public var stringValue: String? { values.first?.stringValue }
    /// The first value as a boolean.
    public var boolValue: Bool? { values.first?.boolValue }
    /// The first value as an integer.
    public var int64Value: Int64? { values.first?.int64Value }
    /// The first value as a decimal (integers convert exactly).
    public var decimalValue: Decimal? { values.first?.decimalValue }
    /// The first value as a date.
    public var dateValue: Date? { values.first?.dateValue }
    /// Every value's text, for multi-valued string-like properties.
    public var stringValues: [String] { values.compactMap(\.stringValue) }
}
