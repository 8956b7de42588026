import Foundation

/// The data type of a CMIS property.
public enum PropertyType: String, Sendable, Hashable, CaseIterable {
    case string, boolean, integer, decimal, datetime, id, uri, html
}

/// Whether a property holds one value or a list.
public enum Cardinality: String, Sendable, Hashable, CaseIterable {
    case single, multi
}

/// When a property may be changed.
public enum Updatability: String, Sendable, Hashable, CaseIterable {
    case readonly, readwrite, whencheckedout, oncreate
}

/// The base type every CMIS object type derives from.
public enum BaseTypeId: String, Sendable, Hashable, CaseIterable {
    case document = "cmis:document"
    case folder = "cmis:folder"
    case item = "cmis:item"
    case policy = "cmis:policy"
    case relationship = "cmis:relationship"
    case secondary = "cmis:secondary"
}
