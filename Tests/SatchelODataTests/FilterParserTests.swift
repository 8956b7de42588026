import Foundation
import SatchelOData
import Testing

/// `$filter` text → ``ODataExpression``: what parses renders back to the same text, and what does not parse says
/// where.
@Suite("Filter parser")
struct FilterParserTests {
    static let v4RoundTrips = [
        "Price gt 10 and startswith(Name,'Ch')",
        "Name eq 'O''Neil' or not (Stock le 0)",
        "(Price add 5) mul 2 ge 100.5",
        "Price sub 1 sub 2 eq 7",
        "Price sub (1 sub 2) eq 7",
        "contains(tolower(Name),'tea') and length(Name) lt 20",
        "Items/any(i:i/Quantity gt 2 and i/Price lt 10)",
        "Items/all(i:i/Quantity gt 0)",
        "Items/any()",
        "Status in ('Active','Backordered')",
        "Created ge 2026-01-31T10:00:00Z and Day eq 2026-02-01",
        "Id eq a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        "Id eq 1a2b3c4d-9c0b-4ef8-bb6d-6bb9bd380a11",
        "Color eq Satchel.Shop.Color'Red'",
        "year(Created) eq 2026 and month(Created) eq 1",
        "Price eq -5 and -Price lt 0",
        "Address/City eq 'Oxford'",
        "Value eq null",
        "Flag eq true and Other ne false",
        "substring(Name,1,2) eq 'ha' and indexof(Name,'x') eq -1",
        "Big eq 9223372036854775807",
        "-Income lt 0 and Value eq -INF",
    ]

    @Test("V4 text round-trips", arguments: v4RoundTrips)
    func v4RoundTrip(text: String) throws {
        let parsed = try ODataExpression.parse(text, version: .v4)
        #expect(try parsed.text(for: .v4) == text)
    }

    static let v2RoundTrips = [
        "Id eq 12L and Price ge 1.5M",
        "Weight lt 2.5d or Ratio gt 0.5f",
        "Created lt datetime'2026-01-31T10:00:00' and Changed gt datetimeoffset'2026-01-31T10:00:00Z'",
        "Id eq guid'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
        "Data eq X'0AFF'",
        "Data eq X'0A0B'",
        "substringof('Ox',City) and endswith(Name,'n')",
        "Duration eq time'PT1H30M'",
    ]

    @Test("V2 text round-trips", arguments: v2RoundTrips)
    func v2RoundTrip(text: String) throws {
        let parsed = try ODataExpression.parse(text, version: .v2)
        #expect(try parsed.text(for: .v2) == text)
    }

    @Test(
        "V4-only syntax in a V2 filter is refused where it stands (the filter fuzz target found has accepted)",
        arguments: [
            ("Flags has Ns.Color'Red'", "has is an OData V4 operator", 6),
            ("Tags/any(t:t eq 'a')", "any lambdas are OData V4", 9),
            ("year(now()) eq 2026", "now() is an OData V4 function", 10),
        ])
    func v4OnlyInV2(_ text: String, message: String, offset: Int) throws {
        let error = #expect(throws: ODataError.self) { try ODataExpression.parse(text, version: .v2) }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.location == "offset \(offset)", "\(String(describing: error))")
        #expect(try ODataExpression.parse(text, version: .v4).text(for: .v4) == text)
    }

    @Test("numbers are written so that they read back as the same text: a whole decimal keeps its point in V4")
    func numbersRoundTrip() throws {
        for (text, v4, v2) in [
            ("P gt 9e6", "P gt 9000000.0", "P gt 9000000.0d"), ("P gt 50.0", "P gt 50.0", "P gt 50M"),
            ("P gt 2.50", "P gt 2.5", "P gt 2.5M"), ("P gt 50", "P gt 50", "P gt 50"),
        ] {
            let written = try ODataExpression.parse(text, version: .v4).text(for: .v4)
            #expect(written == v4, "\(text)")
            #expect(try ODataExpression.parse(written, version: .v4).text(for: .v4) == written, "\(text)")
            #expect(try ODataExpression.parse(text, version: .v4).text(for: .v2) == v2, "\(text)")
        }
        // The largest and smallest decimals, written out in full, read back.
        for text in ["P gt 11e100M", "P gt 99999999999999999999999999999999999999e127M", "P gt 1e-127M"] {
            let written = try ODataExpression.parse(text, version: .v2).text(for: .v2)
            #expect(try ODataExpression.parse(written, version: .v2).text(for: .v2) == written, "\(text)")
        }
        #expect(ODataLiteral.decimal(50).text(for: .v4) == "50.0")
        #expect(ODataLiteral.decimal(-3).text(for: .v2) == "-3M")
    }

    @Test("a negated number is written so that its minus does not join the number; unary operators nest bare")
    func unaryOperators() throws {
        for (text, written) in [
            ("--0", "- 0"), ("-(0)", "- 0"), ("-(5) eq P", "- 5 eq P"), ("-(INF)", "- INF"),
            ("-(2020-01-01) eq P", "- 2020-01-01 eq P"), ("-P", "-P"), ("-(P add 1)", "-(P add 1)"),
            ("not (not A)", "not not A"), ("-(not A)", "-not A"), ("not (A and B)", "not (A and B)"),
            ("not\nA", "not A"), ("(not)", "(not)"), ("not", "(not)"), ("A and not", "A and (not)"),
            ("(not) eq 1", "(not) eq 1"), ("-(not) eq 1", "-(not) eq 1"), ("A gt 1 in (true)", "A gt 1 in (true)"),
            ("X in (1) in (2)", "X in (1) in (2)"), ("(A eq 1) in (true)", "(A eq 1) in (true)"),
        ] {
            let once = try ODataExpression.parse(text, version: .v4).text(for: .v4)
            #expect(once == written, "\(text)")
            #expect(try ODataExpression.parse(once, version: .v4).text(for: .v4) == once, "\(text)")
        }
        #expect(try ODataExpression.parse("-0", version: .v4).text(for: .v4) == "0")
        // 65 nested `in`s read without parentheses, and are written without them.
        let chain = "X" + String(repeating: " in (1)", count: 65)
        #expect(try ODataExpression.parse(chain, version: .v4).text(for: .v4) == chain)
        // V2 writes `in` as an or-chain repeating its operand: an `in` over another would double per level.
        let error = #expect(throws: ODataError.self) {
            try ODataExpression.parse("X in (1,2) in (true,false)", version: .v2)
        }
        #expect(error?.message.contains("in over another in") == true, "\(String(describing: error))")
        #expect(error?.location == "offset 11", "\(String(describing: error))")
        // As deep as the reader allows, written, it reads again.
        let deep = String(repeating: "not ", count: 60) + "A"
        #expect(
            try ODataExpression.parse(ODataExpression.parse(deep, version: .v2).text(for: .v2), version: .v2)
                .text(for: .v2) == deep)
    }

    @Test("a string literal holds a quote that carries a combining mark", arguments: [ODataVersion.v2, .v4])
    func quoteWithCombiningMark(version: ODataVersion) throws {
        // "'\u{301}" is one Character: a Character-based escaper leaves its quote, and the server reads the rest
        // as syntax.
        let hostile = "x'\u{301} or Name ne 'y"
        let text = try ODataExpression.binary(.eq, .property("Name"), .literal(.string(hostile))).text(for: version)
        guard
            case .binary(.eq, .property("Name"), .literal(.string(let value))) = try ODataExpression.parse(
                text, version: version)
        else {
            Issue.record("\(text.debugDescription) reads as another expression")
            return
        }
        #expect(Array(value.unicodeScalars) == Array(hostile.unicodeScalars))
    }

    @Test("enum members are names or numbers; quotes in durations and V2 enum strings are doubled")
    func quotedBodies() throws {
        for text in ["C eq Ns.Color'Red'", "C has Ns.Color'Red,Blue'", "C eq Ns.Color'2'"] {
            #expect(try ODataExpression.parse(text, version: .v4).text(for: .v4) == text)
        }
        let error = #expect(throws: ODataError.self) {
            try ODataExpression.parse("C eq Ns.Color'Red''Blue'", version: .v4)
        }
        #expect(
            error?.message.contains("bad member \"Red'Blue\" of enum Ns.Color") == true, "\(String(describing: error))")
        #expect(error?.location != nil)
        #expect(ODataLiteral.duration("P'T").text(for: .v4) == "duration'P''T'")
        #expect(ODataLiteral.enumMember(type: "Ns.C", member: "O'Neil").text(for: .v2) == "'O''Neil'")
    }

    @Test("V2 binary'…' is hex, V4 binary'…' is base64url")
    func binaryLiterals() throws {
        guard
            case .binary(_, _, .literal(.binary(let v2))) = try ODataExpression.parse("D eq binary'0A0B'", version: .v2)
        else { throw ODataError(.invalidArgument, "not a binary literal") }
        #expect(v2 == Data([0x0A, 0x0B]))
        guard
            case .binary(_, _, .literal(.binary(let v4))) = try ODataExpression.parse("D eq binary'Cgs'", version: .v4)
        else { throw ODataError(.invalidArgument, "not a binary literal") }
        #expect(v4 == Data([0x0A, 0x0B]))
    }

    @Test("V2 substringof becomes contains with its arguments swapped")
    func substringOf() throws {
        let parsed = try ODataExpression.parse("substringof('Ox',City)", version: .v2)
        #expect(try parsed.text(for: .v4) == "contains(City,'Ox')")
    }

    @Test("literals get their types")
    func literalTypes() throws {
        func literal(_ text: String, _ version: ODataVersion = .v4) throws -> ODataLiteral? {
            if case .binary(_, _, .literal(let value)) = try ODataExpression.parse("X eq \(text)", version: version) {
                return value
            }
            return nil
        }
        #expect(try literal("12") == .int(12))
        #expect(try literal("3000000000") == .int64(3_000_000_000))
        #expect(try literal("1.5") == .decimal(Decimal(string: "1.5")!))
        #expect(try literal("1.5E3") == .double(1500))
        #expect(try literal("12L", .v2) == .int64(12))
        #expect(try literal("2026-02-01") == .date(year: 2026, month: 2, day: 1))
        #expect(try literal("10:30:00") == .timeOfDay(hour: 10, minute: 30, second: 0))
        #expect(try literal("-INF") == .double(-.infinity))
        #expect(try literal("'it''s'") == .string("it's"))
    }

    static let malformed: [(String, String)] = [
        ("Price gt", "expected a value"),
        ("Price gt 10 and", "expected a value"),
        ("Name eq 'open", "unterminated string"),
        ("(Price gt 10", "expected ')'"),
        ("frobnicate(Name)", "unknown function frobnicate"),
        ("startswith(Name)", "startswith takes 2…2 arguments"),
        ("Price gt 10 10", "unexpected text"),
        ("Price gt 99999999999999999999", "integer out of range"),
        ("Day eq 2026-13-01", "bad date"),
        ("Items/any(i i/Q gt 1)", "expected 'variable:'"),
        ("Status in 'a'", "expected '(' after in"),
        ("Id eq datetime'yesterday'", "bad datetime literal"),
    ]

    @Test("malformed filters are invalidArgument errors that say where", arguments: malformed)
    func malformedFilters(text: String, message: String) {
        do {
            let parsed = try ODataExpression.parse(text, version: .v4)
            Issue.record("parsed: \((try? parsed.text(for: .v4)) ?? "?")")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.location?.hasPrefix("offset ") == true)
        }
    }

    @Test("deep nesting and huge input are refused, not a crash")
    func hostileInput() {
        let deep = String(repeating: "(", count: 10_000) + "A eq 1" + String(repeating: ")", count: 10_000)
        #expect(throws: ODataError.self) { try ODataExpression.parse(deep, version: .v4) }
        let nots = String(repeating: "not ", count: 10_000) + "A"
        #expect(throws: ODataError.self) { try ODataExpression.parse(nots, version: .v4) }
        let long = (0..<20_000).map { "A eq \($0)" }.joined(separator: " or ")
        #expect(throws: ODataError.self) { try ODataExpression.parse(long, version: .v4) }
        let chain = (0..<3_000).map { "A eq \($0)" }.joined(separator: " or ")
        #expect((try? ODataExpression.parse(chain, version: .v4)) != nil)
    }
}

@Suite("Key predicates read back")
struct KeyParsingTests {
    @Test func quotedCommasNamedPartsAndV2Literals() throws {
        #expect(try ODataKey(parsing: "3", version: .v4) == .single(.int(3)))
        #expect(try ODataKey(parsing: "'a,b=c'", version: .v4) == .single(.string("a,b=c")))
        #expect(try ODataKey(parsing: "'it''s'", version: .v4) == .single(.string("it's")))
        #expect(
            try ODataKey(parsing: "OrderID=1,Note='x,y'", version: .v4)
                == ODataKey(parts: [("OrderID", .int(1)), ("Note", .string("x,y"))]))
        let v2 = try ODataKey(parsing: "Day=datetime'2026-11-26T00:00:00'", version: .v2)
        #expect(v2.parts.first?.name == "Day")
        #expect(throws: ODataError.self) { try ODataKey(parsing: "", version: .v4) }
        #expect(throws: ODataError.self) { try ODataKey(parsing: "Name eq 'x'", version: .v4) }
    }

    @Test("a key is split by scalars: a doubled quote carrying a combining mark stays inside its string")
    func quoteWithCombiningMark() throws {
        let value = "a'\u{301},b"
        let key = ODataKey(parts: [("Name", .string(value)), ("Id", .int(1))])
        let predicate = key.predicate(for: .v4)
        let read = try ODataKey(parsing: String(predicate.dropFirst().dropLast()), version: .v4)
        #expect(read.parts.map(\.name) == ["Name", "Id"])
        guard case .string(let readValue)? = read.parts.first?.value else {
            Issue.record("not a string: \(read)")
            return
        }
        #expect(Array(readValue.unicodeScalars) == Array(value.unicodeScalars))
    }
}

@Suite("$orderby lists")
struct OrderByListTests {
    @Test func blankItemsAreSkipped() {
        let orders = ODataQuery().orderBy(list: "Price desc, , ID ,").orderBy
        #expect(orders.map(\.expression) == ["Price", "ID"])
        #expect(orders.map(\.descending) == [true, false])
    }
}
