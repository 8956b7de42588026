import Foundation
import SatchelHTTP
import SatchelJSON
import Testing

@testable import SatchelOData

/// OData V2 Atom XML: read into the same values as V2 JSON, written so that it reads back the same, and refused
/// with a position when malformed. (Against a real Atom service: `AtomServiceTests`.)
@Suite("Atom payloads (OData V2)")
struct AtomPayloadTests {
    static let metadata = try! ODataMetadata.parse(data: try! fixture("v2-gateway-metadata.xml"))
    static let root = "https://gw.example.edu/sap/opu/odata/sap/ZADMISSIONS_SRV/"

    @Test("an Atom feed reads as the same entities as its JSON twin, with count, links, ETag and tombstones")
    func feedMatchesJSON() throws {
        let reader = ODataPayloadReader(version: .v2, metadata: Self.metadata)
        let atom = try reader.page(from: try fixture("v2-students-page.atom.xml"), entitySet: "StudentSet")
        let json = try reader.page(from: try fixture("v2-students-page.json"), entitySet: "StudentSet")
        #expect(atom.count == 3)
        #expect(atom.nextLink == Self.root + "StudentSet?$skiptoken='0043'&sap-client=100", "made absolute by xml:base")
        #expect(atom.deltaLink == Self.root + "StudentSet?!deltatoken='20260105'")
        let ada = try #require(atom.entities.first)
        let twin = try #require(json.entities.first)
        // Every property, typed by the metadata, equals the JSON reading: strings, Decimal, Int64 beyond 2^53,
        // Double, Boolean, DateTime, DateTimeOffset with its offset, Time, Guid, Binary, complex, expanded feed.
        var properties = ada.properties
        var twinProperties = twin.properties
        let visits = properties["Visits"]?.entitiesValue
        let twinVisits = twinProperties["Visits"]?.entitiesValue
        properties["Visits"] = nil
        twinProperties["Visits"] = nil
        #expect(properties == twinProperties)
        // The expanded visits: the same properties (their links are absolute here, relative in the JSON twin).
        #expect(visits?.map(\.properties) == twinVisits?.map(\.properties) && visits?.count == 2)
        #expect(visits?.first?.editLink == Self.root + "VisitSet(StudentId='0042',VisitNo=1)")
        #expect(ada.type == "ZADMISSIONS_SRV.Student" && ada.etag == twin.etag)
        #expect(ada.editLink == Self.root + "StudentSet('0042')" && ada.id == ada.editLink)
        #expect(ada.navigationLinks["School"] == Self.root + "StudentSet('0042')/School")
        #expect(ada["Visits"]?.entitiesValue?.last?["Note"] == .null, "m:null")
        #expect(ada["LastName"] == .string("O'Neil"))
        // The tombstone: a removed entity addressed by its id.
        let removed = try #require(atom.entities.last)
        #expect(removed.isRemoved && removed.id == Self.root + "StudentSet('0040')")
    }

    @Test("a single entry, a media entry and a property document")
    func entryMediaAndValue() throws {
        let reader = ODataPayloadReader(version: .v2, metadata: Self.metadata)
        let entry = """
            <entry xmlns="http://www.w3.org/2005/Atom" xmlns:m="\(ODataAtom.metadata)" xmlns:d="\(ODataAtom.data)"
             xml:base="\(Self.root)" m:etag="W/&quot;1&quot;">
             <id>\(Self.root)AttachmentSet('A1')</id><title/><updated>2026-01-01T00:00:00Z</updated>
             <category term="ZADMISSIONS_SRV.Attachment" scheme="\(ODataAtom.scheme)"/>
             <link href="AttachmentSet('A1')" rel="edit"/>
             <link href="AttachmentSet('A1')/$value" rel="edit-media" m:etag="W/&quot;m1&quot;"/>
             <content type="image/png" src="AttachmentSet('A1')/$value"/>
             <m:properties><d:Id>A1</d:Id><d:MimeType>image/png</d:MimeType></m:properties>
            </entry>
            """
        let media = try reader.entity(from: Data(entry.utf8), entitySet: "AttachmentSet")
        #expect(media["Id"] == .string("A1") && media["MimeType"] == .string("image/png"))
        #expect(media.mediaReadLink == Self.root + "AttachmentSet('A1')/$value")
        #expect(media.mediaEditLink == media.mediaReadLink && media.mediaContentType == "image/png")
        #expect(media.mediaETag == "W/\"m1\"" && media.etag == "W/\"1\"")

        let value =
            #"<d:Gpa xmlns:d="\#(ODataAtom.data)" xmlns:m="\#(ODataAtom.metadata)" m:type="Edm.Decimal">3.85</d:Gpa>"#
        let gpa = try reader.value(
            from: Data(value.utf8), type: CSDLTypeReference(name: "Edm.Decimal"))
        #expect(gpa == .decimal(Decimal(string: "3.85")!))
        let list = """
            <d:Codes xmlns:d="\(ODataAtom.data)" xmlns:m="\(ODataAtom.metadata)" m:type="Collection(Edm.Int32)">\
            <d:element>1</d:element><d:element>2</d:element></d:Codes>
            """
        // Without metadata, m:type still types whole numbers.
        #expect(try ODataPayloadReader(version: .v2).value(from: Data(list.utf8)) == .collection([.int(1), .int(2)]))
    }

    @Test("what the Atom writer writes reads back as the same entity, escaped, typed, with links and deep inserts")
    func writerRoundTrip() throws {
        let writer = ODataPayloadWriter(version: .v2, serviceURL: URL(string: Self.root)!, metadata: Self.metadata)
        var student = ODataEntity(type: "ZADMISSIONS_SRV.Student")
        student["StudentId"] = "0099"
        student["LastName"] = "<O'Brien & Söhne>"
        student["Gpa"] = .decimal(Decimal(string: "3.25")!)
        student["ApplicationCount"] = .int(9_007_199_254_740_993)
        student["Score"] = .double(-.infinity)
        student["Active"] = .bool(false)
        student["BirthDate"] = .dateTime(Date(timeIntervalSince1970: 1_199_145_600.5))
        student["ChangedAt"] = .dateTimeOffset(Date(timeIntervalSince1970: 1_767_607_200), offsetMinutes: -300)
        student["Guid"] = .guid(UUID(uuidString: "0f8fad5b-d9cb-469f-a165-70867728950e")!)
        student["Photo"] = .binary(Data([0, 255, 7]))
        student["FirstName"] = .null
        student["Address"] = .complex(["Street": "1 Main St", "City": .null])
        student["Visits"] = .entities([ODataEntity(properties: ["StudentId": "0099", "VisitNo": .int(1)])])
        student.bind("School", to: "SchoolSet('S1')")
        let body = try writer.atomData(for: student)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("&lt;O'Brien &amp; Söhne&gt;"))
        #expect(text.contains(#"m:type="Edm.Int64""#) && text.contains(#"<d:FirstName m:null="true"/>"#))
        #expect(text.contains(#"href="\#(Self.root)SchoolSet('S1')""#), "a binding is an absolute link")

        let read = try ODataPayloadReader(version: .v2, metadata: Self.metadata).entity(
            from: body, entitySet: "StudentSet")
        var expected = student.properties
        expected["Visits"] = nil
        var got = read.properties
        let visits = got["Visits"]?.entitiesValue
        got["Visits"] = nil
        #expect(got == expected)
        #expect(visits?.first?["VisitNo"] == .int(1), "a deep insert is written inline")
        #expect(read.type == "ZADMISSIONS_SRV.Student")
    }

    @Test("malformed Atom is refused with where it went wrong, never read as an empty or shorter page")
    func malformedAtom() throws {
        let reader = ODataPayloadReader(version: .v2, metadata: Self.metadata)
        func failure(_ xml: String) -> ODataError? {
            do {
                _ = try reader.page(from: Data(xml.utf8), entitySet: "StudentSet")
                return nil
            } catch {
                return error as? ODataError
            }
        }
        let feed =
            #"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:m="\#(ODataAtom.metadata)" xmlns:d="\#(ODataAtom.data)">"#
        // Cut short: the XML reader names the line.
        let cut = failure(feed + "\n<entry><content type=\"application/xml\"><m:properties><d:Rank>1</d:Ra")
        #expect(cut?.code == .invalidPayload && cut?.message.contains("line") == true, "\(String(describing: cut))")
        // A value the declared type refuses: named by entry and property.
        let bad = failure(
            feed
                + #"<entry><content type="application/xml"><m:properties><d:Rank>seven</d:Rank></m:properties></content></entry></feed>"#
        )
        #expect(bad?.code == .invalidPayload && bad?.location == "feed/entry[0].Rank", "\(String(describing: bad))")
        // An unreadable count or next link.
        let count = failure(feed + "<m:count>many</m:count></feed>")
        #expect(count?.location == "feed/m:count")
        let next = failure(feed + #"<link rel="next"/></feed>"#)
        #expect(next?.location == "feed/link[@rel='next']", "a next link without href is an error, not the end")
        // Not Atom at all (an HTML page that happens to be well-formed).
        let html = failure("<html><body>Sign in</body></html>")
        #expect(html?.location == "/" && html?.message.contains("<html>") == true)
    }

    @Test("with payloadFormat atom, writes go as Atom entries and Accept asks for Atom; automatic learns Atom")
    func serviceWritesAtom() async throws {
        let double = ServiceDouble()
        let metadata = String(decoding: try fixture("v2-gateway-metadata.xml"), as: UTF8.self)
        double.on("GET $metadata", headers: ["Content-Type": "application/xml"], body: metadata)
        let created = """
            <entry xmlns="http://www.w3.org/2005/Atom" xmlns:m="\(ODataAtom.metadata)" xmlns:d="\(ODataAtom.data)" \
            m:etag="W/&quot;7&quot;"><id>\(Self.root)SchoolSet('S9')</id><link href="SchoolSet('S9')" rel="edit"/>\
            <content type="application/xml"><m:properties><d:SchoolId>S9</d:SchoolId><d:Name>New</d:Name>\
            </m:properties></content></entry>
            """
        double.on(
            "POST SchoolSet", status: 201, headers: ["Content-Type": "application/atom+xml;type=entry"], body: created)
        double.on("GET SchoolSet('S9')", headers: ["Content-Type": "application/atom+xml;type=entry"], body: created)
        double.on("MERGE SchoolSet('S9')", status: 204, headers: [:], body: "")

        var configuration = ODataService.Configuration(serviceURL: URL(string: ServiceDouble.root)!)
        configuration.payloadFormat = .atom
        let atom = ODataService(configuration: configuration, transport: double.transport)
        let result = try await atom.create("SchoolSet", ODataEntity(properties: ["SchoolId": "S9", "Name": "New"]))
        #expect(result.entity?["Name"] == .string("New") && result.etag == "W/\"7\"")
        let post = try #require(double.requests.first { $0.method == .post })
        #expect(post.body?.contentType == "application/atom+xml;type=entry")
        #expect(post.headers["Accept"] == "application/atom+xml, application/xml;q=0.9")
        #expect(post.bodyText.contains("<d:SchoolId>S9</d:SchoolId>"))

        // Automatic: JSON until the service answers in Atom, then Atom.
        let automatic = ODataService(
            configuration: .init(serviceURL: URL(string: ServiceDouble.root)!), transport: double.transport)
        _ = try await automatic.metadata()
        #expect(automatic.writesAtom(.v2) == false)
        _ = try await automatic.entity("SchoolSet", key: .single(.string("S9")))
        try await automatic.update(
            "SchoolSet", key: .single(.string("S9")), with: ODataEntity(properties: ["Name": "B"]))
        let merge = try #require(double.requests.last)
        #expect(merge.method.rawValue == "MERGE" && merge.body?.contentType == "application/atom+xml;type=entry")
    }

    @Test("a $batch to an Atom service: parts written as Atom entries and XML links, Atom answers read per part")
    func batchParts() async throws {
        let double = ServiceDouble()
        let namespaces =
            #"xmlns="http://www.w3.org/2005/Atom" xmlns:m="\#(ODataAtom.metadata)" xmlns:d="\#(ODataAtom.data)""#
        let feed =
            "<feed \(namespaces)><m:count>1</m:count><entry><id>\(Self.root)SchoolSet('S1')</id>"
            + #"<content type="application/xml"><m:properties><d:SchoolId>S1</d:SchoolId><d:Name>First</d:Name>"#
            + "</m:properties></content></entry></feed>"
        let entry =
            "<entry \(namespaces) m:etag=\"W/&quot;3&quot;\"><id>\(Self.root)SchoolSet('S2')</id>"
            + #"<content type="application/xml"><m:properties><d:SchoolId>S2</d:SchoolId><d:Name>Second &amp; new</d:Name>"#
            + "</m:properties></content></entry>"
        let lines = [
            "--r", "Content-Type: application/http", "", "HTTP/1.1 200 OK",
            "Content-Type: application/atom+xml;type=feed",
            "", feed, "--r", "Content-Type: multipart/mixed; boundary=c", "", "--c", "Content-Type: application/http",
            "",
            "HTTP/1.1 201 Created", "Content-Type: application/atom+xml;type=entry", "", entry, "--c",
            "Content-Type: application/http", "", "HTTP/1.1 204 No Content", "", "", "--c--", "--r--",
        ]
        double.on("POST $batch") { request in
            let body = request.bodyText
            #expect(body.contains("Content-Type: application/atom+xml;type=entry"))
            #expect(body.contains("<d:Name>Second &amp; new</d:Name>"))
            #expect(body.contains(#"<uri xmlns="\#(ODataAtom.data)">\#(Self.root)SchoolSet('S1')</uri>"#))
            #expect(body.contains("Accept: application/atom+xml, application/xml;q=0.9"))
            return TransportResponse(
                status: 202, headers: ["Content-Type": "multipart/mixed; boundary=r"],
                body: BatchFixtures.body(lines))
        }
        var configuration = ODataService.Configuration(serviceURL: URL(string: ServiceDouble.root)!, version: .v2)
        configuration.payloadFormat = .atom
        let service = ODataService(configuration: configuration, transport: double.transport)
        service.use(Self.metadata)
        var batch = ODataBatch()
        let page = batch.page("SchoolSet")
        let (created, linked) = batch.changeset { changes in
            let created = changes.create(
                "SchoolSet", ODataEntity(properties: ["SchoolId": "S2", "Name": "Second & new"]))
            let linked = changes.addLink(
                from: ODataPath("StudentSet").key(.single(.string("0042"))), navigation: "School",
                to: ODataPath("SchoolSet").key(.single(.string("S1"))), replace: true)
            return (created, linked)
        }
        let response = try await service.send(batch)
        #expect(response.allSucceeded, "\(response)")
        let schools = try response[page].page()
        #expect(schools.count == 1 && schools.entities.first?["Name"] == .string("First"))
        let school = try response[created].entity()
        #expect(school["Name"] == .string("Second & new") && school.etag == "W/\"3\"")
        #expect(response[linked].status == 204)
    }

    @Test("empty values typed by the metadata, media entries, paged or crowded expansions, names XML cannot carry")
    func edgeCases() throws {
        let reader = ODataPayloadReader(version: .v2, metadata: Self.metadata)
        let d = ODataAtom.data
        // An empty collection (a service operation's answer without m:type) is an empty collection, not "".
        let empty = try reader.value(
            from: Data(#"<d:Names xmlns:d="\#(d)"/>"#.utf8),
            type: CSDLTypeReference(name: "Edm.String", isCollection: true))
        #expect(empty == .collection([]))
        // A complex property with no members is an empty complex value.
        let entry = """
            <entry xmlns="http://www.w3.org/2005/Atom" xmlns:m="\(ODataAtom.metadata)" xmlns:d="\(d)">\
            <category term="ZADMISSIONS_SRV.Student" scheme="\(ODataAtom.scheme)"/>\
            <link rel="\(ODataAtom.related)Visits" href="StudentSet('1')/Visits"><m:inline/></link>\
            <content type="application/xml"><m:properties><d:StudentId>1</d:StudentId><d:Address/>\
            <d:ChangedAt>2026-01-05T11:00:00.1234567+01:00</d:ChangedAt></m:properties></content></entry>
            """
        let student = try reader.entity(from: Data(entry.utf8), entitySet: "StudentSet")
        #expect(student["Address"] == .complex([:]))
        #expect(student["Visits"] == .entities([]), "an empty m:inline on a to-many navigation is an empty list")
        guard case .dateTimeOffset(let date, 60)? = student["ChangedAt"] else {
            Issue.record("ChangedAt: \(String(describing: student["ChangedAt"]))")
            return
        }
        #expect(abs(date.timeIntervalSince1970 - 1_767_607_200.1234567) < 0.000_01, "sub-millisecond precision kept")

        // An expansion the service paged, or an m:inline with two elements, is refused, never cut short.
        let paged = entry.replacingOccurrences(
            of: "<m:inline/>",
            with: #"<m:inline><feed><link rel="next" href="VisitSet?$skiptoken=2"/></feed></m:inline>"#)
        #expect(throws: ODataError.self) { try reader.entity(from: Data(paged.utf8), entitySet: "StudentSet") }
        let crowded = entry.replacingOccurrences(of: "<m:inline/>", with: "<m:inline><feed/><feed/></m:inline>")
        #expect(throws: ODataError.self) { try reader.entity(from: Data(crowded.utf8), entitySet: "StudentSet") }

        let writer = ODataPayloadWriter(version: .v2, serviceURL: URL(string: Self.root)!, metadata: Self.metadata)
        // A media entry (HasStream) keeps its properties beside content, as the Atom format asks.
        let media = String(
            decoding: try writer.atomData(
                for: ODataEntity(type: "ZADMISSIONS_SRV.Attachment", properties: ["MimeType": "image/png"])),
            as: UTF8.self)
        #expect(media.contains("<m:properties><d:MimeType>image/png</d:MimeType></m:properties></entry>"))
        #expect(!media.contains("<content"))
        // A plain date-time for a DateTimeOffset property goes with its zone.
        let stamped = String(
            decoding: try writer.atomData(
                for: ODataEntity(
                    type: "ZADMISSIONS_SRV.Student",
                    properties: ["ChangedAt": .dateTime(Date(timeIntervalSince1970: 1_767_607_200))])),
            as: UTF8.self)
        #expect(stamped.contains(">2026-01-05T10:00:00Z</d:ChangedAt>"))
        // A property name XML cannot carry is refused, not written as broken XML.
        #expect(throws: ODataError.self) {
            try writer.atomData(for: ODataEntity(properties: ["a b<c": "x"]))
        }
    }
}
