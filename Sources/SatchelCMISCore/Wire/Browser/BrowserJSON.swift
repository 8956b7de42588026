package import Foundation
package import SatchelJSON

/// A JSON value together with where it sits in the document, so every shape error names its path.
///
/// The path is put together only when something asks for it (an error, or a child of a child): parsing a page
/// of objects visits every property, and building a path string for each one cost more than reading the value.
package struct BrowserJSON {
    package let value: JSONValue
    /// The path of the containing value, and this value's key or index in it.
    private let parentPath: String
    private let step: Step

    private enum Step {
        case none
        case key(String)
        case index(Int)
    }

    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.parentPath = path
        self.step = .none
    }

    /// The member `key` of the object at `objectPath`.
    init(member key: String, of objectPath: String, value: JSONValue) {
        self.init(value, parentPath: objectPath, step: .key(key))
    }

    private init(_ value: JSONValue, parentPath: String, step: Step) {
        self.value = value
        self.parentPath = parentPath
        self.step = step
    }

    /// Where this value sits: `succinctProperties.cmis:name`, `objects[3].object` (empty for the document).
    var path: String {
        switch step {
        case .none: return parentPath
        case .key(let key): return parentPath.isEmpty ? key : "\(parentPath).\(key)"
        case .index(let index): return "\(parentPath)[\(index)]"
        }
    }

    /// Parses a response body; malformed JSON becomes an `.invalidResponse` error with the byte offset.
    package static func parse(_ data: Data) throws -> BrowserJSON {
        do {
            return BrowserJSON(try JSONValue(parsing: data, limits: BrowserParser.limits))
        } catch let error as JSONError {
            throw CMISError(
                .invalidResponse, "the response is not valid JSON: \(error.message)", offset: error.offset,
                path: error.pathDescription, underlying: error)
        }
    }

    func shapeError(_ expected: String) -> CMISError {
        CMISError(.invalidResponse, "expected \(expected), found \(value.kind)", path: path.isEmpty ? "$" : path)
    }

    /// The member `key`, or `nil` when it is missing or `null`.
    package subscript(key: String) -> BrowserJSON? {
        guard let member = value[key], !member.isNull else { return nil }
        return BrowserJSON(member, parentPath: path, step: .key(key))
    }

    /// The member `key`; throws when it is missing or `null`.
    package func require(_ key: String) throws -> BrowserJSON {
        guard let member = self[key] else {
            throw CMISError(.invalidResponse, "missing required member \"\(key)\"", path: path.isEmpty ? "$" : path)
        }
        return member
    }

    func object() throws -> JSONObject {
        guard let object = value.objectValue else { throw shapeError("an object") }
        return object
    }

    /// The object's members as located values, in order.
    func members() throws -> [(key: String, value: BrowserJSON)] {
        let object = try object()
        let base = path
        return object.map { ($0.key, BrowserJSON($0.value, parentPath: base, step: .key($0.key))) }
    }

    package func array() throws -> [BrowserJSON] {
        guard let elements = value.arrayValue else { throw shapeError("an array") }
        let base = path
        return elements.enumerated().map { BrowserJSON($1, parentPath: base, step: .index($0)) }
    }

    package func string() throws -> String {
        guard let text = value.stringValue else { throw shapeError("a string") }
        return text
    }

    func bool() throws -> Bool {
        guard let flag = value.boolValue else { throw shapeError("a boolean") }
        return flag
    }

    func int64() throws -> Int64 {
        guard let number = value.numberValue else { throw shapeError("a number") }
        guard let integer = number.int64Value else {
            throw CMISError(.invalidResponse, "number \(number.text) is not a 64-bit integer", path: path)
        }
        return integer
    }

    // Optional members: missing or null gives nil, a wrong type throws.
    package func string(_ key: String) throws -> String? { try self[key]?.string() }
    func bool(_ key: String) throws -> Bool? { try self[key]?.bool() }
    func int64(_ key: String) throws -> Int64? { try self[key]?.int64() }
    package func strings(_ key: String) throws -> [String]? { try self[key]?.array().map { try $0.string() } }
    func capability<Value: CapabilityValue>(_ key: String) throws -> Value? {
        try string(key).map(Value.init(rawValue:))
    }
    func url(_ key: String) throws -> URL? { try string(key).flatMap { URL(string: $0) } }
}
