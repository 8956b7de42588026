import Foundation
import SatchelJSON

extension BrowserParser {
    /// The members of `json` not in `known`, as extensions: in the Browser binding, extension elements
    /// become plain keys of the JSON object.
    static func extensions(of json: BrowserJSON, excluding known: Set<String>) throws -> [CMISExtension] {
        try json.object().compactMap { member in
            known.contains(member.key) ? nil : extensionElement(named: member.key, member.value, depth: 0)
        }
    }

    /// Converts any JSON value to an extension element; arrays become repeated children.
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
        case .array(let elements):
            return CMISExtension(
                name: name, children: elements.map { extensionElement(named: name, $0, depth: depth + 1) })
        case .object(let object):
            return CMISExtension(
                name: name, children: object.map { extensionElement(named: $0.key, $0.value, depth: depth + 1) })
        }
    }
}
