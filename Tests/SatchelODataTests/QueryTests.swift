import Foundation
import Testing

@testable import SatchelOData

@Suite("Query builder")
struct QueryTests {
    static let instant = Date(timeIntervalSince1970: 1_767_225_600.5)  // 2026-01-01T00:00:00.500Z
    static let uuid = UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!

    @Test(arguments: [
        (ODataLiteral.string("O'Neil"), "'O''Neil'", "'O''Neil'"),
        (.int(42), "42", "42"),
        (.int64(9_007_199_254_740_993), "9007199254740993L", "9007199254740993"),
        (.decimal(Decimal(string: "12.50")!), "12.5M", "12.5"),
        (.double(2.5), "2.5d", "2.5"),
        (.double(3), "3.0d", "3.0"),
        (.double(.infinity), "INF", "INF"),
        (.single(1.5), "1.5f", "1.5"),
        (.bool(true), "true", "true"),
        (.null, "null", "null"),
        (.guid(uuid), "guid'0f8fad5b-d9cb-469f-a165-70867728950e'", "0f8fad5b-d9cb-469f-a165-70867728950e"),
        (.dateTime(instant), "datetime'2026-01-01T00:00:00.500'", "2026-01-01T00:00:00.500Z"),
        (.dateTimeOffset(instant), "datetimeoffset'2026-01-01T00:00:00.500Z'", "2026-01-01T00:00:00.500Z"),
        (.date(year: 2026, month: 1, day: 31), "datetime'2026-01-31T00:00:00'", "2026-01-31"),
        (.timeOfDay(hour: 13, minute: 20, second: 5), "time'PT13H20M05S'", "13:20:05"),
        (.duration("PT1H30M"), "time'PT1H30M'", "duration'PT1H30M'"),
        (.binary(Data([0xFB, 0xFF, 0x01])), "X'FBFF01'", "binary'-_8B'"),
        (.enumMember(type: "Trip.Gender", member: "Female"), "'Female'", "Trip.Gender'Female'"),
        (.raw("foo(1)"), "foo(1)", "foo(1)"),
    ])
    func literals(literal: ODataLiteral, v2: String, v4: String) {
        #expect(literal.text(for: .v2) == v2)
        #expect(literal.text(for: .v4) == v4)
    }

    @Test func keys() {
        #expect(ODataKey.single("0042").predicate(for: .v2) == "('0042')")
        #expect(ODataKey(integerLiteral: 7).predicate(for: .v4) == "(7)")
        let composite = ODataKey(["StudentId": "0042", "VisitNo": .int(3)])
        #expect(composite.predicate(for: .v2) == "(StudentId='0042',VisitNo=3)")
        #expect(ODataKey(["Id": .int64(5)]).predicate(for: .v2) == "(Id=5L)")
        #expect(ODataKey.single(.guid(Self.uuid)).predicate(for: .v4) == "(0f8fad5b-d9cb-469f-a165-70867728950e)")
        #expect(
            ODataPath("StudentSet").key("a/b c").navigate("Visits").text(for: .v2) == "StudentSet('a%2Fb%20c')/Visits")
        #expect(ODataPath("People").key(["UserName": "o'neil"]).text(for: .v4) == "People(UserName='o''neil')")
    }

    static let expressions: [(String, ODataExpression, String?, String?)] = [
        ("eq string", .property("Name") == "Milk", "Name eq 'Milk'", "Name eq 'Milk'"),
        ("ne", .property("Rank") != 3, "Rank ne 3", "Rank ne 3"),
        (
            "and/or precedence", .property("A") > 1 && .property("B") < 2 || .property("C") >= 3,
            "A gt 1 and B lt 2 or C ge 3", "A gt 1 and B lt 2 or C ge 3"
        ),
        (
            "or inside and", .property("A") <= 1 && (.property("B") == 2 || .property("C") == 3),
            "A le 1 and (B eq 2 or C eq 3)", "A le 1 and (B eq 2 or C eq 3)"
        ),
        ("not", !(.property("A") == 1), "not (A eq 1)", "not (A eq 1)"),
        ("not function", !.startsWith(.property("Name"), "X"), "not startswith(Name,'X')", "not startswith(Name,'X')"),
        ("contains", .contains(.property("City"), "ox"), "substringof('ox',City)", "contains(City,'ox')"),
        ("endswith", .endsWith(.property("City"), "ford"), "endswith(City,'ford')", "endswith(City,'ford')"),
        (
            "arithmetic", (.property("Price") + 5) * 2 > 100 - .property("Discount") / 4,
            "(Price add 5) mul 2 gt 100 sub Discount div 4", "(Price add 5) mul 2 gt 100 sub Discount div 4"
        ),
        (
            "sub right assoc", .property("A") - (.property("B") - .property("C")) == 0, "A sub (B sub C) eq 0",
            "A sub (B sub C) eq 0"
        ),
        ("date functions", .year(.property("BirthDate")) == 2008, "year(BirthDate) eq 2008", "year(BirthDate) eq 2008"),
        (
            "v4 date", .date(.property("LastSeen")) == .literal(.date(year: 2026, month: 2, day: 1)), nil,
            "date(LastSeen) eq 2026-02-01"
        ),
        (
            "any", .any("Trips", "t", .property("t/Budget") > 1000), nil, "Trips/any(t:t/Budget gt 1000)"
        ),
        ("any empty", .any("Friends"), nil, "Friends/any()"),
        ("all", .all("Emails", "e", .endsWith(.property("e"), ".edu")), nil, "Emails/all(e:endswith(e,'.edu'))"),
        (
            "has", .property("Perks").has(.enumMember(type: "Trip.Features", member: "Wifi")), nil,
            "Perks has Trip.Features'Wifi'"
        ),
        (
            "in", .property("StateCode").isIn(["MS", "AL"]), "StateCode eq 'MS' or StateCode eq 'AL'",
            "StateCode in ('MS','AL')"
        ),
        (
            "in under and", .property("A") == 1 && .property("S").isIn(["x", "y"]), "A eq 1 and (S eq 'x' or S eq 'y')",
            "A eq 1 and S in ('x','y')"
        ),
        ("not in", !(.property("S").isIn(["x"])), "not (S eq 'x')", "not (S in ('x'))"),
        (
            "datetime literal", .property("BirthDate") < .literal(.dateTime(Date(timeIntervalSince1970: 0))),
            "BirthDate lt datetime'1970-01-01T00:00:00'", "BirthDate lt 1970-01-01T00:00:00Z"
        ),
        ("tolower", .toLower(.property("Name")) == "x", "tolower(Name) eq 'x'", "tolower(Name) eq 'x'"),
        ("negate", -.property("A") == 1, "-A eq 1", "-A eq 1"),
        ("raw", .raw("Foo eq 'bar'") && .property("X") == 1, "Foo eq 'bar' and X eq 1", "Foo eq 'bar' and X eq 1"),
    ]

    @Test(arguments: expressions)
    func filters(name: String, expression: ODataExpression, v2: String?, v4: String?) throws {
        if let v2 {
            #expect(try expression.text(for: .v2) == v2, "\(name)")
        } else {
            #expect(throws: ODataError.self, "\(name)") { try expression.text(for: .v2) }
        }
        #expect(try expression.text(for: .v4) == v4, "\(name)")
    }

    @Test func queryStringV2() throws {
        let query = ODataQuery()
            .filter(.property("StateCode") == "MS" && .startsWith(.property("LastName"), "O'N"))
            .select("StudentId", "LastName")
            .expand("School", ODataQuery().select("Name"))
            .expand("Visits")
            .orderBy("LastName").orderBy("FirstName", descending: true)
            .top(50).skip(100).count()
            .custom("search", "a&b=c+d")
        let text = try query.queryString(for: .v2)
        #expect(
            text
                == "$filter=StateCode%20eq%20'MS'%20and%20startswith(LastName,'O''N')"
                + "&$select=StudentId,LastName,School/Name&$expand=School,Visits"
                + "&$orderby=LastName,FirstName%20desc&$top=50&$skip=100&$inlinecount=allpages&search=a%26b%3Dc%2Bd")
    }

    @Test func queryStringV4NestedExpand() throws {
        let query = ODataQuery()
            .expand("Trips", ODataQuery().select("Name").filter(.property("Budget") > 10).top(2).expand("PlanItems"))
            .count().search("blue OR green")
        let text = try query.queryString(for: .v4)
        #expect(
            text
                == "$expand=Trips($filter%3DBudget%20gt%2010;$select%3DName;$expand%3DPlanItems;$top%3D2)"
                + "&$count=true&$search=blue%20OR%20green")
    }

    @Test func v2RejectsNestedOptionsItCannotExpress() {
        let query = ODataQuery().expand("Visits", ODataQuery().top(1))
        #expect(throws: ODataError.self) { try query.queryString(for: .v2) }
        #expect(throws: ODataError.self) { try ODataQuery().filter(.any("Visits")).queryString(for: .v2) }
    }

    @Test func rawAndNonASCII() throws {
        let raw = ODataQuery(raw: "?$filter=Name%20eq%20'x'&$top=1")
        let rawText = try raw.queryString(for: .v2)
        #expect(rawText == "$filter=Name%20eq%20'x'&$top=1")
        let combined = ODataQuery(raw: "sap-ds-debug=true").filter(.property("City") == "Zürich #1")
        let combinedText = try combined.queryString(for: .v4)
        #expect(combinedText == "$filter=City%20eq%20'Z%C3%BCrich%20%231'&sap-ds-debug=true")
        #expect(ODataQuery().isEmpty && !ODataQuery().top(1).isEmpty)
    }

    @Test("runtime values compare directly, typed as their Swift type says")
    func runtimeValues() throws {
        let id = 42
        let big = Int64(5_000_000_000)
        let name = "O'Neil"
        let price = Decimal(string: "15.70")!
        let active = true
        let filter: ODataExpression =
            .property("ProductID") == id && .property("Stock") > big && .property("Name") != name
            && .property("Price") <= price && .property("Active") == active
        #expect(
            try filter.text(for: .v2)
                == "ProductID eq 42 and Stock gt 5000000000L and Name ne 'O''Neil' and Price le 15.7M and Active eq true"
        )
        #expect(try (.property("ID") == .value(id)).text(for: .v4) == "ID eq 42")
        // Literals still mean what they did: a string literal is a string value.
        #expect(try (.property("Name") == "Ada").text(for: .v4) == "Name eq 'Ada'")
        #expect(try (.property("A") == .property("B")).text(for: .v4) == "A eq B")
    }

    @Test("a value prints as its JSON text, not as its enum case")
    func valueDescription() {
        #expect(ODataValue.decimal(Decimal(string: "15.70")!).description == "15.7")
        #expect(ODataValue.string("Ada").description == "\"Ada\"")
        #expect(ODataValue.null.description == "null")
        #expect(ODataValue.collection([1, 2]).description == "[1,2]")
        #expect("\(ODataValue.int(1570))" == "1570")
    }
}
