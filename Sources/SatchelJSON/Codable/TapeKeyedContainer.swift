import Foundation

struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TapeDecoder
    /// Tape index of the object.
    let object: Int
    /// Length of the decoder's path when the container was made, plus keys of nested containers.
    let depth: Int
    let extra: [any CodingKey]

    var codingPath: [any CodingKey] { decoder.fullPath(depth, extra, nil) }

    var allKeys: [Key] {
        var keys: [Key] = []
        let tape = decoder.tape
        var k = object + 1
        while k < tape.entries[object].extent {
            if let key = Key(stringValue: decoder.convertedKey(k)) { keys.append(key) }
            k = tape.next(after: k + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { decoder.findMember(object, key.stringValue) != nil }

    @inline(__always)
    private func valueIndex(_ key: Key) throws -> Int {
        if let i = decoder.findMember(object, key.stringValue) { return i }
        throw DecodingError.keyNotFound(
            key,
            .init(
                codingPath: codingPath,
                debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\") in the object at "
                    + "\(decoder.tape.location(object))."))
    }

    /// Tape index of the member's value, or `nil` when it is missing or `null`.
    @inline(__always)
    private func presentIndex(_ key: Key) -> Int? {
        guard let i = decoder.findMember(object, key.stringValue), !decoder.unboxNil(i) else { return nil }
        return i
    }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.unboxNil(try valueIndex(key)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.unboxBool(try valueIndex(key), key, extra, depth)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.unboxString(try valueIndex(key), key, extra, depth)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.unboxDouble(try valueIndex(key), key, extra, depth)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.unboxFloat(try valueIndex(key), key, extra, depth)
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(T.self, at: try valueIndex(key), key: key, extra: extra, depth: depth)
    }

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
        try decoder.unboxInteger(try valueIndex(key), T.self, key, extra, depth)
    }

    // One lookup instead of the three (contains, decodeNil, decode) of the default implementations.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let i = presentIndex(key) else { return nil }
        return try decoder.unboxBool(i, key, extra, depth)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let i = presentIndex(key) else { return nil }
        return try decoder.unboxString(i, key, extra, depth)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let i = presentIndex(key) else { return nil }
        return try decoder.unboxDouble(i, key, extra, depth)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let i = presentIndex(key) else { return nil }
        return try decoder.unboxFloat(i, key, extra, depth)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let i = presentIndex(key) else { return nil }
        return try decoder.unbox(T.self, at: i, key: key, extra: extra, depth: depth)
    }

    @inline(__always)
    private func integerIfPresent<T: FixedWidthInteger>(_ key: Key) throws -> T? {
        guard let i = presentIndex(key) else { return nil }
        return try decoder.unboxInteger(i, T.self, key, extra, depth)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.keyedContainer(at: try valueIndex(key), extra: extra, depth: depth, key: key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.unkeyedContainer(at: try valueIndex(key), extra: extra, depth: depth, key: key)
    }

    func superDecoder() throws -> any Decoder {
        let key = IndexOrKey(stringValue: "super")
        let i = decoder.findMember(object, key.stringValue) ?? decoder.tape.nullIndex
        return decoder.superDecoder(at: i, extra: extra, depth: depth, key: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let i = decoder.findMember(object, key.stringValue) ?? decoder.tape.nullIndex
        return decoder.superDecoder(at: i, extra: extra, depth: depth, key: key)
    }
}
