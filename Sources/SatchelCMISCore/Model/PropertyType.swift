import Foundation

/// The data type of a CMIS property.
public enum PropertyType: String, Sendable, Hashable, CaseIterable {
    /// Text (`string`).
    case string
    /// `true` or `false` (`boolean`).
    case boolean
    /// A whole number (`integer`), held as `Int64`.
    case integer
    /// A decimal number (`decimal`), held as `Decimal`.
    case decimal
    /// A point in time (`datetime`), held as `Date`.
    case datetime
    /// An object or type id (`id`).
    case id
    /// A URI (`uri`), held as text.
    case uri
    /// HTML text (`html`).
    case html
}

/// Whether a property holds one value or a list.
public enum Cardinality: String, Sendable, Hashable, CaseIterable {
    /// At most one value (`single`).
    case single
    /// Any number of values (`multi`).
    case multi
}

/// When a property may be changed.
public enum Updatability: String, Sendable, Hashable, CaseIterable {
    /// Set by the repository only (`readonly`).
    case readonly
    /// Can be changed at any time (`readwrite`).
    case readwrite
    /// Can be changed only on a private working copy (`whencheckedout`).
    case whencheckedout
    /// Can be set only when the object is created (`oncreate`).
    case oncreate
}

/// The base type every CMIS object type derives from.
public enum BaseTypeId: String, Sendable, Hashable, CaseIterable {
    /// Documents: objects that may have content and versions (`cmis:document`).
    case document = "cmis:document"
    /// Folders (`cmis:folder`).
    case folder = "cmis:folder"
    /// Items: fileable objects without content (`cmis:item`, CMIS 1.1).
    case item = "cmis:item"
    /// Policies (`cmis:policy`).
    case policy = "cmis:policy"
    /// Relationships between a source and a target object (`cmis:relationship`).
    case relationship = "cmis:relationship"
    /// Secondary types, which add properties to objects of other types (`cmis:secondary`, CMIS 1.1).
    case secondary = "cmis:secondary"
}
