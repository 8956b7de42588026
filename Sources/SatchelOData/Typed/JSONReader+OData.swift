public import Foundation
public import SatchelJSON

/// Readers for OData's JSON value shapes, used by generated proxies' pull decoding: V2 sends Int64, Decimal,
/// GUIDs and dates as strings (`"42"`, `"1.50"`, `"/Date(1715938200000)/"`), V4 sends numbers and ISO 8601
/// text, and both versions may send `"INF"`/`"NaN"` for floating-point values.
extension JSONReader {
    /// An `Edm.Int64`: a number, or a string holding one (V2, V4 with `IEEE754Compatible`).
    @inlinable
    public mutating func readODataInt64() throws -> Int64 {
        guard try peekKind() == .string else { return try readInt64() }
        let text = try readString()
        guard let value = Int64(text) else { throw Self.odataValueError("an Int64", text, at: offset) }
        return value
    }

    /// An `Edm.Decimal`: a number, or a string holding one.
    @inlinable
    public mutating func readODataDecimal() throws -> Decimal {
        guard try peekKind() == .string else { return try readDecimal() }
        let text = try readString()
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw Self.odataValueError("a decimal", text, at: offset)
        }
        return value
    }

    /// An `Edm.Double`/`Edm.Single`: a number, `"INF"`, `"-INF"`, `"NaN"`, or a number in a string.
    @inlinable
    public mutating func readODataDouble() throws -> Double {
        guard try peekKind() == .string else { return try readDouble() }
        let text = try readString()
        switch text {
        case "INF": return .infinity
        case "-INF": return -.infinity
        case "NaN": return .nan
        default:
            guard let value = Double(text) else { throw Self.odataValueError("a number", text, at: offset) }
            return value
        }
    }

    /// An `Edm.Guid` string.
    @inlinable
    public mutating func readODataGUID() throws -> UUID {
        let text = try readString()
        guard let value = ODataGUID.parse(text) else { throw Self.odataValueError("a GUID", text, at: offset) }
        return value
    }

    /// An `Edm.Binary`: base64 (V2) or base64url (V4).
    @inlinable
    public mutating func readODataBinary() throws -> Data {
        let text = try readString()
        guard let value = ODataBinary.decode(text) else { throw Self.odataValueError("base64 data", text, at: offset) }
        return value
    }

    /// An `Edm.DateTime` or `Edm.DateTimeOffset`: V2 `/Date(ms±hhmm)/` or ISO 8601.
    @inlinable
    public mutating func readODataDate() throws -> Date {
        let text = try readString()
        if text.hasPrefix("/Date(") {
            if let date = ODataDateFormat.parseV2JSONDate(text)?.date { return date }
        } else if let date = ODataDateFormat.parseISO8601(text) {
            return date
        }
        throw Self.odataValueError("an OData date", text, at: offset)
    }

    /// A collection: a V4 JSON array, or V2's `{"results": [...]}` wrapper.
    @inlinable
    public mutating func readODataCollection<T>(_ element: (inout JSONReader) throws -> T) throws -> [T] {
        var result: [T] = []
        if try peekKind() == .object {
            try readObject { key, reader in
                if key == "results" { try reader.readArray { result.append(try element(&$0)) } }
            }
        } else {
            try readArray { result.append(try element(&$0)) }
        }
        return result
    }

    @usableFromInline
    static func odataValueError(_ expected: String, _ text: String, at offset: Int) -> JSONError {
        JSONError(code: .invalidValue, message: "expected \(expected), found \"\(text.prefix(40))\"", offset: offset)
    }
}

/// Base64 and base64url for `Edm.Binary` values.
public enum ODataBinary {
    /// `data` in base64url without padding (V4 `Edm.Binary`; safe in a URL query without percent-encoding).
    public static func encodeURL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64 or base64url, padded or not.
    public static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = base64.utf8.count % 4
        if remainder != 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: base64)
    }
}
