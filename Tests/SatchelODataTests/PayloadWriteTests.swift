import Foundation
import SatchelJSON
import Testing

@testable import SatchelOData

@Suite("Payload writing")
struct PayloadWriteTests {
    static func student() -> ODataEntity {
        var student = ODataEntity(type: "ZADMISSIONS_SRV.Student")
        student["FirstName"] = "Ada"
        student["Gpa"] = .decimal(Decimal(string: "3.85")!)
        student["ApplicationCount"] = .int(9_007_199_254_740_993)
        student["Rank"] = 7
        student["BirthDate"] = .dateTime(Date(timeIntervalSince1970: 1_199_145_600))
        student["Guid"] = .guid(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!)
        student["Photo"] = .binary(Data([0xFB, 0xFF, 0x01]))
        student["Address"] = .complex(["City": "Oxford"])
        student["Visits"] = .entities([ODataEntity(properties: ["VisitNo": 1, "Note": "tour"])])
        student.bind("School", to: "SchoolSet('S1')")
        return student
    }

    @Test func v2DeepInsert() throws {
        let writer = ODataPayloadWriter(
            version: .v2, serviceURL: URL(string: "https://gw.example.edu/sap/opu/odata/sap/ZADM_SRV"))
        let json = try writer.json(for: Self.student())
        #expect(json.objectValue?.keys.first == "__metadata" && json.objectValue?.keys.last == "School")
        #expect(json["Gpa"] == .string("3.85") && json["ApplicationCount"] == .string("9007199254740993"))
        #expect(json["BirthDate"]?.stringValue == "/Date(1199145600000)/")
        #expect(json["Photo"]?.stringValue == "+/8B")
        #expect(json["Visits"]?[0]?["VisitNo"] == 1)
        #expect(json["School"]?["__metadata"]?["uri"]?.stringValue?.hasSuffix("ZADM_SRV/SchoolSet('S1')") == true)
        #expect(json["__metadata"]?["type"] == "ZADMISSIONS_SRV.Student")
    }

    @Test("V2 numbers as the V2 JSON format's table says: Int64, Decimal, Double, Single as strings, Int32 a number")
    func v2NumbersByDeclaredType() throws {
        let metadata = try ODataMetadata.parse(data: try fixture("v2-gateway-metadata.xml"))
        var student = ODataEntity(type: "ZADMISSIONS_SRV.Student")
        student["ApplicationCount"] = .int(5)  // Edm.Int64, small
        student["Rank"] = .int(7)  // Edm.Int32
        student["Score"] = .double(2.5)  // Edm.Double
        student["Gpa"] = .int(3)  // Edm.Decimal given as a whole number
        student["Active"] = .bool(true)
        let typed = try ODataPayloadWriter(version: .v2, metadata: metadata).json(for: student)
        #expect(typed["ApplicationCount"] == .string("5"))
        #expect(typed["Rank"] == 7)
        #expect(typed["Score"] == .string("2.5"))
        #expect(typed["Gpa"] == .string("3"))
        #expect(typed["Active"] == true)
        // The entity set's type stands in when the entity names none.
        var untypedEntity = student
        untypedEntity.type = nil
        let bySet = try ODataPayloadWriter(version: .v2, metadata: metadata)
            .json(for: untypedEntity, type: metadata.entityType(ofSet: "StudentSet"))
        #expect(bySet["ApplicationCount"] == .string("5") && bySet["Score"] == .string("2.5"))
        // Without metadata: a V2 Double is still a string; a small integer a number.
        let plain = try ODataPayloadWriter(version: .v2).json(for: untypedEntity)
        #expect(plain["Score"] == .string("2.5") && plain["ApplicationCount"] == 5)
        // V4 keeps numbers.
        let v4 = try ODataPayloadWriter(version: .v4, metadata: metadata).json(for: student)
        #expect(v4["Score"]?.numberValue?.text == "2.5" && v4["ApplicationCount"] == 5)
        // And what was written reads back as the declared types.
        let back = try ODataPayloadReader(version: .v2, metadata: metadata)
            .entity(from: Data(#"{"d":\#(typed.description)}"#.utf8), entitySet: "StudentSet")
        #expect(back["Score"] == .double(2.5) && back["ApplicationCount"] == .int(5) && back["Rank"] == .int(7))
    }

    @Test func v4DeepInsert() throws {
        var student = Self.student()
        student.bind("Friends", to: "People('a')")
        student.bind("Friends", to: "People('b')")
        let json = try ODataPayloadWriter(version: .v4).json(for: student)
        #expect(json["@odata.type"] == "#ZADMISSIONS_SRV.Student")
        #expect(json["Gpa"]?.numberValue?.text == "3.85")
        #expect(json["ApplicationCount"]?.int64Value == 9_007_199_254_740_993)
        #expect(json["BirthDate"] == "2008-01-01T00:00:00Z")
        #expect(json["Photo"] == "-_8B")
        #expect(json["School@odata.bind"] == "SchoolSet('S1')")
        #expect(json["Friends@odata.bind"] == ["People('a')", "People('b')"])
        #expect(json["Visits"]?[0]?["Note"] == "tour")
    }

    @Test(arguments: [
        (ODataValue.double(.nan), JSONValue.string("NaN")), (.double(-.infinity), "-INF"), (.int(-5), -5),
        (.dateTimeOffset(Date(timeIntervalSince1970: 0), offsetMinutes: 60), "1970-01-01T01:00:00+01:00"),
        (.enumMember("Female"), "Female"), (.collection([1, 2]), JSONValue.array([1, 2])), (.null, JSONValue.null),
    ])
    func v4Values(value: ODataValue, expected: JSONValue) throws {
        #expect(try ODataPayloadWriter(version: .v4).json(for: value) == expected)
    }

    @Test func roundTrip() throws {
        let metadata = try ODataMetadata.parse(data: try fixture("v2-gateway-metadata.xml"))
        var original = ODataEntity(type: "ZADMISSIONS_SRV.Student")
        original["StudentId"] = "0042"
        original["Gpa"] = .decimal(Decimal(string: "3.85")!)
        original["ApplicationCount"] = .int(9_007_199_254_740_993)
        original["BirthDate"] = .dateTime(Date(timeIntervalSince1970: 1_199_145_600))
        let body = try ODataPayloadWriter(version: .v2).data(for: original)
        let wrapped = Data(#"{"d":"#.utf8) + body + Data("}".utf8)
        let read = try ODataPayloadReader(version: .v2, metadata: metadata).entity(
            from: wrapped, entitySet: "StudentSet")
        #expect(read.properties == original.properties)
        #expect(read.type == original.type)
    }

    @Test("a DateTimeOffset goes back with the offset it was read with, in both versions")
    func dateTimeOffsets() throws {
        let instant = Date(timeIntervalSince1970: 1_772_400_600)  // 2026-03-01T21:30:00Z
        #expect(ODataDateFormat.iso8601(instant, offsetMinutes: 120) == "2026-03-01T23:30:00+02:00")
        #expect(ODataDateFormat.iso8601(instant, offsetMinutes: -330) == "2026-03-01T16:00:00-05:30")
        #expect(ODataDateFormat.iso8601(instant, offsetMinutes: 0) == "2026-03-01T21:30:00Z")
        #expect(ODataDateFormat.parseISO8601("2026-03-01T23:30:00+02:00") == instant)
        #expect(ODataDateFormat.v2JSONDate(instant, offsetMinutes: 60) == "/Date(1772400600000+0060)/")
        #expect(ODataDateFormat.v2JSONDate(instant, offsetMinutes: -90) == "/Date(1772400600000-0090)/")
        #expect(ODataDateFormat.parseV2JSONDate("/Date(1772400600000-0090)/")?.offsetMinutes == -90)
        // Read, then written again: the same text.
        for (version, body) in [
            (ODataVersion.v4, #"{"When": "2026-03-01T23:30:00+02:00"}"#),
            (.v2, #"{"d": {"When": "/Date(1772400600000+0120)/"}}"#),
        ] {
            let read = try ODataPayloadReader(version: version).entity(from: Data(body.utf8), type: nil)
            var value = try #require(read["When"])
            if case .string(let text) = value {
                // Untyped (no metadata): as a service would type it.
                let date = try #require(
                    ODataDateFormat.parseISO8601(text) ?? ODataDateFormat.parseV2JSONDate(text)?.date)
                value = .dateTimeOffset(date, offsetMinutes: 120)
            }
            let written = try ODataPayloadWriter(version: version).json(for: value)
            #expect(
                written.stringValue == (version == .v4 ? "2026-03-01T23:30:00+02:00" : "/Date(1772400600000+0120)/"))
        }
    }

    @Test("a binding of a collection-valued navigation is a list even with one entity, in both versions")
    func collectionBindings() throws {
        var entity = ODataEntity()
        entity.bind("Friends", to: "People('a')")
        entity.bind("BestFriend", to: "People('b')")
        entity.collectionBindings = ["Friends"]
        let v4 = try ODataPayloadWriter(version: .v4).json(for: entity)
        #expect(v4["Friends@odata.bind"] == .array([.string("People('a')")]))
        #expect(v4["BestFriend@odata.bind"] == .string("People('b')"))
        let v2 = try ODataPayloadWriter(version: .v2, serviceURL: URL(string: "http://h/s/")).json(for: entity)
        #expect(v2["Friends"]?.arrayValue?.count == 1)
        #expect(v2["BestFriend"]?["__metadata"]?["uri"] == .string("http://h/s/People('b')"))
        // No path at all: an empty list, not a crash.
        var none = ODataEntity()
        none.bindings["Friends"] = []
        #expect(try ODataPayloadWriter(version: .v2).json(for: none)["Friends"] == .array([]))
    }
}
