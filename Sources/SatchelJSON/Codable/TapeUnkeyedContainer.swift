import Foundation

struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    let array: Int
    let depth: Int
    let extra: [any CodingKey]
    let count: Int?
    private(set) var currentIndex = 0
    /// Tape index of the next element.
    private var position: Int

    init(decoder: TapeDecoder, array: Int, depth: Int, extra: [any CodingKey]) {
        self.decoder = decoder
        self.array = array
        self.depth = depth
        self.extra = extra
        self.count = Int(decoder.tape.entries[array].count)
        self.position = array + 1
    }

    var codingPath: [any CodingKey] { decoder.fullPath(depth, extra, nil) }
    var isAtEnd: Bool { currentIndex >= count! }

    private var indexKey: IndexOrKey { IndexOrKey(intValue: currentIndex) }

    /// Hands the next element to `body`, then moves past it.
    @inline(__always)
    private mutating func next<T>(_ type: T.Type, _ body: (Int, IndexOrKey) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: decoder.fullPath(depth, extra, indexKey),
                    debugDescription: "Unkeyed container is at end."))
        }
        let value = try body(position, indexKey)
        position = decoder.tape.next(after: position)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self,
                .init(
                    codingPath: decoder.fullPath(depth, extra, indexKey),
                    debugDescription: "Unkeyed container is at end."))
        }
        guard decoder.unboxNil(position) else { return false }
        position += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(type) { try decoder.unboxBool($0, $1, extra, depth) }
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(type) { try decoder.unboxString($0, $1, extra, depth) }
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(type) { try decoder.unboxDouble($0, $1, extra, depth) }
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(type) { try decoder.unboxFloat($0, $1, extra, depth) }
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    private mutating func integer<T: FixedWidthInteger>() throws -> T {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(T.self) { try decoder.unboxInteger($0, T.self, $1, extra, depth) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(type) { try decoder.unbox(T.self, at: $0, key: $1, extra: extra, depth: depth) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(KeyedDecodingContainer<NestedKey>.self) {
            try decoder.keyedContainer(at: $0, extra: extra, depth: depth, key: $1)
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(TapeUnkeyedContainer.self) {
            try decoder.unkeyedContainer(at: $0, extra: extra, depth: depth, key: $1)
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let (decoder, extra, depth) = (decoder, extra, depth)
        return try next(TapeDecoder.self) { decoder.superDecoder(at: $0, extra: extra, depth: depth, key: $1) }
    }
}

struct TapeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: TapeDecoder
    let index: Int
    let depth: Int

    var codingPath: [any CodingKey] { decoder.fullPath(depth, [], nil) }

    func decodeNil() -> Bool { decoder.unboxNil(index) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.unboxBool(index, nil, [], depth) }
    func decode(_ type: String.Type) throws -> String { try decoder.unboxString(index, nil, [], depth) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.unboxDouble(index, nil, [], depth) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.unboxFloat(index, nil, [], depth) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.unboxInteger(index, type, nil, [], depth) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.unbox(T.self, at: index, key: nil, extra: [], depth: depth)
    }
}
