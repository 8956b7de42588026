extension JSONReader {
    /// Reads the next value, whatever it is, as a ``JSONValue`` (numbers keep their exact text).
    ///
    /// ```swift
    /// let value = try reader.readValue()
    /// ```
    public mutating func readValue() throws -> JSONValue {
        switch peekByte() {
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "{"):
            var keys: [String] = []
            var values: [JSONValue] = []
            try readObject { key, reader in
                keys.append(key.stringValue)
                values.append(try reader.readValue())
            }
            return .object(JSONObject(keys: keys, values: values))
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            try readArray { elements.append(try $0.readValue()) }
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
