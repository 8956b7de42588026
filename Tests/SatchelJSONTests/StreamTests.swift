import Foundation
import Testing

@testable import SatchelJSON

@Suite struct StreamTests {
    static let v4 = #"""
        {"@odata.context": "$metadata#Products", "@odata.count": 3,
         "value": [{"ID": 1, "Name": "A \"quoted\" \u00e9\ud83d\ude00 é"}, {"ID": 2, "Name": "B", "Extra": [1, [2]]},
                   {"ID": 3, "Name": "C", "Price": -12.50e-1}],
         "@odata.nextLink": "Products?$skiptoken=3"}
        """#
    static let v2 = #"{"d": {"__count": "2", "results": [{"ID": 1}, {"ID": 2}], "__next": "more"}}"#

    /// Feeds `text` in chunks of the given sizes (cycled) and returns elements and envelope.
    static func stream(_ bytes: [UInt8], path: [String], chunkSizes: [Int]) throws -> ([JSONValue], JSONValue) {
        var parser = JSONArrayStreamParser(path: path)
        var elements: [JSONValue] = []
        var offset = 0
        var turn = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + max(1, chunkSizes[turn % chunkSizes.count]))
            elements += try parser.append(bytes[offset..<end])
            offset = end
            turn += 1
        }
        return (elements, try parser.finish())
    }

    @Test(arguments: [[1], [2], [3], [7], [64], [1 << 20], [1, 5, 2, 13]])
    func v4PageInAnyChunking(_ sizes: [Int]) throws {
        let bytes = Array(Self.v4.utf8)
        let whole = try JSONValue(parsing: bytes)
        let (elements, envelope) = try Self.stream(bytes, path: ["value"], chunkSizes: sizes)
        #expect(elements == whole["value"]?.arrayValue)
        #expect(envelope["@odata.nextLink"]?.stringValue == "Products?$skiptoken=3")
        #expect(envelope["@odata.count"]?.int64Value == 3)
        #expect(envelope["value"] == [])
        #expect(envelope.objectValue?.keys == ["@odata.context", "@odata.count", "value", "@odata.nextLink"])
    }

    @Test func v2AndTopLevelArrays() throws {
        let (v2, envelope) = try Self.stream(Array(Self.v2.utf8), path: ["d", "results"], chunkSizes: [3])
        #expect(v2 == [["ID": 1], ["ID": 2]])
        #expect(envelope["d"]?["__next"] == "more")
        #expect(envelope["d"]?["__count"] == "2")
        let (top, topEnvelope) = try Self.stream(
            Array(#" [1, "two", {"three": 3}, [4], null, true] "#.utf8), path: [], chunkSizes: [2])
        #expect(top == [1, "two", ["three": 3], [4], nil, true])
        #expect(topEnvelope == [])
    }

    @Test func decodesTypedElements() throws {
        var parser = JSONArrayStreamParser(path: ["value"])
        let bytes = Array(Self.v4.utf8)
        var ids: [Int64] = []
        for chunk in stride(from: 0, to: bytes.count, by: 10).map({ bytes[$0..<min(bytes.count, $0 + 10)] }) {
            ids += try parser.append(chunk, as: PullDecodingTests.Product.self).map(\.id)
        }
        try parser.finish()
        #expect(ids == [1, 2, 3])
    }

    @Test(arguments: [
        (#"{"value": [1, 2}"#, JSONError.Code.unexpectedCharacter), (#"{"value": [1, 2]"#, .unexpectedEnd),
        (#"{"other": []}"#, .keyNotFound), (#"{"value": {}}"#, .typeMismatch),
        (#"{"value": [1,]}"#, .unexpectedCharacter),
        (#"{"value": [01]}"#, .invalidNumber), (#"{"value": []} x"#, .trailingData),
        (#"{"value": ["\ud800"]}"#, .invalidUnicode),
        (#"{"a": tru, "value": []}"#, .unexpectedCharacter), (#"{"value": [1 2]}"#, .unexpectedCharacter),
        ("[1]", .typeMismatch),
        (#"{"value": [{"a":1}x]}"#, .unexpectedCharacter),
    ])
    func invalidDocumentsFail(_ text: String, _ code: JSONError.Code) {
        for size in [1, 4, 100] {
            let error = #expect(throws: JSONError.self) {
                _ = try Self.stream(Array(text.utf8), path: ["value"], chunkSizes: [size])
            }
            #expect(error?.code == code, "chunk size \(size): \(String(describing: error))")
        }
    }

    @Test func errorsHaveStreamOffsetAndPath() throws {
        let text = #"{"value": [{"ID": 1}, {"ID": 1.}]}"#
        let error = #expect(throws: JSONError.self) {
            _ = try Self.stream(Array(text.utf8), path: ["value"], chunkSizes: [5])
        }
        #expect(error?.offset == 31)
        #expect(error?.pathDescription == "value[1].ID")
    }

    @Test func memoryStaysBoundedByTheLargestElement() throws {
        var parser = JSONArrayStreamParser(path: ["value"], limits: JSONLimits(maxDocumentSize: 200))
        _ = try parser.append(Array(#"{"value": ["#.utf8))
        for i in 0..<10_000 {
            let values = try parser.append(Array(#"{"ID": \#(i), "Name": "element number \#(i)"},"#.utf8))
            #expect(values.count == 1)
        }
        _ = try parser.append(Array("1]}".utf8))
        try parser.finish()
        #expect(parser.elementCount == 10_001)
        // An element larger than the limit is refused rather than buffered.
        var small = JSONArrayStreamParser(path: [], limits: JSONLimits(maxDocumentSize: 16))
        let error = #expect(throws: JSONError.self) {
            _ = try small.append(Array(#"["a very long string that does not fit"]"#.utf8))
        }
        #expect(error?.code == .sizeLimitExceeded)
    }

    struct Chunks: AsyncSequence, Sendable {
        let bytes: [UInt8]
        let size: Int
        func makeAsyncIterator() -> AsyncStream<[UInt8]>.Iterator {
            let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
            for start in stride(from: 0, to: bytes.count, by: size) {
                continuation.yield(Array(bytes[start..<Swift.min(bytes.count, start + size)]))
            }
            continuation.finish()
            return stream.makeAsyncIterator()
        }
    }

    @Test func asyncStreamYieldsValuesAndEnvelope() async throws {
        let chunks = Chunks(bytes: Array(Self.v4.utf8), size: 9)
        let stream = JSONArrayStream(path: ["value"], chunks: chunks)
        var names: [String] = []
        for try await element in stream { names.append(element["Name"]?.stringValue ?? "") }
        #expect(names.count == 3 && names[1] == "B")
        #expect(stream.envelope?["@odata.nextLink"] == "Products?$skiptoken=3")

        let typed = JSONArrayStream(path: ["value"], chunks: chunks, as: PullDecodingTests.Product.self)
        var ids: [Int64] = []
        for try await product in typed { ids.append(product.id) }
        #expect(ids == [1, 2, 3])

        struct Item: Decodable, Sendable { var ID: Int }
        let codable = JSONArrayStream(path: ["value"], chunks: chunks, decoder: SatchelJSONDecoder(), as: Item.self)
        var codableIDs: [Int] = []
        for try await item in codable { codableIDs.append(item.ID) }
        #expect(codableIDs == [1, 2, 3])
    }
}
