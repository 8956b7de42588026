public import SatchelCMISCore

/// What the evaluator asks the caller about one candidate row (one object, or one combination of joined objects).
///
/// ```swift
/// struct Row: QueryRow {
///     var properties: [String: [PropertyValue]]
///     func values(for column: ColumnReference) -> [PropertyValue]? { properties[column.name] }
///     func isInFolder(_ folderId: String, qualifier: String?) -> Bool { false }
///     func isInTree(_ folderId: String, qualifier: String?) -> Bool { false }
///     func fullText(qualifier: String?) -> String? { nil }
/// }
/// ```
public protocol QueryRow {
    /// Values of the property with this query name (0 or 1 element when single-valued); nil when the row's type
    /// has no such property (the evaluator reports that as an error).
    func values(for column: ColumnReference) -> [PropertyValue]?
    /// Whether the object (of the type `qualifier` names, or the primary type) is a child of the folder.
    func isInFolder(_ folderId: String, qualifier: String?) -> Bool
    /// Whether the object is a descendant of the folder.
    func isInTree(_ folderId: String, qualifier: String?) -> Bool
    /// Text that CONTAINS searches (name and text content); nil when none.
    func fullText(qualifier: String?) -> String?
    /// Whether the property is single- or multi-valued; nil when unknown (the default), in which case a property
    /// with more than one value counts as multi-valued.
    func cardinality(for column: ColumnReference) -> Cardinality?
}

extension QueryRow {
    /// Unknown (nil): a property with more than one value then counts as multi-valued.
    public func cardinality(for column: ColumnReference) -> Cardinality? { nil }
}
