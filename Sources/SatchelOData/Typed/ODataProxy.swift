import Foundation
public import SatchelJSON

/// A generated structured type (entity or complex type): read with the fast pull decoder, written as
/// ``ODataProperties``.
public protocol ODataStructuredProxy: JSONDecodable, Sendable {
    /// The qualified EDM type name (`GWSAMPLE_BASIC.BusinessPartner`).
    static var odataTypeName: String { get }
    /// The properties to send: `nil` optionals are left out, so a merge changes only what is set.
    var odataProperties: ODataProperties { get }
}

/// A generated entity type with its typed key.
public protocol ODataEntityProxy: ODataStructuredProxy {
    /// The generated key type (`Product.Key`).
    associatedtype Key: ODataKeyProxy
}

/// A generated entity key (one or more properties).
public protocol ODataKeyProxy: Sendable, Hashable {
    /// The key as it goes into the URL.
    var odataKey: ODataKey { get }
}
