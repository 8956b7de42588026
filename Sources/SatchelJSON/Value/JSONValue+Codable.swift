import Foundation

extension JSONValue: Codable {
    /// Decodes any JSON value. ``SatchelJSONDecoder`` does this directly from its tape (exact numbers,
    /// member order kept); other decoders go through their containers, where member order is lost.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: IndexOrKey.self) {
            var object = JSONObject()
            for key in container.allKeys {
                object.append(key: key.stringValue, value: try container.decode(JSONValue.self, forKey: key))
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            self = .number(try container.decode(JSONNumber.self))
        }
    }

    /// Encodes the value with the encoder's containers: objects in keyed containers, arrays
    /// unkeyed, numbers through `JSONNumber`'s own encoding (as `Int64`, `Decimal` or `Double`).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: IndexOrKey.self)
            for (key, value) in object { try container.encode(value, forKey: IndexOrKey(stringValue: key)) }
        }
    }
}

extension JSONNumber: Codable {
    /// Decodes a number; ``SatchelJSONDecoder`` keeps its exact text, other decoders give the value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int64.self) {
            self.init(value)
        } else if let value = try? container.decode(Decimal.self), let number = JSONNumber(value) {
            self = number
        } else {
            let value = try container.decode(Double.self)
            guard let number = JSONNumber(value) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) is not a JSON number")
            }
            self = number
        }
    }

    /// Encodes the number as Int64 when it is one, else as Decimal when exact, else as Double.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value = int64Value {
            try container.encode(value)
        } else if let value = decimalValue {
            try container.encode(value)
        } else {
            try container.encode(try double())
        }
    }
}
