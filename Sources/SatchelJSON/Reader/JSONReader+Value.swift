extension JSONReader {
    /// Reads the next value, whatever it is, as a ``JSONValue`` (numbers keep their exact text).
    ///
    /// ```swift
    /// let value = try reader.readValue()
    /// ```
    ///
    /// Nothing is shared with other values: a stream that reads its elements one by one this way pays nothing for
    /// a table it could not reuse. `JSONValue/init(parsing:limits:)` shares keys across the whole document.
    public mutating func readValue() throws -> JSONValue {
        var sharing = JSONValueSharing.none
        return try readValue(sharing: &sharing)
    }

    /// Reads a whole document's value with its keys shared (``JSONValue/init(parsing:limits:)``).
    mutating func readDocumentValue() throws -> JSONValue {
        var sharing = JSONValueSharing()
        return try readValue(sharing: &sharing)
    }

    /// Reads the next value, sharing object keys (and the lookup of objects with many keys) with the values read
    /// before through `sharing`: a page of objects with the same members allocates each long key once.
    ///
    /// ```swift
    /// var sharing = JSONValueSharing()
    /// try reader.readArray { entities.append(try $0.readValue(sharing: &sharing)) }
    /// ```
    public mutating func readValue(sharing: inout JSONValueSharing) throws -> JSONValue {
        switch peekByte() {
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "{"):
            var keys: [String] = []
            var values: [JSONValue] = []
            try readObject { key, reader in
                keys.append(sharing.key(key))
                values.append(try reader.readValue(sharing: &sharing))
            }
            return .object(sharing.object(keys: keys, values: values))
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            try readArray { elements.append(try $0.readValue(sharing: &sharing)) }
            return .array(elements)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try readBool())
        case UInt8(ascii: "n"):
            try readNull()
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let span = try scanNumber()
            return .number(JSONNumber(uncheckedText: String(decoding: span.bytes(base), as: UTF8.self)))
        default:
            throw syntaxError(expected: "a value", at: index)
        }
    }
}

/// What the values read from one document (or one stream) share: object keys, read through a
/// ``JSONStringTable``, and the lookup tables of objects with many keys, reused by later objects whose keys are
/// the same, in the same order.
public struct JSONValueSharing: Sendable {
    private var keys = JSONStringTable(capacity: 1024)
    private var shapes: [JSONObject.Shape] = []
    private var nextShape = 0
    /// False for ``none``: keys and lookups are made afresh for every object.
    private let isOn: Bool

    /// Sharing that starts empty; pass the same value to every `JSONReader.readValue(sharing:)` of a document.
    public init() { isOn = true }

    private init(isOn: Bool) { self.isOn = isOn }

    /// Shares nothing.
    static var none: JSONValueSharing { JSONValueSharing(isOn: false) }

    mutating func key(_ key: JSONKey) -> String {
        guard isOn, key.unescaped == nil else { return key.stringValue }
        return keys.string(UnsafeBufferPointer(start: key.base, count: key.count))
    }

    mutating func object(keys: [String], values: [JSONValue]) -> JSONObject {
        guard isOn, JSONObject.hasLookup(keyCount: keys.count) else {
            return JSONObject(keys: keys, values: values)
        }
        for shape in shapes where shape.keys == keys {
            return JSONObject(keys: keys, values: values, shape: shape)
        }
        let object = JSONObject(keys: keys, values: values)
        // The last few shapes: a page alternates between a handful (the entity, its nested objects).
        if shapes.count < 4 {
            shapes.append(object.shape)
        } else {
            shapes[nextShape] = object.shape
            nextShape = (nextShape + 1) % shapes.count
        }
        return object
    }
}
