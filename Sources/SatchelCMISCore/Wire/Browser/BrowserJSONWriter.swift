import Foundation
public import SatchelJSON

/// Writes CMIS model values as Browser binding JSON (CMIS 1.1 part II, 5.2), full or succinct, straight to bytes.
///
/// Datetimes are written as milliseconds since 1970 (`dateTimeFormat=simple`). The output is what the client's
/// ``BrowserParser`` reads, so a writer test is a round trip:
///
/// ```swift
/// var writer = BrowserJSONWriter(succinct: true)
/// writer.object(folder)
/// let parsed = try BrowserParser.object(Data(writer.bytes))
/// ```
public struct BrowserJSONWriter: Sendable {
    /// `succinctProperties` (values only) instead of `properties` (values with type and cardinality).
    public var succinct: Bool
    /// The JSON written so far.
    public var json = JSONWriter(reservingCapacity: 1024)

    /// A writer with nothing written yet that writes succinct or full properties.
    public init(succinct: Bool) {
        self.succinct = succinct
    }

    /// The bytes written.
    public var bytes: [UInt8] { json.bytes }

    // MARK: Values

    mutating func value(_ value: PropertyValue) {
        switch value {
        case .string(let text), .id(let text), .uri(let text), .html(let text): json.write(text)
        case .boolean(let flag): json.write(flag)
        case .integer(let number): json.write(number)
        case .decimal(let number): json.write(number)
        case .datetime(let date): json.write(Self.milliseconds(date))
        }
    }

    /// A property's value: a scalar or null for single-valued properties, an array for multi-valued ones.
    package mutating func values(_ values: [PropertyValue], cardinality: Cardinality) {
        if cardinality == .multi {
            jsonArray { writer in
                for value in values { writer.value(value) }
            }
        } else if let first = values.first {
            value(first)
        } else {
            json.writeNull()
        }
    }

    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite, value > -9.2e18, value < 9.2e18 else { return 0 }
        return Int64(value)
    }

    init(succinct: Bool, json: JSONWriter) {
        self.succinct = succinct
        self.json = json
    }

    package mutating func key(_ name: String, _ body: (inout BrowserJSONWriter) -> Void) {
        json.writeKey(name)
        body(&self)
    }

    package mutating func jsonObject(_ body: (inout BrowserJSONWriter) -> Void) {
        let succinct = self.succinct
        json.writeObject { writer in
            // Swap rather than copy, so the byte buffer stays uniquely referenced (no copy per nesting level).
            var inner = BrowserJSONWriter(succinct: succinct, json: JSONWriter(reservingCapacity: 0))
            swap(&inner.json, &writer)
            body(&inner)
            swap(&inner.json, &writer)
        }
    }

    package mutating func jsonArray(_ body: (inout BrowserJSONWriter) -> Void) {
        let succinct = self.succinct
        json.writeArray { writer in
            var inner = BrowserJSONWriter(succinct: succinct, json: JSONWriter(reservingCapacity: 0))
            swap(&inner.json, &writer)
            body(&inner)
            swap(&inner.json, &writer)
        }
    }

    package mutating func optional(_ name: String, _ value: String?) {
        if let value { json.write(key: name, value) }
    }

    package mutating func optional(_ name: String, _ value: Bool?) {
        if let value { json.write(key: name, value) }
    }

    package mutating func optional(_ name: String, _ value: Int64?) {
        if let value { json.write(key: name, value) }
    }

    package mutating func strings(_ name: String, _ values: [String]) {
        json.write(key: name) { writer in
            writer.writeArray { writer in
                for value in values { writer.write(value) }
            }
        }
    }

    /// Extension elements as extra members: a value, or an object of the children (repeated names become arrays).
    mutating func extensions(_ extensions: [CMISExtension], excluding known: Set<String>) {
        var seen: Set<String> = []
        for element in extensions where !known.contains(element.name) && !seen.contains(element.name) {
            seen.insert(element.name)
            let siblings = extensions.filter { $0.name == element.name }
            json.writeKey(element.name)
            if siblings.count > 1 {
                jsonArray { writer in
                    for sibling in siblings { writer.extensionValue(sibling, depth: 0) }
                }
            } else {
                extensionValue(element, depth: 0)
            }
        }
    }

    mutating func extensionValue(_ element: CMISExtension, depth: Int) {
        guard depth < 64, !element.children.isEmpty else {
            if let value = element.value { json.write(value) } else { json.writeNull() }
            return
        }
        jsonObject { writer in
            var seen: Set<String> = []
            for child in element.children where !seen.contains(child.name) {
                seen.insert(child.name)
                let siblings = element.children.filter { $0.name == child.name }
                writer.json.writeKey(child.name)
                if siblings.count > 1 {
                    writer.jsonArray { writer in
                        for sibling in siblings { writer.extensionValue(sibling, depth: depth + 1) }
                    }
                } else {
                    writer.extensionValue(child, depth: depth + 1)
                }
            }
        }
    }
}
