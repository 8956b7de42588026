public import Foundation

/// Any JSON value, parsed eagerly. Objects keep their member order; numbers keep their exact text.
///
/// ```swift
/// let page = try JSONValue(parsing: data)
/// let next = page["@odata.nextLink"]?.stringValue
/// for product in page["value"]?.arrayValue ?? [] {
///     print(product["Name"]?.stringValue ?? "", try product["Price"]?.numberValue?.decimal() ?? 0)
/// }
/// ```
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, with its exact text.
    case number(JSONNumber)
    /// A string, escapes decoded.
    case string(String)
    /// An array's elements, in order.
    case array([JSONValue])
    /// An object's members, in document order.
    case object(JSONObject)

    /// Parses one document.
    ///
    /// - Throws: ``JSONError`` on invalid JSON or when a limit is exceeded.
    ///
    /// Object keys are shared across the document (``JSONValueSharing``): a page of objects with the same members
    /// allocates each long key once.
    public init<Bytes: ContiguousBytes>(parsing bytes: Bytes, limits: JSONLimits = .default) throws {
        self = try JSONReader.read(bytes, limits: limits) { try $0.readDocumentValue() }
    }

    /// Parses one document from a string's UTF-8.
    public init(parsing string: String, limits: JSONLimits = .default) throws {
        self = try JSONReader.read(string, limits: limits) { try $0.readDocumentValue() }
    }

    /// The kind of this value.
    public var kind: JSONKind {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }
}
