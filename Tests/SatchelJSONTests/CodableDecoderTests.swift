import Foundation
import Testing

@testable import SatchelJSON

/// Codable round trips: the same bytes decoded by Foundation's `JSONDecoder` and by `SatchelJSONDecoder`.
@Suite struct CodableDecoderTests {
    struct Everything: Codable, Equatable {
        enum Kind: String, Codable { case small, large }
        struct Inner: Codable, Equatable {
            var name: String
            var tags: [String]
            var score: Double?
        }
        var bool: Bool
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
        var float: Float
        var double: Double
        var decimal: Decimal
        var string: String
        var optional: String?
        var missing: Int?
        var kind: Kind
        var date: Date
        var url: URL
        var data: Data
        var inner: Inner
        var inners: [Inner]
        var matrix: [[Int]]
        var dictionary: [String: Int]
        var optionals: [Int?]
    }

    static let everything = #"""
        {"bool": true, "int": -42, "int8": -128, "int16": 32767, "int32": -2147483648, "int64": 9223372036854775807,
         "uint": 42, "uint8": 255, "uint16": 65535, "uint32": 4294967295, "uint64": 18446744073709551615,
         "float": 1.5, "double": 0.1, "decimal": 12345.6789, "string": "h\u00e9llo \"w\"\n", "optional": null,
         "kind": "large", "date": 1700000000.5, "url": "https://example.com/a?b=c", "data": "AAEC/w==",
         "inner": {"name": "x", "tags": ["a", "b"], "score": 2.5},
         "inners": [{"name": "y", "tags": []}, {"name": "z", "tags": ["c"], "score": null}],
         "matrix": [[1, 2], [], [3]], "dictionary": {"one": 1, "two": 2}, "optionals": [1, null, 3],
         "ignored": {"x": [1]}}
        """#

    @Test func roundTripMatchesFoundation() throws {
        let bytes = Array(Self.everything.utf8)
        let foundation = try JSONDecoder().decode(Everything.self, from: Data(bytes))
        let satchel = try SatchelJSONDecoder().decode(Everything.self, from: bytes)
        #expect(satchel == foundation)
        #expect(satchel.decimal == Decimal(string: "12345.6789"))
        #expect(satchel.int64 == .max && satchel.uint64 == .max)
        // And back: Foundation's encoder output decodes to the same value.
        let encoded = try JSONEncoder().encode(satchel)
        #expect(try SatchelJSONDecoder().decode(Everything.self, from: encoded) == satchel)
    }

    struct Dated: Codable, Equatable {
        var created: Date
        var snakeCaseKey: Int
        var url: String
    }

    @Test(arguments: ["iso8601", "seconds", "milliseconds", "custom", "deferred"])
    func dateStrategies(_ strategy: String) throws {
        let satchelStrategy: SatchelJSONDecoder.DateDecodingStrategy
        let foundationStrategy: JSONDecoder.DateDecodingStrategy
        let date: String
        switch strategy {
        case "iso8601":
            (satchelStrategy, foundationStrategy, date) = (.iso8601, .iso8601, #""2024-05-17T09:30:00+02:00""#)
        case "seconds":
            (satchelStrategy, foundationStrategy, date) = (.secondsSince1970, .secondsSince1970, "1715931000")
        case "milliseconds":
            (satchelStrategy, foundationStrategy, date) = (
                .millisecondsSince1970, .millisecondsSince1970, "1715931000250"
            )
        case "custom":
            let parse: @Sendable (any Decoder) throws -> Date = { decoder in
                let text = try decoder.singleValueContainer().decode(String.self)
                return Date(timeIntervalSince1970: Double(text.dropFirst(6).dropLast(2))! / 1000)
            }
            (satchelStrategy, foundationStrategy, date) = (.custom(parse), .custom(parse), #""/Date(1715931000000)/""#)
        default:
            (satchelStrategy, foundationStrategy, date) = (.deferredToDate, .deferredToDate, "737467800.25")
        }
        let text = #"{"created": \#(date), "snake_case_key": 7, "url": "u"}"#
        var satchel = SatchelJSONDecoder()
        satchel.dateDecodingStrategy = satchelStrategy
        satchel.keyDecodingStrategy = .convertFromSnakeCase
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = foundationStrategy
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        let expected = try foundation.decode(Dated.self, from: Data(text.utf8))
        #expect(try satchel.decode(Dated.self, from: text) == expected)
    }

    @Test func iso8601AcceptsFractionsAndZones() throws {
        var decoder = SatchelJSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let dates = try decoder.decode(
            [Date].self,
            from:
                #"["1970-01-01T00:00:00Z", "2000-02-29T12:00:00.250Z", "2024-01-01T01:00:00+01:00", "#
                + #""2024-01-01T00:00:00"]"#
        )
        #expect(dates[0].timeIntervalSince1970 == 0)
        #expect(dates[1].timeIntervalSince1970 == 951_825_600.25)
        #expect(dates[2] == dates[3])
        #expect(throws: DecodingError.self) { try decoder.decode([Date].self, from: #"["2024-02-30T00:00:00Z"]"#) }
    }

    struct WithSuper: Decodable, Equatable {
        var value: Int
        var base: Int
        var nested: Int
        var items: [Int]
        enum CodingKeys: String, CodingKey { case value, parent, wrapper, items }
        enum WrapperKeys: String, CodingKey { case nested }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = try container.decode(Int.self, forKey: .value)
            base = try container.superDecoder(forKey: .parent).singleValueContainer().decode(Int.self)
            nested = try container.nestedContainer(keyedBy: WrapperKeys.self, forKey: .wrapper).decode(
                Int.self, forKey: .nested)
            var unkeyed = try container.nestedUnkeyedContainer(forKey: .items)
            var items: [Int] = []
            while !unkeyed.isAtEnd {
                if try unkeyed.decodeNil() { continue }
                items.append(try unkeyed.decode(Int.self))
            }
            self.items = items
        }
    }

    @Test func nestedContainersAndSuperDecoder() throws {
        let text = #"{"items": [1, null, 2], "wrapper": {"nested": 5}, "parent": 9, "value": 3}"#
        let satchel = try SatchelJSONDecoder().decode(WithSuper.self, from: text)
        #expect(satchel == (try JSONDecoder().decode(WithSuper.self, from: Data(text.utf8))))
        #expect(satchel.items == [1, 2] && satchel.base == 9 && satchel.nested == 5)
    }

    @Test func jsonValueDecodesExactly() throws {
        let value = try SatchelJSONDecoder().decode(JSONValue.self, from: #"{"b": 1.10, "a": [null, "x"]}"#)
        #expect(value.objectValue?.keys == ["b", "a"])
        #expect(value["b"]?.numberValue?.text == "1.10")
    }

    struct Order: Decodable {
        struct Line: Decodable {
            var sku: String
            var price: Decimal
            var quantity: Int
        }
        var id: Int
        var lines: [Line]
    }

    /// Error cases: the same kind of `DecodingError` and the same coding path as Foundation.
    @Test(arguments: [
        (
            #"{"id": 1, "lines": [{"sku": "a", "price": 1, "quantity": 1}, {"sku": "b", "price": "x"}]}"#,
            "typeMismatch", "lines.Index 1.price"
        ),
        (#"{"id": 1, "lines": [{"sku": "a", "price": 1}]}"#, "keyNotFound", "lines.Index 0"),
        (#"{"id": null, "lines": []}"#, "valueNotFound", "id"),
        (#"{"id": 1.5, "lines": []}"#, "dataCorrupted", "id"),
        (
            #"{"id": 1, "lines": [{"sku": "a", "price": 1, "quantity": 99999999999999999999}]}"#, "dataCorrupted",
            "lines.Index 0.quantity"
        ),
        (#"{"id": 1, "lines": {}}"#, "typeMismatch", "lines"),
        (#"{"id": 1, "lines": [}"#, "dataCorrupted", "lines.Index 0"),
    ])
    func errorsCarryTheCodingPath(_ text: String, _ kind: String, _ path: String) throws {
        func describe(_ error: any Error) -> (String, String, String) {
            guard let error = error as? DecodingError else { return ("other", "", "") }
            let (name, context): (String, DecodingError.Context)
            switch error {
            case .typeMismatch(_, let c): (name, context) = ("typeMismatch", c)
            case .valueNotFound(_, let c): (name, context) = ("valueNotFound", c)
            case .keyNotFound(_, let c): (name, context) = ("keyNotFound", c)
            case .dataCorrupted(let c): (name, context) = ("dataCorrupted", c)
            @unknown default: return ("other", "", "")
            }
            let path = context.codingPath.map { $0.intValue.map { "Index \($0)" } ?? $0.stringValue }
            return (name, path.joined(separator: "."), context.debugDescription)
        }
        let satchelError = #expect(throws: DecodingError.self) {
            try SatchelJSONDecoder().decode(Order.self, from: text)
        }
        let (name, satchelPath, message) = describe(try #require(satchelError))
        #expect(name == kind)
        #expect(satchelPath == path)
        #expect(message.contains("byte "), "the debug description names the offset: \(message)")
        if kind != "dataCorrupted" || !text.contains("[}") {
            let foundationError = #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(Order.self, from: Data(text.utf8))
            }
            let (foundationName, foundationPath, _) = describe(try #require(foundationError))
            #expect(foundationName == name)
            // Foundation leaves the path empty for numbers that don't fit; Satchel names the member.
            if kind != "dataCorrupted" { #expect(foundationPath == satchelPath) }
        }
    }

    @Test func syntaxErrorIsDataCorruptedWithUnderlyingJSONError() throws {
        let error = #expect(throws: DecodingError.self) {
            try SatchelJSONDecoder().decode([Int].self, from: "[1, 2 3]")
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted")
            return
        }
        let underlying = try #require(context.underlyingError as? JSONError)
        #expect(underlying.code == .unexpectedCharacter && underlying.offset == 6)
    }

    @Test func decodesFromAReaderInTheMiddleOfADocument() throws {
        let decoder = SatchelJSONDecoder()
        let lines = try JSONReader.read(#"{"x": 1, "lines": [{"sku": "a", "price": 0.1, "quantity": 2}]}"#) { reader in
            var lines: [Order.Line] = []
            try reader.readObject { key, reader in
                if key == "lines" {
                    try reader.readArray { lines.append(try decoder.decode(Order.Line.self, from: &$0)) }
                }
            }
            return lines
        }
        #expect(lines.count == 1 && lines[0].price == Decimal(string: "0.1"))
    }
}
