import Foundation
import SatchelJSON

enum SatchelJSONExamples {
    /// GettingStarted.md: a type that reads itself from a `JSONReader`.
    struct Product: JSONDecodable, Sendable {
        var id: Int64
        var name: String
        var price: Decimal?

        init(from reader: inout JSONReader) throws {
            var id: Int64?, name: String?, price: Decimal?
            try reader.readObject { key, reader in
                switch key {
                case "ID": id = try reader.readInt64()
                case "Name": name = try reader.readString()
                case "Price": price = try reader.decodeIfPresent(Decimal.self)
                default: break  // other members are skipped
                }
            }
            self.id = try reader.required(id, "ID")
            self.name = try reader.required(name, "Name")
            self.price = price
        }
    }

    /// GettingStarted.md: a `Decodable` type for `SatchelJSONDecoder`.
    struct Note: Decodable, Sendable {
        var title: String
        var createdAt: Date
    }

    /// GettingStarted.md: parse a whole document into values.
    static func parseValue(data: Data) throws -> (names: [String], next: String?) {
        let page = try JSONValue(parsing: data)
        let next = page["@odata.nextLink"]?.stringValue
        var names: [String] = []
        for product in page["value"]?.arrayValue ?? [] {
            let price = try product["Price"]?.numberValue?.decimal()  // exactly 19.99, not a binary fraction
            names.append("\(product["Name"]?.stringValue ?? "") \(price ?? 0)")
        }
        return (names, next)
    }

    /// GettingStarted.md: decode straight into your own types.
    static func pullDecode(data: Data) throws -> [Product] {
        let products: [Product] = try JSONReader.read(data) { reader in
            var found: [Product] = []
            try reader.readObject { key, reader in
                if key == "value" { found = try reader.readArray(of: Product.self) }
            }
            return found
        }
        let pen = try Product(json: #"{"ID": 1, "Name": "Pen", "Price": 1.50}"#)
        return products + [pen]
    }

    /// GettingStarted.md: decode `Decodable` types.
    static func decodable(data: Data) throws -> [Note] {
        var decoder = SatchelJSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.keyDecodingStrategy = .convertFromSnakeCase  // "created_at" is createdAt
        return try decoder.decode([Note].self, from: data)
    }

    /// GettingStarted.md: handle a document that cannot be read.
    static func handleErrors(data: Data) -> JSONValue? {
        do {
            return try JSONValue(parsing: data)
        } catch let error as JSONError where error.code == .unexpectedEnd {
            print("cut off at byte \(error.offset ?? 0)")
            return nil
        } catch {
            print(error)  // JSON error at byte 8 (line 1, column 9): expected ',' or '}' after object member, …
            return nil
        }
    }

    /// GettingStarted.md: read the elements of a page while it arrives.
    static func stream(chunks: [[UInt8]]) throws -> (products: [Product], next: String?) {
        var parser = JSONArrayStreamParser(path: ["value"])  // ["d", "results"] for OData V2
        var products: [Product] = []
        for chunk in chunks {
            products += try parser.append(chunk, as: Product.self)
        }
        let envelope = try parser.finish()  // the document without the array's elements
        let next = envelope["@odata.nextLink"]?.stringValue
        return (products, next)
    }

    /// GettingStarted.md: the same as an `AsyncSequence` over chunks.
    static func asyncStream(chunks: AsyncStream<[UInt8]>) async throws -> (products: [Product], next: String?) {
        let stream = JSONArrayStream(path: ["value"], chunks: chunks, as: Product.self)
        var products: [Product] = []
        for try await product in stream {
            products.append(product)
        }
        let next = stream.envelope?["@odata.nextLink"]?.stringValue
        return (products, next)
    }

    /// GettingStarted.md: write a request body.
    static func write() throws -> [UInt8] {
        var writer = JSONWriter()
        try writer.writeObject { writer in
            writer.write(key: "Name", "Pen")
            writer.write(key: "Price", Decimal(string: "1.50")!)
            try writer.write(key: "Weight", 0.25)  // throws for NaN and infinities
            writer.write(key: "Tags") { writer in
                writer.writeArray {
                    $0.write("a"); $0.write("b")
                }
            }
        }
        return writer.bytes  // {"Name":"Pen","Price":1.5,"Weight":0.25,"Tags":["a","b"]}
    }

    /// GettingStarted.md: write a value built from literals.
    static func writeValue() -> String {
        let value: JSONValue = ["Name": "Pen", "Tags": ["a", "b"], "Discontinued": false, "Note": nil]
        return value.serializedString()  // {"Name":"Pen","Tags":["a","b"],"Discontinued":false,"Note":null}
    }
}
