import Foundation
import Testing

@testable import SatchelJSON

/// `append(_:decoding:into:)` reads elements before their end is known: a chunk may end inside any token of an
/// element, and the result must be what reading the whole document gives, with the same errors.
@Suite struct SpeculativeStreamTests {
    /// Every kind of token, with escapes, multi-byte characters, exponents and nesting, and whitespace between.
    static let page = #"""
        {"@odata.context":"$metadata#Products","value":[
          {"ID":1,"Name":"A \"q\" \u00e9\ud83d\ude00 é 日本","Price":-12.50e-1,"Tags":["a","b"],"On":true,
           "Off":false,"None":null,"Deep":{"x":[1,{"y":[]}],"z":{}}},
          {"ID":22,"Name":"tab\tline\nback\\slash","Price":0,"Tags":[]} ,
          {"ID":333,"Name":"","Price":1E+2,"Tags":["\/"]}
        ],"@odata.nextLink":"Products?$skiptoken=3","@odata.count":3}
        """#

    /// Feeds `bytes` split at `cuts` and returns what `decode` made of the elements, and the envelope.
    static func read<T>(
        _ bytes: [UInt8], cuts: [Int], path: [String] = ["value"], _ decode: (inout JSONReader) throws -> T
    ) throws -> ([T], JSONValue) {
        var parser = JSONArrayStreamParser(path: path)
        var elements: [T] = []
        var start = 0
        for end in cuts + [bytes.count] where end >= start {
            try parser.append(bytes[start..<end], decoding: decode, into: &elements)
            start = end
        }
        return (elements, try parser.finish())
    }

    @Test func everySplitPointGivesTheWholeDocumentsElements() throws {
        let bytes = Array(Self.page.utf8)
        let whole = try JSONValue(parsing: bytes)
        for cut in 0...bytes.count {
            let (values, envelope) = try Self.read(bytes, cuts: [cut]) { try $0.readValue() }
            #expect(values == whole["value"]?.arrayValue, "cut at \(cut)")
            #expect(envelope["@odata.nextLink"] == "Products?$skiptoken=3", "cut at \(cut)")
            let (ids, _) = try Self.read(bytes, cuts: [cut]) { try PullDecodingTests.Product(from: &$0).id }
            #expect(ids == [1, 22, 333], "cut at \(cut)")
        }
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func smallChunksGiveTheWholeDocumentsElements(_ size: Int) throws {
        let bytes = Array(Self.page.utf8)
        let cuts = Array(stride(from: size, to: bytes.count, by: size))
        var calls = 0
        let (values, envelope) = try Self.read(bytes, cuts: cuts) { reader -> JSONValue in
            calls += 1
            return try reader.readValue()
        }
        #expect(values == (try JSONValue(parsing: bytes))["value"]?.arrayValue)
        #expect(envelope["@odata.count"]?.int64Value == 3)
        // An element cut off is read again once complete, but handed out once.
        #expect(values.count == 3 && calls >= 3)
    }

    /// A number at the end of a chunk may go on in the next: it is not taken until a `,` or `]` follows it.
    @Test func scalarsCutAtTheEndOfAChunkWaitForTheirEnd() throws {
        let bytes = Array(#"[1, 23, 456, -7.5e1, true, null, "x"]"#.utf8)
        for cut in 0...bytes.count {
            let (values, _) = try Self.read(bytes, cuts: [cut], path: []) { try $0.readValue() }
            #expect(values == (try JSONValue(parsing: bytes)).arrayValue, "cut at \(cut)")
        }
    }

    @Test(arguments: [
        #"{"value": [{"ID": 1}, {"ID": 1.}]}"#, #"{"value": [{"ID": 1}, {"ID": "x"}]}"#,
        #"{"value": [1, 2}"#, #"{"value": [{"a":1}x]}"#, #"{"value": [1 2]}"#, #"{"value": [01]}"#,
        #"{"value": ["\ud800"]}"#, #"{"value": [{"ID": 1}, {"ID": 2]}"#, #"{"value": [{"ID": 1} {"ID": 2}]}"#,
    ])
    func errorsAreTheScanningPathsErrors(_ text: String) throws {
        let bytes = Array(text.utf8)
        for size in [1, 4, 9, 100] {
            let cuts = Array(stride(from: size, to: bytes.count, by: size))
            let expected = #expect(throws: JSONError.self) {
                var parser = JSONArrayStreamParser(path: ["value"])
                var start = 0
                for end in cuts + [bytes.count] {
                    try parser.append(bytes[start..<end]) { _ = try PullDecodingTests.Product(from: &$0) }
                    start = end
                }
                try parser.finish()
            }
            let error = #expect(throws: JSONError.self) {
                _ = try Self.read(bytes, cuts: cuts) { try PullDecodingTests.Product(from: &$0) }
            }
            #expect(error?.code == expected?.code, "chunk size \(size): \(String(describing: error))")
            #expect(error?.offset == expected?.offset, "chunk size \(size)")
            #expect(error?.pathDescription == expected?.pathDescription, "chunk size \(size)")
        }
    }

    @Test func errorsNameTheElement() {
        let bytes = Array(#"{"value": [{"ID": 1, "Name": "a"}, {"ID": "one", "Name": "b"}]}"#.utf8)
        for cut in 0...bytes.count {
            let error = #expect(throws: JSONError.self) {
                _ = try Self.read(bytes, cuts: [cut]) { try PullDecodingTests.Product(from: &$0) }
            }
            #expect(error?.pathDescription == "value[1].ID", "cut at \(cut)")
        }
    }

    @Test func limitsStillApplyToEachElement() {
        var parser = JSONArrayStreamParser(path: [], limits: JSONLimits(maxDocumentSize: 16))
        var values: [JSONValue] = []
        let error = #expect(throws: JSONError.self) {
            let bytes = Array(#"["a very long string that does not fit", 1]"#.utf8)
            try parser.append(bytes, decoding: { try $0.readValue() }, into: &values)
        }
        #expect(error?.code == .sizeLimitExceeded)
        #expect(values.isEmpty)
        var few = JSONArrayStreamParser(path: [], limits: JSONLimits(maxArrayElements: 2))
        var ints: [Int] = []
        let countError = #expect(throws: JSONError.self) {
            try few.append(Array("[1, 2, 3]".utf8), decoding: { try $0.readInt() }, into: &ints)
        }
        #expect(countError?.code == .elementCountLimitExceeded)
        #expect(ints == [1, 2])
    }

    @Test func skippingElementsFindsTheEnvelopeInAnyChunking() throws {
        let bytes = Array(Self.page.utf8)
        for cut in 0...bytes.count {
            var parser = JSONArrayStreamParser(path: ["value"])
            try parser.skipElements(in: bytes[..<cut])
            #expect(cut == bytes.count || parser.envelope == nil)
            try parser.skipElements(in: bytes[cut...])
            #expect(parser.envelope?["@odata.nextLink"] == "Products?$skiptoken=3", "cut at \(cut)")
            #expect(parser.elementCount == 3)
        }
    }
}
