import Foundation
import Testing

@testable import SatchelJSON

@Suite struct ReaderTests {
    @Test func tokenizerProducesTokensInOrder() throws {
        let text = #" {"a": [1, -2.5e3, "x\n", true, false, null], "b": {}} "#
        var tokens: [String] = []
        try Array(text.utf8).withUnsafeBytes { buffer in
            var tokenizer = try JSONTokenizer(unsafeBytes: buffer)
            while let token = try tokenizer.next() {
                switch token {
                case .beginObject: tokens.append("{")
                case .endObject: tokens.append("}")
                case .beginArray: tokens.append("[")
                case .endArray: tokens.append("]")
                case .key(let span): tokens.append("k:" + tokenizer.string(span))
                case .string(let span): tokens.append("s:" + tokenizer.string(span))
                case .number(let span): tokens.append("n:" + tokenizer.number(span).text)
                case .bool(let bool): tokens.append("\(bool)")
                case .null: tokens.append("null")
                }
            }
        }
        #expect(
            tokens == ["{", "k:a", "[", "n:1", "n:-2.5e3", "s:x\n", "true", "false", "null", "]", "k:b", "{", "}", "}"])
    }

    @Test(arguments: ["[1,]", "{\"a\" 1}", "[1 2]", "{\"a\":1,}", "[", "{", "]", "[1]x", "{1:2}", ""])
    func tokenizerRejects(_ text: String) {
        #expect(throws: JSONError.self) {
            try Array(text.utf8).withUnsafeBytes { buffer in
                var tokenizer = try JSONTokenizer(unsafeBytes: buffer)
                while try tokenizer.next() != nil {}
            }
        }
    }

    @Test(arguments: [
        ("0", Int64(0)), ("-0", 0), ("9223372036854775807", .max), ("-9223372036854775808", .min),
        ("123456789012345678", 123_456_789_012_345_678), ("1.0", 1), ("1e3", 1000), ("1.5e1", 15), ("-2E+2", -200),
        ("12300e-2", 123), ("0.0e10", 0),
    ])
    func int64Exact(_ text: String, _ expected: Int64) throws {
        #expect(try JSONReader.read(text) { try $0.readInt64() } == expected)
        #expect(JSONNumber(text: text)?.int64Value == expected)
    }

    @Test(arguments: ["9223372036854775808", "-9223372036854775809", "1.5", "1e19", "99999999999999999999", "1e-1"])
    func int64OutOfRange(_ text: String) {
        let error = #expect(throws: JSONError.self) { try JSONReader.read(text) { try $0.readInt64() } }
        #expect(error?.code == .numberOutOfRange)
        #expect(JSONNumber(text: text)?.int64Value == nil)
    }

    @Test(arguments: [
        ("0.1", "0.1"), ("-0", "0"), ("123.4500", "123.45"), ("1e-5", "0.00001"),
        ("12345678901234567890.123456789", "12345678901234567890.123456789"),
        ("1E2", "100"), ("-3.75", "-3.75"), ("0.000000000000000000000000000001", "0.000000000000000000000000000001"),
    ])
    func decimalExact(_ text: String, _ expected: String) throws {
        let decimal = try JSONReader.read(text) { try $0.readDecimal() }
        #expect(decimal == Decimal(string: expected, locale: Locale(identifier: "en_US_POSIX"))!)
    }

    @Test func decimalOfPointOneIsExact() throws {
        let decimal = try JSONValue(parsing: "0.1").decimalValue
        #expect(decimal == Decimal(sign: .plus, exponent: -1, significand: 1))
        #expect(decimal != Decimal(0.1 as Double) || Decimal(0.1 as Double).description == "0.1")
    }

    @Test func decimalTooPreciseIsAnError() {
        #expect(JSONNumber(text: "1.234567890123456789012345678901234567891")?.decimalValue == nil)
        #expect(JSONNumber(text: "1e300")?.decimalValue == nil)
    }

    @Test(arguments: [
        ("0.1", 0.1), ("-0.0", -0.0), ("1e308", 1e308), ("2.2250738585072014e-308", 2.2250738585072014e-308),
        ("5e-324", Double.leastNonzeroMagnitude), ("123456789012345678901234567890", 1.2345678901234568e29),
        ("0.30000000000000004", 0.30000000000000004),
        ("9007199254740993", 9_007_199_254_740_992), ("1e-400", 0),
    ])
    func doubles(_ text: String, _ expected: Double) throws {
        let value = try JSONReader.read(text) { try $0.readDouble() }
        #expect(value == expected)
        #expect(value.sign == expected.sign)
    }

    @Test func hugeDoubleIsOutOfRange() {
        #expect(JSONNumber(text: "1e400")?.doubleValue == nil)
        #expect((try? JSONValue(parsing: "1e400")) != nil, "the lexeme itself is valid JSON")
    }

    @Test(arguments: ["01", "-", "1.", ".5", "+1", "1e", "1e+", "-01", "0x10", "1.e3", "Infinity", "NaN", "--1"])
    func invalidNumbers(_ text: String) {
        #expect(parseError(text) != nil)
    }

    @Test func numberKeepsItsLexeme() throws {
        let value = try JSONValue(parsing: "[1.10, 1e2, -0, 12345678901234567890123]")
        #expect(value[0]?.numberValue?.text == "1.10")
        #expect(value[1]?.numberValue?.text == "1e2")
        #expect(value[2]?.numberValue?.text == "-0")
        #expect(value[3]?.numberValue?.text == "12345678901234567890123")
        #expect(value[3]?.int64Value == nil)
    }

    @Test(arguments: [
        (#""plain""#, "plain"), (#""a\"b\\c\/d""#, "a\"b\\c/d"), (#""\b\f\n\r\t""#, "\u{8}\u{C}\n\r\t"),
        (#""\u0041\u00e9\u4e2d""#, "Aé中"), (#""\ud83d\ude00""#, "😀"), (#""\uD834\uDD1E""#, "𝄞"),
        ("\"héllo wörld\"", "héllo wörld"),
        ("\"日本語\"", "日本語"), (#""\u0000""#, "\u{0}"),
        (
            #""long string with no escapes at all, longer than 16""#,
            "long string with no escapes at all, longer than 16"
        ),
    ])
    func strings(_ text: String, _ expected: String) throws {
        #expect(try JSONReader.read(text) { try $0.readString() } == expected)
    }

    @Test(arguments: [
        (#""\ud800""#, JSONError.Code.invalidUnicode), (#""\udc00""#, .invalidUnicode),
        (#""\ud800\u0041""#, .invalidUnicode),
        (#""\ud800x""#, .invalidUnicode), (#""\x""#, .invalidEscape), (#""\u12G4""#, .invalidEscape),
        ("\"a\u{1}b\"", .controlCharacterInString),
        ("\"tab\there\"", .controlCharacterInString), (#""abc"#, .unexpectedEnd), (#""\u12"#, .unexpectedEnd),
    ])
    func invalidStrings(_ text: String, _ code: JSONError.Code) {
        #expect(parseError(text)?.code == code)
    }

    @Test(
        arguments: [
            [0x22, 0xC3, 0x28, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xC0, 0xAF, 0x22],
            [0x22, 0xFF, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0x80, 0x22],
            [0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22],
            [0x22, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xC3, 0x22],
        ] as [[UInt8]])
    func invalidUTF8(_ bytes: [UInt8]) {
        #expect(parseError(bytes)?.code == .invalidUTF8)
    }

    @Test func validMultibyteUTF8EdgeCases() throws {
        let text = "\"\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}\u{E000}\""
        #expect(try JSONValue(parsing: text) == .string("\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}\u{E000}"))
    }

    @Test func errorReportsOffsetLineColumnAndMessage() throws {
        let text = "{\n  \"a\": 1,\n  \"b\": 2 x\n}"
        let error = try #require(parseError(text))
        #expect(error.code == .unexpectedCharacter)
        #expect(error.offset == 21)
        #expect(error.line == 3)
        #expect(error.column == 10)
        #expect(error.message == "expected ',' or '}' after object member, found 'x'")
        #expect(error.description.hasPrefix("JSON error at byte 21 (line 3, column 10): expected ',' or '}'"))
        #expect(error.excerpt?.contains("\"b\": 2 x") == true)
    }

    @Test func errorCarriesThePath() throws {
        let text = #"{"value": [{"Price": 1}, {"Price": 1.x}]}"#
        let error = try #require(parseError(text))
        #expect(error.pathDescription == "value[1].Price")
        #expect(error.description.contains("in value[1].Price:"))
    }

    @Test(arguments: [
        ("", JSONError.Code.unexpectedEnd), ("  ", .unexpectedEnd), ("[1, 2", .unexpectedEnd), ("nul", .unexpectedEnd),
        ("nulL", .unexpectedCharacter), ("tru", .unexpectedEnd), ("[1] [2]", .trailingData), ("1 2", .trailingData),
        ("{\"a\":1,}", .unexpectedCharacter), ("[1,]", .unexpectedCharacter), ("{'a':1}", .unexpectedCharacter),
        ("[01]", .invalidNumber), ("\u{1}", .unexpectedCharacter),
    ])
    func syntaxErrors(_ text: String, _ code: JSONError.Code) {
        #expect(parseError(text)?.code == code)
    }

    @Test func byteOrderMarkIsSkipped() throws {
        #expect(try JSONValue(parsing: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == [1])
    }

    @Test(arguments: [
        ("maxDepth", "[[[[1]]]]", JSONError.Code.depthLimitExceeded),
        ("maxDocumentSize", "[1,2,3,4,5,6,7,8,9,10]", .sizeLimitExceeded),
        ("maxStringLength", #"["abcdefghijk"]"#, .stringLengthLimitExceeded),
        ("maxStringLength", #"{"abcdefghijk":1}"#, .stringLengthLimitExceeded),
        ("maxNumberLength", "[12345678901]", .numberLengthLimitExceeded),
        ("maxObjectMembers", #"{"a":1,"b":2,"c":3,"d":4,"e":5}"#, .memberCountLimitExceeded),
        ("maxArrayElements", "[1,2,3,4,5]", .elementCountLimitExceeded),
        ("maxStringLength", #"["abc\ndefghijk"]"#, .stringLengthLimitExceeded),
    ])
    func limits(_ limit: String, _ text: String, _ code: JSONError.Code) {
        var limits = JSONLimits()
        switch limit {
        case "maxDepth": limits.maxDepth = 3
        case "maxDocumentSize": limits.maxDocumentSize = 10
        case "maxStringLength": limits.maxStringLength = 10
        case "maxNumberLength": limits.maxNumberLength = 10
        case "maxObjectMembers": limits.maxObjectMembers = 4
        default: limits.maxArrayElements = 4
        }
        #expect(parseError(text, limits: limits)?.code == code)
        #expect(parseError(text) == nil, "within default limits")
        // The tokenizer enforces the same limits.
        #expect(throws: JSONError.self) {
            try Array(text.utf8).withUnsafeBytes { buffer in
                var tokenizer = try JSONTokenizer(unsafeBytes: buffer, limits: limits)
                while try tokenizer.next() != nil {}
            }
        }
    }

    @Test func deepNestingWithinLimitParses() throws {
        let depth = 512
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(parseError(text) == nil)
        #expect(parseError("[" + text + "]")?.code == .depthLimitExceeded)
    }

    @Test func valueAccessors() throws {
        let value = try JSONValue(
            parsing: #"{"d": {"results": [{"Name": "A", "Price": "1.5", "Qty": 3}], "__next": null}}"#)
        #expect(value["d"]?["results"]?[0]?["Name"]?.stringValue == "A")
        #expect(value["d"]?["results"]?[0]?["Qty"]?.int64Value == 3)
        #expect(value["d"]?["__next"]?.isNull == true)
        #expect(value["d"]?["missing"] == nil)
        #expect(value["d"]?["results"]?[5] == nil)
        #expect(value["d"]?.objectValue?.keys == ["results", "__next"])
    }

    @Test func objectKeepsOrderAndLastDuplicateWins() throws {
        let value = try JSONValue(parsing: #"{"z": 1, "a": 2, "z": 3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "z"])
        #expect(value["z"] == 3)
        var large = JSONObject()
        for i in 0..<40 { large.append(key: "k\(i)", value: .number(JSONNumber(i))) }
        large["k7"] = "seven"
        #expect(large["k7"] == "seven")
        #expect(large["k39"] == 39)
        large["k7"] = nil
        #expect(large["k7"] == nil && large.count == 39)
    }
}

@Suite struct DoubleParsingTests {
    /// Every path of the Double conversion must agree with the standard library's correctly rounded parser.
    @Test func matchesStandardLibraryOnRandomLexemes() throws {
        var random = SeededRandom(seed: 99)
        for _ in 0..<20_000 {
            let digits = 1 + Int(random.next() % 19)
            var text = random.next() % 2 == 0 ? "-" : ""
            text += String(1 + random.next() % 9)
            for _ in 1..<digits { text += String(random.next() % 10) }
            let point = Int(random.next() % UInt64(digits + 1))
            if point > 0 && point < digits {
                text.insert(".", at: text.index(text.endIndex, offsetBy: -(digits - point)))
            }
            if random.next() % 3 == 0 { text += "e" + String(Int(random.next() % 50) - 25) }
            let expected = try #require(Double(text))
            #expect(JSONNumber(text: text)?.doubleValue == expected, "\(text)")
        }
        // Ties and near-ties around 2^53.
        for text in [
            "9007199254740993", "9007199254740995", "18014398509481985", "1.2345678901234567", "0.30000000000000004441",
        ] {
            #expect(JSONNumber(text: text)?.doubleValue == Double(text))
        }
    }
}
