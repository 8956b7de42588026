public import Foundation
public import SatchelCMISCore
import SatchelJSON

/// The compact JSON the durable stores keep property bags, ACLs and id lists in.
///
/// A property bag is an array of property objects in the bag's order. Each has its id (`i`), a one-letter type tag
/// (`t`), `m: true` when multi-valued, its values (`v`) and, when present, its local, display and query names
/// (`l`, `d`, `q`). Values are written in the property's type: strings, ids, URIs and HTML as strings, booleans and
/// integers as JSON literals, datetimes as integer milliseconds since 1970 and decimals as their exact decimal
/// text in a string (so no binary rounding can creep in). A value whose type differs from its property's is written
/// as a `[tag, value]` pair, so even inconsistent bags round-trip.
///
/// ```swift
/// let bytes = StoredPropertyCodec.encode(object.properties)
/// let properties = try StoredPropertyCodec.decodeProperties(bytes)   // == object.properties
/// ```
///
/// Both the SQLite and the PostgreSQL store use it, so a bag reads the same whichever store wrote it.
public enum StoredPropertyCodec {
    // MARK: Properties

    /// The property bag as compact JSON.
    public static func encode(_ properties: Properties) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64 + properties.count * 48)
        writer.writeArray { writer in
            for property in properties {
                writer.writeObject { writer in
                    writer.write(key: "i", property.id)
                    writer.write(key: "t", tag(property.type))
                    if property.cardinality == .multi { writer.write(key: "m", true) }
                    writer.write(key: "v") { writer in
                        writer.writeArray { writer in
                            for value in property.values { write(value, as: property.type, to: &writer) }
                        }
                    }
                    if let localName = property.localName { writer.write(key: "l", localName) }
                    if let displayName = property.displayName { writer.write(key: "d", displayName) }
                    if let queryName = property.queryName { writer.write(key: "q", queryName) }
                }
            }
        }
        return writer.bytes
    }

    /// Reads a property bag written by `encode(_:)`.
    ///
    /// - Throws: ``StoredCodingError`` when the bytes are not such a bag.
    public static func decodeProperties<Bytes: ContiguousBytes>(_ bytes: Bytes) throws(StoredCodingError) -> Properties
    {
        var reading = StoredBagReading(keepsDecoded: false)
        return try decodeProperties(bytes, reading: &reading)
    }

    /// Reads a property bag written by `encode(_:)` as one of the rows of `reading`: property ids and names
    /// share storage with the rows read before, and so does the id lookup of properties in the same order.
    public static func decodeProperties<Bytes: ContiguousBytes>(
        _ bytes: Bytes, reading: inout StoredBagReading
    ) throws(StoredCodingError) -> Properties {
        do {
            let properties = try JSONReader.read(bytes) { reader in try readProperties(&reader, reading: &reading) }
            reading.previous = properties
            return properties
        } catch let error as StoredCodingError {
            throw error
        } catch {
            throw StoredCodingError(message: "unreadable property bag: \(error)")
        }
    }

    /// Reads a property bag from its JSON text.
    public static func decodeProperties(_ text: String) throws(StoredCodingError) -> Properties {
        var text = text
        do {
            var reading = StoredBagReading(keepsDecoded: false)
            return try text.withUTF8 { buffer in
                try JSONReader.read(UnsafeRawBufferPointer(buffer)) { reader in
                    try readProperties(&reader, reading: &reading)
                }
            }
        } catch let error as StoredCodingError {
            throw error
        } catch {
            throw StoredCodingError(message: "unreadable property bag: \(error)")
        }
    }

    private static func readProperties(
        _ reader: inout JSONReader, reading: inout StoredBagReading
    ) throws -> Properties {
        var properties: [CMISProperty] = []
        properties.reserveCapacity(reading.previous?.count ?? 8)
        try reader.readArray { reader in
            var id: String?
            var type: PropertyType?
            var cardinality = Cardinality.single
            var values: [PropertyValue] = []
            // Values met before the type (only in bags written by hand: encode writes the type first).
            var pending: [PendingValue] = []
            var localName: String?
            var displayName: String?
            var queryName: String?
            try reader.readObject { key, reader in
                switch key {
                case "i": id = try reader.readString(sharing: &reading.names)
                case "t":
                    let text = try reader.readString()
                    guard let parsed = propertyType(tag: text) else {
                        throw StoredCodingError(message: "unknown property type tag '\(text)'")
                    }
                    type = parsed
                case "m": cardinality = try reader.readBool() ? .multi : .single
                case "v":
                    if let type {
                        try reader.readArray { reader in
                            values.append(try readPending(&reader).value(defaultType: type, propertyId: id ?? "?"))
                        }
                    } else {
                        try reader.readArray { pending.append(try readPending(&$0)) }
                    }
                case "l": localName = try reader.readString(sharing: &reading.names)
                case "d": displayName = try reader.readString(sharing: &reading.names)
                case "q": queryName = try reader.readString(sharing: &reading.names)
                default: break
                }
            }
            guard let id, let type else { throw StoredCodingError(message: "a property without id or type") }
            if !pending.isEmpty { values = try pending.map { try $0.value(defaultType: type, propertyId: id) } }
            properties.append(
                CMISProperty(
                    id: id, type: type, cardinality: cardinality, values: values, localName: localName,
                    displayName: displayName, queryName: queryName))
        }
        return Properties(properties, lookupLike: reading.previous)
    }

    /// A value read before its property's type is known (members may come in any order).
    private enum PendingValue {
        case text(String)
        case bool(Bool)
        case number(JSONNumber)
        case tagged(String, JSONValue)

        func value(defaultType: PropertyType, propertyId: String) throws -> PropertyValue {
            switch self {
            case .tagged(let tag, let raw):
                guard let type = propertyType(tag: tag) else {
                    throw StoredCodingError(message: "unknown value type tag '\(tag)' in \(propertyId)")
                }
                return try convert(raw, to: type, propertyId: propertyId)
            case .text(let text): return try convert(.string(text), to: defaultType, propertyId: propertyId)
            case .bool(let bool): return try convert(.bool(bool), to: defaultType, propertyId: propertyId)
            case .number(let number): return try convert(.number(number), to: defaultType, propertyId: propertyId)
            }
        }
    }

    private static func readPending(_ reader: inout JSONReader) throws -> PendingValue {
        switch try reader.peekKind() {
        case .string: return .text(try reader.readString())
        case .bool: return .bool(try reader.readBool())
        case .number: return .number(try reader.readNumber())
        case .array:
            var tag: String?
            var raw: JSONValue?
            var index = 0
            try reader.readArray { reader in
                if index == 0 { tag = try reader.readString() } else if index == 1 { raw = try reader.readValue() }
                index += 1
            }
            guard let tag, let raw, index == 2 else { throw StoredCodingError(message: "a malformed tagged value") }
            return .tagged(tag, raw)
        default:
            throw StoredCodingError(message: "a property value of unexpected JSON kind \(try reader.peekKind())")
        }
    }

    private static func convert(_ raw: JSONValue, to type: PropertyType, propertyId: String) throws -> PropertyValue {
        func mismatch() -> StoredCodingError {
            StoredCodingError(message: "value \(raw) of \(propertyId) does not fit type \(type.rawValue)")
        }
        switch (type, raw) {
        case (.string, .string(let text)): return .string(text)
        case (.id, .string(let text)): return .id(text)
        case (.uri, .string(let text)): return .uri(text)
        case (.html, .string(let text)): return .html(text)
        case (.boolean, .bool(let bool)): return .boolean(bool)
        case (.integer, .number(let number)):
            guard let value = Int64(number.text) else { throw mismatch() }
            return .integer(value)
        case (.datetime, .number(let number)):
            guard let milliseconds = Int64(number.text) else { throw mismatch() }
            return .datetime(StoredTime.date(milliseconds: milliseconds))
        case (.decimal, .string(let text)):
            guard let value = decimal(text) else { throw mismatch() }
            return .decimal(value)
        default: throw mismatch()
        }
    }

    private static func write(_ value: PropertyValue, as type: PropertyType, to writer: inout JSONWriter) {
        guard value.type == type else {
            writer.writeArray { writer in
                writer.write(tag(value.type))
                write(value, as: value.type, to: &writer)
            }
            return
        }
        switch value {
        case .string(let text), .id(let text), .uri(let text), .html(let text): writer.write(text)
        case .boolean(let bool): writer.write(bool)
        case .integer(let integer): writer.write(integer)
        case .datetime(let date): writer.write(StoredTime.milliseconds(date))
        case .decimal(let decimal): writer.write(decimal.isNaN ? "NaN" : decimal.description)
        }
    }

    private static func decimal(_ text: String) -> Decimal? {
        if text == "NaN" { return Decimal.nan }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    private static func tag(_ type: PropertyType) -> String {
        switch type {
        case .string: return "s"
        case .boolean: return "b"
        case .integer: return "n"
        case .decimal: return "d"
        case .datetime: return "t"
        case .id: return "i"
        case .uri: return "u"
        case .html: return "h"
        }
    }

    private static func propertyType(tag: String) -> PropertyType? {
        switch tag {
        case "s": return .string
        case "b": return .boolean
        case "n": return .integer
        case "d": return .decimal
        case "t": return .datetime
        case "i": return .id
        case "u": return .uri
        case "h": return .html
        default: return nil
        }
    }

    // MARK: ACLs and string lists

    /// An ACL as `[[principal, [permissions…], isDirect], …]`.
    public static func encode(_ acl: [ACE]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 16 + acl.count * 48)
        writer.writeArray { writer in
            for ace in acl {
                writer.writeArray { writer in
                    writer.write(ace.principalId)
                    writer.writeArray { writer in
                        for permission in ace.permissions { writer.write(permission) }
                    }
                    writer.write(ace.isDirect)
                }
            }
        }
        return writer.bytes
    }

    /// Reads an ACL written by `encode(_:)` (the ACL one).
    public static func decodeACL(_ text: String) throws(StoredCodingError) -> [ACE] {
        if text == "[]" { return [] }
        do {
            return try JSONReader.read(text) { reader in
                var aces: [ACE] = []
                try reader.readArray { reader in
                    var index = 0
                    var principal: String?
                    var permissions: [String] = []
                    var isDirect = true
                    try reader.readArray { reader in
                        switch index {
                        case 0: principal = try reader.readString()
                        case 1: try reader.readArray { permissions.append(try $0.readString()) }
                        case 2: isDirect = try reader.readBool()
                        default: break
                        }
                        index += 1
                    }
                    guard let principal else { throw StoredCodingError(message: "an ACE without principal") }
                    aces.append(ACE(principalId: principal, permissions: permissions, isDirect: isDirect))
                }
                return aces
            }
        } catch let error as StoredCodingError {
            throw error
        } catch {
            throw StoredCodingError(message: "unreadable ACL: \(error)")
        }
    }

    /// A list of strings (parent ids, policy ids) as a JSON array.
    public static func encode(_ strings: [String]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 8 + strings.count * 40)
        writer.writeArray { writer in
            for string in strings { writer.write(string) }
        }
        return writer.bytes
    }

    /// Reads a list written by ``encode(_:)-([String])``.
    public static func decodeStrings(_ text: String) throws(StoredCodingError) -> [String] {
        if text == "[]" { return [] }
        do {
            return try JSONReader.read(text) { reader in
                var strings: [String] = []
                try reader.readArray { strings.append(try $0.readString()) }
                return strings
            }
        } catch {
            throw StoredCodingError(message: "unreadable id list: \(error)")
        }
    }

    /// UTF-8 bytes as text (JSON written by this codec is always valid UTF-8).
    public static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// What the rows of one read share while their property bags are decoded.
///
/// A read of many rows (a page of children, a query scan) creates one and passes it to every row: the property ids
/// and names the rows repeat are then allocated once (`JSONStringTable`), and rows whose properties come in the
/// same order share one id lookup table. It also says whether bags decoded now are added to the decode cache.
///
/// ```swift
/// var reading = StoredBagReading(expectedRows: 1000)
/// let objects = try rows.map { try $0.columns.object(propertyBag: $0.bag, reading: &reading) }
/// ```
public struct StoredBagReading: Sendable {
    /// Whether bags decoded now are added to ``StoredDecodeCache``.
    public var keepsDecoded: Bool
    var names = JSONStringTable(capacity: 512)
    var previous: Properties?

    /// A reading that adds the bags it decodes to the decode cache when `keepsDecoded` is true.
    public init(keepsDecoded: Bool) {
        self.keepsDecoded = keepsDecoded
    }

    /// The reading for a read expected to return `rows` rows (nil: unbounded): it adds the bags it decodes to the
    /// decode cache only up to ``StoredDecodeCache/scanRows`` rows.
    public init(expectedRows rows: Int?) {
        self.init(keepsDecoded: rows.map { $0 <= StoredDecodeCache.scanRows } ?? false)
    }
}

/// Stored data that does not read back: a damaged or foreign row.
public struct StoredCodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What could not be read, and where (the object's id, when known).
    public var message: String

    /// An error with this message.
    public init(message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// How the durable stores keep instants: integer milliseconds since 1970, as the CMIS Browser binding does.
public enum StoredTime {
    /// Milliseconds since 1970, rounded to the nearest; clamped to ±10^15 (about 31,000 years) so that no date,
    /// however odd, traps.
    public static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, -1e15), 1e15))
    }

    /// The date `milliseconds` after 1970 (computed like the client's Browser binding parser does).
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
