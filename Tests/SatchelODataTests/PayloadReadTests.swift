import Foundation
import SatchelJSON
import Testing

@testable import SatchelOData

@Suite("Payload reading")
struct PayloadReadTests {
    static let v2Metadata = try! ODataMetadata.parse(data: try! fixture("v2-gateway-metadata.xml"))
    static let v4Metadata = try! ODataMetadata.parse(data: try! fixture("v4-metadata.xml"))

    @Test func v2PageTyped() throws {
        let reader = ODataPayloadReader(version: .v2, metadata: Self.v2Metadata)
        let page = try reader.page(from: try fixture("v2-students-page.json"), entitySet: "StudentSet")
        #expect(page.count == 3)
        #expect(page.nextLink?.hasSuffix("$skiptoken='0043'&sap-client=100") == true)
        #expect(page.entities.count == 2)
        let ada = try #require(page.entities.first)
        #expect(ada.type == "ZADMISSIONS_SRV.Student")
        #expect(ada.etag == "W/\"datetimeoffset'2026-01-05T10%3A00%3A00Z'\"")
        #expect(ada.editLink?.hasSuffix("StudentSet('0042')") == true)
        #expect(ada["LastName"] == .string("O'Neil"))
        #expect(ada["Gpa"] == .decimal(Decimal(string: "3.85")!))
        #expect(ada["ApplicationCount"] == .int(9_007_199_254_740_993))
        #expect(ada["Rank"] == .int(7) && ada["Score"] == .double(12.5) && ada["Active"] == .bool(true))
        #expect(ada["BirthDate"] == .dateTime(Date(timeIntervalSince1970: 1_199_145_600)))
        #expect(ada["ChangedAt"] == .dateTimeOffset(Date(timeIntervalSince1970: 1_767_607_200), offsetMinutes: 60))
        #expect(ada["VisitTime"] == .timeOfDay("PT13H20M00S"))
        #expect(ada["Guid"] == .guid(UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e")!))
        #expect(ada["Photo"] == .binary(Data([1, 2, 3])))
        guard case .complex(let address)? = ada["Address"] else {
            Issue.record("Address is not complex")
            return
        }
        #expect(address["City"] == .string("Oxford") && address.count == 3)
        #expect(ada.navigationLinks["School"]?.hasSuffix("StudentSet('0042')/School") == true)
        let visits = try #require(ada["Visits"]?.entitiesValue)
        #expect(visits.map { $0["VisitNo"] } == [.int(1), .int(2)])
        #expect(visits.last?["Note"] == .null)
        let grace = page.entities[1]
        #expect(grace["Score"] == .double(100) && grace["BirthDate"] == .null)
        #expect(grace["ChangedAt"]?.dateValue == Date(timeIntervalSince1970: -86400))
        #expect(grace.navigationLinks.count == 2)
    }

    @Test func v2PageUntyped() throws {
        let page = try ODataPayloadReader(version: .v2).page(from: try fixture("v2-students-page.json"))
        let ada = try #require(page.entities.first)
        #expect(ada["Gpa"] == .string("3.85"))
        #expect(ada["BirthDate"] == .dateTime(Date(timeIntervalSince1970: 1_199_145_600)))
        #expect(ada["Visits"]?.entitiesValue?.count == 2)
        #expect(ada.navigationLinks["School"] != nil)
    }

    @Test func v4PageTyped() throws {
        let reader = ODataPayloadReader(version: .v4, metadata: Self.v4Metadata)
        let page = try reader.page(from: try fixture("v4-people-page.json"), entitySet: "People")
        #expect(page.count == 42 && page.nextLink == "People?$skiptoken=2")
        #expect(page.context == "https://svc.example.org/trippin/$metadata#People")
        let russell = try #require(page.entities.first)
        #expect(russell.etag == "W/\"08D1694BD49A0F11\"")
        #expect(russell["Emails"] == .collection([.string("Russell@example.com"), .string("Russell@contoso.com")]))
        #expect(russell["Gender"] == .enumMember("Male") && russell["Perks"] == .enumMember("Wifi,Lounge"))
        #expect(russell["Concurrency"] == .int(9_007_199_254_740_993))
        #expect(russell["Budget"] == .decimal(Decimal(string: "1234567890.123456789")!))
        #expect(russell["BirthDay"] == .date("1980-02-29") && russell["WakeUp"] == .timeOfDay("06:30:00.000"))
        #expect(
            russell["LastSeen"] == .dateTimeOffset(Date(timeIntervalSince1970: 1_767_603_600.25), offsetMinutes: 60))
        #expect(russell["Avatar"] == .binary(Data([0xFB, 0xFF, 0x01])))
        #expect(russell["Travelled"] == .duration("P12DT23H59M59.999999999999S"))
        #expect(russell["Age"] == .int(45) && russell["Delta"] == .int(-3) && russell["Rank"] == .int(3))
        #expect(russell["Height"] == .double(1.82))
        #expect(russell["Home"] == .geo(["type": "Point", "coordinates": [1, 2]]))
        guard case .collection(let addresses)? = russell["AddressInfo"], case .complex(let first)? = addresses.first
        else {
            Issue.record("AddressInfo is not a collection of complex values")
            return
        }
        #expect(first["Address"] == .string("187 Suffolk Ln."))
        if case .geo(let point)? = first["Coordinates"] {
            #expect(point["type"] == "Point")
        } else {
            Issue.record("no geo")
        }
        #expect(russell.mediaReadLink == nil && russell.annotations["Photo@odata.mediaReadLink"] != nil)
        #expect(russell.navigationLinks["Friends"] == "People('russellwhyte')/Friends")
        #expect(russell.annotations["@com.example.Messages"] != nil)
        let trips = try #require(russell["Trips"]?.entitiesValue)
        #expect(trips.first?["TripId"] == .int(0))
        #expect(trips.first?["Tags"] == .collection([.string("Trip in US"), .string("business")]))
        #expect(russell["BestFriend"] == .null)
        let ellen = page.entities[1]
        #expect(ellen.type == "Satchel.Trippin.Employee" && ellen.id == "People('ellen')")
        #expect(ellen["Cost"] == .int(1_000_000), "derived type's own property typed")
        #expect(ellen["Budget"] == .decimal(12.5), "IEEE754Compatible string decimal")
        #expect(ellen.annotations["Trips@odata.count"] == 0)
    }

    @Test func deltaV4() throws {
        let page = try ODataPayloadReader(version: .v4, metadata: Self.v4Metadata)
            .page(from: try fixture("v4-delta.json"), entitySet: "People")
        #expect(page.deltaLink == "People?$deltatoken=8015")
        #expect(page.entities.map(\.isRemoved) == [false, true, true, true])
        #expect(page.entities[1].id == "People('scottketchum')" && page.entities[1].removed?.reason == "deleted")
        #expect(page.entities[2].id == "People('keithpinckney')" && page.entities[2].removed?.reason == "changed")
        #expect(page.entities[3].removed?.reason == "deleted")
        #expect(
            page.linkChanges == [
                ODataLinkChange(
                    source: "People('russellwhyte')", relationship: "Friends", target: "People('ronaldmundy')",
                    removed: true)
            ])
        // A link without its target is a malformed delta, said where it is.
        let broken =
            #"{"value": [{"@odata.context": "$metadata#People/$link", "source": "People('a')", "relationship": "Friends"}]}"#
        let error = #expect(throws: ODataError.self) {
            try ODataPayloadReader(version: .v4).page(from: Data(broken.utf8), entitySet: "People")
        }
        #expect(error?.location == "value[0]", "\(String(describing: error))")
    }

    @Test func deltaV2() throws {
        let page = try ODataPayloadReader(version: .v2, metadata: Self.v2Metadata)
            .page(from: try fixture("v2-delta.json"), entitySet: "StudentSet")
        #expect(page.deltaLink?.contains("!deltatoken=") == true)
        #expect(page.entities.map(\.isRemoved) == [false, true])
        #expect(page.entities[1]["StudentId"] == .string("0007"))
    }

    @Test(arguments: [
        (ODataVersion.v2, #"{"d": {"StudentId": 5}}"#, "d.StudentId"),
        (.v2, #"{"d": {"Gpa": "three"}}"#, "d.Gpa"),
        (.v2, #"{"d": {"BirthDate": "yesterday"}}"#, "d.BirthDate"),
        (.v2, #"{"d": {"Address": 7}}"#, "d.Address"),
        (.v2, #"{"value": []}"#, "d"),
        (.v4, #"{"d": {"results": []}}"#, "value"),
        (.v4, #"{"value": [1]}"#, "value[0]"),
    ])
    func wrongShapesAreInvalidPayload(version: ODataVersion, json: String, location: String) throws {
        let reader = ODataPayloadReader(version: version, metadata: version == .v2 ? Self.v2Metadata : Self.v4Metadata)
        let error = try #require(throws: ODataError.self) {
            if json.contains("value") || json.contains("results") {
                _ = try reader.page(from: Data(json.utf8), entitySet: version == .v2 ? "StudentSet" : "People")
            } else {
                _ = try reader.entity(from: Data(json.utf8), entitySet: "StudentSet")
            }
        }
        #expect(error.code == .invalidPayload)
        #expect(error.location == location)
    }

    @Test(arguments: ["", "{", "[1,]", "<html/>"])
    func malformedJSON(text: String) throws {
        let error = try #require(throws: ODataError.self) {
            try ODataPayloadReader(version: .v4).page(from: Data(text.utf8))
        }
        #expect(error.code == .invalidPayload && error.underlying != nil)
    }

    @Test func streamingMatchesWholePage() async throws {
        let data = try fixture("v4-people-page.json")
        let reader = ODataPayloadReader(version: .v4, metadata: Self.v4Metadata)
        let chunks = ChunkedBytes(data: data, size: 7)
        let stream = ODataEntityStream(chunks: chunks, reader: reader, entitySet: "People")
        var streamed: [ODataEntity] = []
        for try await entity in stream { streamed.append(entity) }
        #expect(streamed == (try reader.page(from: data, entitySet: "People")).entities)
        #expect(try stream.page?.nextLink == "People?$skiptoken=2" && stream.page?.count == 42)
    }

    @Test(arguments: [
        ("/Date(0)/", 0.0, nil as Int?), ("/Date(1767607200000+0060)/", 1_767_607_200, 60),
        ("/Date(-1000-0120)/", -1, -120),
    ])
    func v2Dates(text: String, seconds: Double, offset: Int?) throws {
        let parsed = try #require(ODataDateFormat.parseV2JSONDate(text))
        #expect(parsed.date.timeIntervalSince1970 == seconds && parsed.offsetMinutes == offset)
    }

    @Test(arguments: [
        ("2026-01-05T10:00:00Z", 1_767_607_200.0), ("2026-01-05T11:00:00+01:00", 1_767_607_200),
        ("2026-01-05T10:00:00.5", 1_767_607_200.5), ("2026-01-05T10:00", 1_767_607_200), ("2026-01-05", 1_767_571_200),
        ("2026-01-05T04:30:00-0530", 1_767_607_200),
    ])
    func isoDates(text: String, seconds: Double) throws {
        #expect(try #require(ODataDateFormat.parseISO8601(text)).timeIntervalSince1970 == seconds)
    }

    @Test(arguments: ["", "2026-13-01", "2026-01-05T", "2026-01-05T10:00:00.", "2026-01-05X", "/Date(abc)/"])
    func badDates(text: String) {
        #expect(ODataDateFormat.parseISO8601(text) == nil)
        #expect(ODataDateFormat.parseV2JSONDate(text) == nil)
    }
}

/// Bytes handed out in chunks of a fixed size, as a network would.
struct ChunkedBytes: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let data: Data
    let size: Int
    func makeAsyncIterator() -> Iterator { Iterator(bytes: Array(data), size: size) }
    struct Iterator: AsyncIteratorProtocol {
        let bytes: [UInt8]
        let size: Int
        var offset = 0
        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard offset < bytes.count else { return nil }
            defer { offset += size }
            return bytes[offset..<Swift.min(offset + size, bytes.count)]
        }
    }
}
