import Foundation
import Testing

@testable import SatchelJSON

@Suite struct WriterTests {
    @Test func writesCompactJSONWithEscapes() throws {
        var writer = JSONWriter()
        try writer.writeObject { writer in
            writer.write(key: "name", "a \"quoted\" \\ line\nnext\u{1}\t/é😀")
            writer.write(key: "int", Int64.min)
            try writer.write(key: "double", 0.1)
            writer.write(key: "decimal", Decimal(string: "12.50")!)
            writer.writeNull(key: "none")
            writer.write(key: "list") { writer in
                writer.writeArray { writer in
                    writer.write(true)
                    writer.write(1)
                    writer.writeArray { _ in }
                    writer.writeObject { _ in }
                }
            }
        }
        #expect(
            writer.string == #"{"name":"a \"quoted\" \\ line\nnext\u0001\t/é😀","int":-9223372036854775808,"#
                + #""double":0.1,"decimal":12.5,"none":null,"list":[true,1,[],{}]}"#)
        let parsed = try JSONValue(parsing: writer.bytes)
        #expect(parsed["name"]?.stringValue == "a \"quoted\" \\ line\nnext\u{1}\t/é😀")
        #expect(try JSONSerialization.jsonObject(with: Data(writer.bytes)) is [String: Any])
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteDoublesAreRejected(_ value: Double) {
        var writer = JSONWriter()
        let error = #expect(throws: JSONError.self) { try writer.write(value) }
        #expect(error?.code == .invalidValue)
        #expect(JSONNumber(value) == nil)
    }

    @Test func valueRoundTrips() throws {
        let value: JSONValue = [
            "z": [1, 2.5, "x", nil, true], "a": ["nested": "\u{0}\u{1F}"], "n": .number(JSONNumber(text: "1e400")!),
        ]
        let text = value.serializedString()
        #expect(text == #"{"z":[1,2.5,"x",null,true],"a":{"nested":"\u0000\u001f"},"n":1e400}"#)
        #expect(try JSONValue(parsing: text) == value)
        #expect(value.description == text)
    }
}
