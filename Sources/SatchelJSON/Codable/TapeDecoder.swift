import Foundation
import SatchelText

/// The `Decoder` behind ``SatchelJSONDecoder``: one instance per `decode` call, moved from value to
/// value instead of allocating a decoder per nested value.
///
/// Containers remember the decoder's path depth when they were made (plus any keys of nested
/// containers, `extra`), so the coding path is only materialized when someone asks for it.
final class TapeDecoder: Decoder {
    let tape: JSONTape
    let options: SatchelJSONDecoder
    /// Tape index of the value `init(from:)` is decoding.
    var index: Int
    /// Keys from the root to `index`.
    var path: [any CodingKey]
    /// Where the last member lookup in object `hintObject` ended: members are usually decoded in
    /// document order, so the next lookup starts there and usually matches at once.
    var hintObject = -1
    var hintMember = 0
    /// camelCase spellings of keys, by tape index, for `.convertFromSnakeCase`.
    var convertedKeys: [Int: String] = [:]
    let convertsKeys: Bool

    init(tape: JSONTape, options: SatchelJSONDecoder, index: Int, path: [any CodingKey]) {
        self.tape = tape
        self.options = options
        self.index = index
        self.path = path
        if case .convertFromSnakeCase = options.keyDecodingStrategy {
            convertsKeys = true
        } else {
            convertsKeys = false
        }
    }

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo.mapValues { $0 as Any } }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(at: index, extra: [], depth: path.count, key: nil)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: index, extra: [], depth: path.count, key: nil)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TapeSingleValueContainer(decoder: self, index: index, depth: path.count)
    }

    func keyedContainer<Key: CodingKey>(
        at i: Int, extra: [any CodingKey], depth: Int, key: (any CodingKey)?
    ) throws -> KeyedDecodingContainer<Key> {
        var extra = extra
        if let key { extra.append(key) }
        guard tape.entries[i].kind == .object else {
            throw mismatch([String: Any].self, at: i, fullPath(depth, extra, nil))
        }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self, object: i, depth: depth, extra: extra))
    }

    func unkeyedContainer(
        at i: Int, extra: [any CodingKey], depth: Int, key: (any CodingKey)?
    ) throws -> TapeUnkeyedContainer {
        var extra = extra
        if let key { extra.append(key) }
        guard tape.entries[i].kind == .array else { throw mismatch([Any].self, at: i, fullPath(depth, extra, nil)) }
        return TapeUnkeyedContainer(decoder: self, array: i, depth: depth, extra: extra)
    }

    /// A separate decoder at `i`, for `superDecoder()`.
    func superDecoder(at i: Int, extra: [any CodingKey], depth: Int, key: (any CodingKey)?) -> TapeDecoder {
        TapeDecoder(tape: tape, options: options, index: i, path: fullPath(depth, extra, key))
    }

    // MARK: Paths and errors

    func fullPath(_ depth: Int, _ extra: [any CodingKey], _ key: (any CodingKey)?) -> [any CodingKey] {
        var result = Array(path.prefix(depth))
        result += extra
        if let key { result.append(key) }
        return result
    }

    func describeKind(_ i: Int) -> String {
        switch tape.entries[i].kind {
        case .null: return "null"
        case .true, .false: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    func mismatch(_ type: Any.Type, at i: Int, _ path: [any CodingKey]) -> DecodingError {
        if tape.entries[i].kind == .null {
            return .valueNotFound(
                type,
                .init(
                    codingPath: path,
                    debugDescription: "Expected \(type) value but found null instead at \(tape.location(i))."))
        }
        return .typeMismatch(
            type,
            .init(
                codingPath: path,
                debugDescription: "Expected to decode \(type) but found \(describeKind(i)) at \(tape.location(i))."))
    }

    func corrupted(_ message: String, at i: Int, _ path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: "\(message) at \(tape.location(i))."))
    }

    func numberError(_ type: Any.Type, at i: Int, _ path: [any CodingKey]) -> DecodingError {
        let text = String(decoding: tape.bytes(tape.entries[i]), as: UTF8.self)
        return corrupted("Number \(text) is not representable as \(type)", at: i, path)
    }

    // MARK: Primitive values

    @inline(__always)
    func unboxNil(_ i: Int) -> Bool { tape.entries[i].kind == .null }

    func unboxBool(_ i: Int, _ key: (any CodingKey)?, _ extra: [any CodingKey], _ depth: Int) throws -> Bool {
        switch tape.entries[i].kind {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self, at: i, fullPath(depth, extra, key))
        }
    }

    func unboxString(_ i: Int, _ key: (any CodingKey)?, _ extra: [any CodingKey], _ depth: Int) throws -> String {
        let entry = tape.entries[i]
        guard entry.kind == .string else { throw mismatch(String.self, at: i, fullPath(depth, extra, key)) }
        return tape.string(entry)
    }

    func unboxInteger<T: FixedWidthInteger>(
        _ i: Int, _ type: T.Type, _ key: (any CodingKey)?, _ extra: [any CodingKey], _ depth: Int
    ) throws -> T {
        let entry = tape.entries[i]
        guard entry.kind == .number else { throw mismatch(T.self, at: i, fullPath(depth, extra, key)) }
        let base = tape.base
        var p = entry.start
        let negative = base[p] == UInt8(ascii: "-")
        if negative { p += 1 }
        // Fast path: plain digits that cannot overflow Int64 (the lexeme is already validated).
        if entry.extent - p <= 18 {
            var value: Int64 = 0
            var plain = true
            while p < entry.extent {
                let digit = base[p] &- UInt8(ascii: "0")
                if digit > 9 {
                    plain = false
                    break
                }
                value = value &* 10 &+ Int64(digit)
                p += 1
            }
            if plain {
                if let result = T(exactly: negative ? -value : value) { return result }
                throw numberError(T.self, at: i, fullPath(depth, extra, key))
            }
        }
        let bytes = tape.bytes(entry)
        if T.isSigned {
            if let value = NumberParsing.int64(bytes), let result = T(exactly: value) { return result }
        } else if let value = NumberParsing.uint64(bytes), let result = T(exactly: value) {
            return result
        }
        throw numberError(T.self, at: i, fullPath(depth, extra, key))
    }

    func unboxDouble(_ i: Int, _ key: (any CodingKey)?, _ extra: [any CodingKey], _ depth: Int) throws -> Double {
        let entry = tape.entries[i]
        guard entry.kind == .number else { throw mismatch(Double.self, at: i, fullPath(depth, extra, key)) }
        guard let value = NumberParsing.double(tape.bytes(entry)) else {
            throw numberError(Double.self, at: i, fullPath(depth, extra, key))
        }
        return value
    }

    func unboxFloat(_ i: Int, _ key: (any CodingKey)?, _ extra: [any CodingKey], _ depth: Int) throws -> Float {
        let value = try unboxDouble(i, key, extra, depth)
        let float = Float(value)
        guard float.isFinite else { throw numberError(Float.self, at: i, fullPath(depth, extra, key)) }
        return float
    }

    func unboxDecimal(_ i: Int, _ key: (any CodingKey)?, _ extra: [any CodingKey], _ depth: Int) throws -> Decimal {
        let entry = tape.entries[i]
        guard entry.kind == .number else { throw mismatch(Decimal.self, at: i, fullPath(depth, extra, key)) }
        guard let value = NumberParsing.decimal(tape.bytes(entry)) else {
            throw numberError(Decimal.self, at: i, fullPath(depth, extra, key))
        }
        return value
    }

    // MARK: Any Decodable

    /// Decodes `T` at tape index `i`, with fast paths for the types Foundation's decoder treats specially.
    func unbox<T: Decodable>(
        _ type: T.Type, at i: Int, key: (any CodingKey)?, extra: [any CodingKey], depth: Int
    ) throws -> T {
        // `T` is known to be the type checked, so a bit cast replaces a (slow) dynamic cast.
        if T.self == Decimal.self { return unsafeBitCast(try unboxDecimal(i, key, extra, depth), to: T.self) }
        if T.self == Date.self { return unsafeBitCast(try unboxDate(i, key, extra, depth), to: T.self) }
        if T.self == URL.self {
            let string = try unboxString(i, key, extra, depth)
            guard let url = URL(string: string) else {
                throw corrupted("Invalid URL string", at: i, fullPath(depth, extra, key))
            }
            return unsafeBitCast(url, to: T.self)
        }
        if T.self == Data.self, case .base64 = options.dataDecodingStrategy {
            let string = try unboxString(i, key, extra, depth)
            guard let data = Data(base64Encoded: string) else {
                throw corrupted("Encountered Data is not valid Base64", at: i, fullPath(depth, extra, key))
            }
            return unsafeBitCast(data, to: T.self)
        }
        if T.self == JSONValue.self { return unsafeBitCast(tape.value(at: i), to: T.self) }
        if T.self == JSONNumber.self {
            let entry = tape.entries[i]
            guard entry.kind == .number else { throw mismatch(JSONNumber.self, at: i, fullPath(depth, extra, key)) }
            return unsafeBitCast(
                JSONNumber(uncheckedText: String(decoding: tape.bytes(entry), as: UTF8.self)), to: T.self)
        }
        return try nested(at: i, key: key, extra: extra, depth: depth) { try T(from: self) }
    }

    func unboxDate(_ i: Int, _ key: (any CodingKey)?, _ extra: [any CodingKey], _ depth: Int) throws -> Date {
        switch options.dateDecodingStrategy {
        case .deferredToDate:
            return try nested(at: i, key: key, extra: extra, depth: depth) { try Date(from: self) }
        case .iso8601:
            let entry = tape.entries[i]
            guard entry.kind == .string else { throw mismatch(Date.self, at: i, fullPath(depth, extra, key)) }
            guard !entry.escaped, let date = ISO8601Timestamp.date(utf8: tape.bytes(entry)) else {
                throw corrupted("Expected date string to be ISO8601-formatted", at: i, fullPath(depth, extra, key))
            }
            return date
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try unboxDouble(i, key, extra, depth))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try unboxDouble(i, key, extra, depth) / 1000)
        case .custom(let closure):
            return try nested(at: i, key: key, extra: extra, depth: depth) { try closure(self) }
        }
    }

    /// Runs `body` with the decoder moved to tape index `i` and the path extended, then moves it back.
    @inline(__always)
    func nested<R>(
        at i: Int, key: (any CodingKey)?, extra: [any CodingKey], depth: Int, _ body: () throws -> R
    ) throws -> R {
        let savedIndex = index
        let savedHintObject = hintObject
        let savedHintMember = hintMember
        if path.count > depth { path.removeLast(path.count - depth) }
        let savedCount = path.count
        if !extra.isEmpty { path += extra }
        if let key { path.append(key) }
        index = i
        defer {
            index = savedIndex
            hintObject = savedHintObject
            hintMember = savedHintMember
            path.removeLast(path.count - savedCount)
        }
        return try body()
    }

    // MARK: Member lookup

    /// Tape index of the value of member `name` of the object at `object`, or `nil`.
    func findMember(_ object: Int, _ name: String) -> Int? {
        let extent = tape.entries[object].extent
        let first = object + 1
        let start = hintObject == object && hintMember < extent ? hintMember : first
        if convertsKeys {
            return findConverted(object, name, first: first, start: start, extent: extent)
        }
        var name = name
        return name.withUTF8 { utf8 -> Int? in
            var k = start
            while k < extent {
                if tape.key(k, equals: utf8) { return found(object, k) }
                k = tape.next(after: k + 1)
            }
            k = first
            while k < start {
                if tape.key(k, equals: utf8) { return found(object, k) }
                k = tape.next(after: k + 1)
            }
            return nil
        }
    }

    @inline(__always)
    func found(_ object: Int, _ keyIndex: Int) -> Int {
        hintObject = object
        hintMember = tape.next(after: keyIndex + 1)
        return keyIndex + 1
    }

    private func findConverted(_ object: Int, _ name: String, first: Int, start: Int, extent: Int) -> Int? {
        var k = start
        while k < extent {
            if convertedKey(k) == name { return found(object, k) }
            k = tape.next(after: k + 1)
        }
        k = first
        while k < start {
            if convertedKey(k) == name { return found(object, k) }
            k = tape.next(after: k + 1)
        }
        return nil
    }

    /// The key at tape index `k` as the `CodingKey` string to match (converted from snake case if asked).
    func convertedKey(_ k: Int) -> String {
        guard convertsKeys else { return tape.string(tape.entries[k]) }
        if let cached = convertedKeys[k] { return cached }
        let converted = TapeDecoder.camelCase(fromSnakeCase: tape.string(tape.entries[k]))
        convertedKeys[k] = converted
        return converted
    }

    /// Foundation's `convertFromSnakeCase` rules: leading and trailing underscores are kept.
    static func camelCase(fromSnakeCase key: String) -> String {
        guard let firstNonUnderscore = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastNonUnderscore = key.index(before: key.endIndex)
        while lastNonUnderscore > firstNonUnderscore && key[lastNonUnderscore] == "_" {
            key.formIndex(before: &lastNonUnderscore)
        }
        let keyRange = firstNonUnderscore...lastNonUnderscore
        let leading = key[key.startIndex..<firstNonUnderscore]
        let trailing = key[key.index(after: lastNonUnderscore)..<key.endIndex]
        let components = key[keyRange].split(separator: "_")
        let joined: String
        if components.count == 1 {
            joined = String(key[keyRange])
        } else {
            joined = ([components[0].lowercased()] + components[1...].map { $0.capitalized }).joined()
        }
        return leading + joined + trailing
    }
}
