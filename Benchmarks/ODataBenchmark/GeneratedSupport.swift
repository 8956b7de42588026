import Foundation
import SatchelJSON
import SatchelOData

// The OData value readers that generated code calls, as the generator's branch defines them in SatchelOData
// (`Typed/JSONReader+OData.swift`): V4 numbers or V2 strings, ISO 8601 or `/Date(…)/`. Delete this file once
// SatchelOData provides them.
extension JSONReader {
    mutating func readODataInt64() throws -> Int64 {
        guard try peekKind() == .string else { return try readInt64() }
        let text = try readString()
        guard let value = Int64(text) else { throw BenchmarkError("not an Int64: \(text)") }
        return value
    }

    mutating func readODataDecimal() throws -> Decimal {
        guard try peekKind() == .string else { return try readDecimal() }
        let text = try readString()
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw BenchmarkError("not a decimal: \(text)")
        }
        return value
    }

    mutating func readODataGUID() throws -> UUID {
        let text = try readString()
        guard let value = UUID(uuidString: text) else { throw BenchmarkError("not a GUID: \(text)") }
        return value
    }

    mutating func readODataDate() throws -> Date {
        let text = try readString()
        if text.hasPrefix("/Date(") {
            if let date = ODataDateFormat.parseV2JSONDate(text)?.date { return date }
        } else if let date = ODataDateFormat.parseISO8601(text) {
            return date
        }
        throw BenchmarkError("not an OData date: \(text)")
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
