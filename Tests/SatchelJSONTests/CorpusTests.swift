import Foundation
import Testing

@testable import SatchelJSON

/// Documents checked against Foundation's `JSONSerialization`: both must accept or reject each one,
/// and agree on the values of the valid ones.
@Suite struct CorpusTests {
    static let valid: [String] = [
        "{}", "[]", "0", "-0", "1", "-1", "0.5", "-0.5e-3", "1E10", "1e+2", "123456789", "9223372036854775807",
        "-9223372036854775808", "3.141592653589793", "1.7976931348623157e308", "true", "false", "null", #""""#,
        #""a""#, #""\u00e9\u4e2d\ud83d\ude00""#, #""\"\\\/\b\f\n\r\t""#, "\"é日本😀\"",
        #"[1, "two", 3.0, true, null, [], {}]"#,
        #"{"a": {"b": {"c": [1, [2, [3, [4]]]]}}}"#, " \t\n\r [ 1 , 2 ] \n", #"{"": ""}"#, #"{"\u0041": 1}"#,
        #"{"@odata.context": "$metadata#Products", "value": [{"ID": 1, "Name": "A"}], "@odata.nextLink": "p?$skip=1"}"#,
        #"{"d": {"results": [{"__metadata": {"uri": "x"}, "Price": "1.50"}], "__next": "y"}}"#,
        "[" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "]",
        #"[1e-5, 1.5E+3, 0.000001, 100000000000000000000, 12345678901234567890]"#, #"{"a": 1, "b": [true, false]}"#,
        #"["\u0000", "\u001f", "\u007f", "\u2028\u2029"]"#, "[\"\u{7f}\"]", #"[-1.0e-10, 0e0, 0E-0, -0.0]"#,
        #"{"nested": {"array": [{"k": "v"}, {"k": null}]}}"#, "[\"tab\\tinside\"]",
    ]

    /// Satchel follows RFC 8259; these are the inputs where Foundation (6.3, Linux) is more lenient.
    static let deliberateDifferences: [String] = [
        "[1,]",  // Foundation accepts a trailing comma in arrays
        #"{"a": 1,}"#,  // and in objects
    ]

    static let invalid: [String] = [
        "", " ", "[", "]", "{", "}", "[1", "[1,", "{\"a\"", "{\"a\":", "{\"a\":1", "[1 2]", "{\"a\" 1}", "{1: 2}",
        "{'a': 1}", "['a']", "[01]", "[-]", "[1.]", "[.5]", "[+1]", "[1e]", "[0x1]", "[NaN]", "[Infinity]",
        "[-Infinity]",
        "[tru]", "[nul]", "[True]", "[NULL]", "\"abc", #""\x""#, #""\u12""#, #""\ud800""#, #""\udc00""#,
        #""\ud800\ud800""#, "\"a\u{1}b\"", "\"line\nbreak\"", "[1] 2", "{} {}", "[1]]", "[[1]", "{\"a\": 1}}",
        "/* c */ 1",
        "[1,,2]", "[,1]", "{,}", "{\"a\":1,,\"b\":2}", "{\"a\"::1}", "[\"a\" \"b\"]", "\u{1}", "[1e+]", "-", "--1",
    ]

    static let invalidBytes: [[UInt8]] = [
        [0x22, 0xC3, 0x28, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x5B, 0x22, 0xC3, 0x22, 0x5D],
    ]

    private static func foundation(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    @Test(arguments: valid)
    func validDocumentsAgreeWithFoundation(_ text: String) throws {
        let bytes = Array(text.utf8)
        let value = try JSONValue(parsing: bytes)
        let object = try #require(Self.foundation(bytes), "Foundation rejected \(text)")
        #expect(sameValue(value, object), "values differ for \(text)")
        // Serializing and parsing again gives the same value.
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test(arguments: invalid)
    func invalidDocumentsAreRejectedByBoth(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(parseError(bytes) != nil, "Satchel accepted \(text)")
        #expect(Self.foundation(bytes) == nil, "Foundation accepted \(text)")
    }

    @Test(arguments: invalidBytes)
    func invalidUTF8IsRejectedByBoth(_ bytes: [UInt8]) {
        #expect(parseError(bytes)?.code == .invalidUTF8)
        #expect(Self.foundation(bytes) == nil)
    }

    @Test(arguments: deliberateDifferences)
    func deliberateDifferencesFromFoundation(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(parseError(bytes) != nil)
        #expect(Self.foundation(bytes) != nil, "Foundation now rejects \(text): move it to `invalid`")
    }
}
