import Foundation
import Testing

@testable import SatchelJSON

@Suite struct PullDecodingTests {
    struct Product: JSONDecodable, Equatable {
        var id: Int64
        var name: String
        var price: Decimal?
        var tags: [String]

        init(id: Int64, name: String, price: Decimal?, tags: [String]) {
            (self.id, self.name, self.price, self.tags) = (id, name, price, tags)
        }

        init(from reader: inout JSONReader) throws {
            var id: Int64?
            var name: String?
            var price: Decimal?
            var tags: [String] = []
            try reader.readObject { key, reader in
                switch key {
                case "ID": id = try reader.readInt64()
                case "Name": name = try reader.readString()
                case "Price": price = try reader.decodeIfPresent(Decimal.self)
                case "Tags": tags = try reader.decode([String].self)
                default: break
                }
            }
            self.id = try reader.required(id, "ID")
            self.name = try reader.required(name, "Name")
            self.price = price
            self.tags = tags
        }
    }

    @Test func decodesStructsSkippingUnknownMembers() throws {
        let text = #"""
            {"value": [
              {"ID": 1, "Name": "Pen", "Price": 1.10, "Tags": ["a"], "Extra": {"deep": [1, {"x": "y"}]}},
              {"Extra": null, "Name": "Caf\u00e9", "ID": 2, "Price": null}
            ], "@odata.nextLink": "next"}
            """#
        var next: String?
        let products = try JSONReader.read(text) { reader in
            var products: [Product] = []
            try reader.readObject { key, reader in
                switch key {
                case "value": products = try reader.readArray(of: Product.self)
                case "@odata.nextLink": next = try reader.readString()
                default: break
                }
            }
            return products
        }
        #expect(
            products == [
                Product(id: 1, name: "Pen", price: Decimal(string: "1.1"), tags: ["a"]),
                Product(id: 2, name: "Café", price: nil, tags: []),
            ])
        #expect(next == "next")
    }

    @Test func escapedKeysAreMatchedByTheirCharacters() throws {
        let product = try Product(json: #"{"\u0049D": 7, "N\u0061me": "x"}"#)
        #expect(product.id == 7 && product.name == "x")
    }

    @Test func missingRequiredMemberIsKeyNotFound() throws {
        let error = #expect(throws: JSONError.self) { try [Product](json: #"[{"ID": 1, "Name": "a"}, {"ID": 2}]"#) }
        #expect(error?.code == .keyNotFound)
        #expect(error?.pathDescription == "[1]")
        #expect(error?.message == "required member 'Name' is missing")
    }

    @Test func typeMismatchNamesPathAndKinds() throws {
        let error = #expect(throws: JSONError.self) {
            try [Product](json: #"[{"ID": 1, "Name": "a"}, {"ID": "2", "Name": "b"}]"#)
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.pathDescription == "[1].ID")
        #expect(error?.message == "expected an integer, found a string")
        #expect(error?.offset == 32)
    }

    @Test func readerPrimitivesAndPeek() throws {
        try JSONReader.read(#"[null, true, "s", 1.5, {"k": [1]}, 255]"#) { reader in
            var kinds: [JSONKind] = []
            var index = 0
            try reader.readArray { reader in
                kinds.append(try reader.peekKind())
                switch index {
                case 0: #expect(try reader.readNil())
                case 1: #expect(try reader.readBool())
                case 2: #expect(try !reader.readNil() && reader.readString() == "s")
                case 3: #expect(try reader.readDouble() == 1.5)
                case 4: #expect(try reader.readValue() == ["k": [1]])
                default: #expect(try reader.readInteger(UInt8.self) == 255)
                }
                index += 1
            }
            #expect(kinds == [.null, .bool, .string, .number, .object, .number])
        }
        #expect(throws: JSONError.self) { try JSONReader.read("256") { try $0.readInteger(UInt8.self) } }
        #expect(throws: JSONError.self) { try JSONReader.read("-1") { try $0.readInteger(UInt64.self) } }
        #expect(try JSONReader.read("18446744073709551615") { try $0.readInteger(UInt64.self) } == .max)
        #expect(
            try JSONReader.read(#""2024-05-17T09:30:00.5Z""#) { try $0.readISO8601Date() }.timeIntervalSince1970
                == 1_715_938_200.5)
    }

    @Test func keyComparisons() throws {
        try JSONReader.read(#"{"exactly16bytes!": 1, "a": 2, "\u00e9": 3}"#) { reader in
            var matched: [String] = []
            try reader.readObject { key, reader in
                switch key {
                case "exactly16bytes": matched.append("wrong")
                case "exactly16bytes!": matched.append("long")
                case "a", "b": matched.append("short")
                case "é": matched.append("escaped")
                default: matched.append("none")
                }
                #expect(key == key.stringValue)
            }
            #expect(matched == ["long", "short", "escaped"])
        }
    }

    @Test func trailingDataAfterDecodingIsAnError() {
        let error = #expect(throws: JSONError.self) { try Int64(json: "1 2") }
        #expect(error?.code == .trailingData)
    }
}
