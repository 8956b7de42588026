import Foundation
import SatchelJSON

extension BrowserParser {
    /// The members of `json` not in `known`, as extensions: in the Browser binding, extension elements
    /// become plain keys of the JSON object.
    static func extensions(of json: BrowserJSON, excluding known: Set<String>) throws -> [CMISExtension] {
        try json.object().flatMap { member in
            known.contains(member.key) ? [] : extensionElements(named: member.key, member.value, depth: 0)
        }
    }

    /// The elements a member stands for. An array is its name repeated, one element per item, as
    /// ``BrowserJSONWriter`` writes repeated names; an empty one is a single element without a value.
    static func extensionElements(named name: String, _ value: JSONValue, depth: Int) -> [CMISExtension] {
        guard case .array(let items) = value, !items.isEmpty else {
            return [extensionElement(named: name, value, depth: depth)]
        }
        return items.map { extensionElement(named: name, $0, depth: depth) }
    }

    /// Converts any JSON value to an extension element. An array inside an array, which the writer never makes,
    /// becomes an element whose children repeat the name.
    static func extensionElement(named name: String, _ value: JSONValue, depth: Int) -> CMISExtension {
        // The JSON reader already bounds depth; this guard keeps the recursion finite even if its limit grows.
        guard depth < 256 else { return CMISExtension(name: name) }
        switch value {
        case .null:
            return CMISExtension(name: name)
        case .bool(let flag):
            return CMISExtension(name: name, value: flag ? "true" : "false")
        case .number(let number):
            return CMISExtension(name: name, value: number.text)
        case .string(let text):
            return CMISExtension(name: name, value: text)
        case .array(let items):
            return CMISExtension(
                name: name, children: items.flatMap { extensionElements(named: name, $0, depth: depth + 1) })
        case .object(let object):
            return CMISExtension(
                name: name, children: object.flatMap { extensionElements(named: $0.key, $0.value, depth: depth + 1) })
        }
    }
}
