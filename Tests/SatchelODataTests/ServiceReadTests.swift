import Foundation
import SatchelHTTP
import SatchelJSON
import Testing

@testable import SatchelOData

@Suite("ODataService reads")
struct ServiceReadTests {
    static func v2Page(_ ids: [String], next: String? = nil, count: Int? = nil) -> String {
        let entities = ids.map {
            #"{"__metadata":{"type":"ZADMISSIONS_SRV.Student"},"StudentId":"\#($0)","Gpa":"3.5"}"#
        }
        var d = #""results":[\#(entities.joined(separator: ","))]"#
        if let next { d += #","__next":"\#(next)""# }
        if let count { d += #","__count":"\#(count)""# }
        return "{\"d\":{\(d)}}"
    }

    @Test func metadataVersionAndServerPagingV2() async throws {
        let double = ServiceDouble()
        double.on(
            "GET $metadata?sap-client=100", headers: ["Content-Type": "application/xml"],
            body: String(decoding: try fixture("v2-gateway-metadata.xml"), as: UTF8.self))
        double.on(
            "GET StudentSet?$filter=StateCode eq 'MS'&$inlinecount=allpages&sap-client=100",
            body: Self.v2Page(
                ["1", "2"], next: ServiceDouble.root + "/StudentSet?$skiptoken='2'&sap-client=100", count: 3))
        double.on("GET StudentSet?$skiptoken='2'&sap-client=100", body: Self.v2Page(["3"]))
        let service = double.service(nil, sapClient: "100")
        let query = ODataQuery().filter(.property("StateCode") == "MS").count()
        var pages: [ODataPage] = []
        for try await page in service.pages("StudentSet", query: query) { pages.append(page) }
        #expect(pages.map(\.entities.count) == [2, 1] && pages.first?.count == 3)
        let all = try await service.entities("StudentSet", query: query).collect()
        #expect(all.map { $0["StudentId"]?.stringValue } == ["1", "2", "3"])
        #expect(all.first?["Gpa"] == .decimal(3.5), "typed by the fetched metadata")
        #expect(try await service.version() == .v2)
        #expect(double.keys.filter { $0.hasPrefix("GET $metadata") }.count == 1, "metadata fetched once")
        let request = try #require(double.requests.first { $0.url.path.hasSuffix("StudentSet") })
        // JSON asked for, Atom accepted (ODataPayloadFormat.automatic).
        #expect(
            request.headers["MaxDataServiceVersion"] == "2.0"
                && request.headers["Accept"] == "application/json, application/atom+xml;q=0.9, application/xml;q=0.8")
        #expect(
            request.url.absoluteString.hasSuffix(
                "StudentSet?$filter=StateCode%20eq%20'MS'&$inlinecount=allpages&sap-client=100"))
    }

    @Test func clientPagingV2() async throws {
        let double = ServiceDouble()
        double.on("GET StudentSet?$top=2", body: Self.v2Page(["1", "2"]))
        double.on("GET StudentSet?$top=2&$skip=2", body: Self.v2Page(["3", "4"]))
        double.on("GET StudentSet?$top=2&$skip=4", body: Self.v2Page(["5"]))
        let all = try await double.service(.v2, pageSize: 2).entities("StudentSet").collect()
        #expect(all.count == 5)
        #expect(
            double.keys == ["GET StudentSet?$top=2", "GET StudentSet?$top=2&$skip=2", "GET StudentSet?$top=2&$skip=4"])
    }

    /// The last page full: the page after it is asked for and found empty, which ends the pages without being one.
    @Test func clientPagingV2EndsWithoutAnEmptyPage() async throws {
        let double = ServiceDouble()
        double.on("GET StudentSet?$top=2", body: Self.v2Page(["1", "2"]))
        double.on("GET StudentSet?$top=2&$skip=2", body: Self.v2Page(["3", "4"]))
        double.on("GET StudentSet?$top=2&$skip=4", body: Self.v2Page([]))
        var sizes: [Int] = []
        for try await page in double.service(.v2, pageSize: 2).pages("StudentSet") { sizes.append(page.entities.count) }
        #expect(sizes == [2, 2])
        #expect(double.keys.count == 3)
    }

    @Test func serverPagingV4WithRelativeNextLinkAndPrefer() async throws {
        let double = ServiceDouble()
        double.on("GET People", body: #"{"value":[{"UserName":"a"}],"@odata.nextLink":"People?$skiptoken=1"}"#)
        double.on("GET People?$skiptoken=1", body: #"{"value":[{"UserName":"b"}]}"#)
        let names = try await double.service(.v4, pageSize: 1).entities("People").collect().map { $0["UserName"] }
        #expect(names == [.string("a"), .string("b")])
        #expect(double.requests.allSatisfy { $0.headers["Prefer"] == "odata.maxpagesize=1" })
        #expect(double.requests.first?.headers["OData-MaxVersion"] == "4.0")
    }

    @Test func stoppingEarlyFetchesNoMorePages() async throws {
        let double = ServiceDouble()
        double.on("GET People", body: #"{"value":[{"UserName":"a"},{"UserName":"b"}],"@odata.nextLink":"People?p=2"}"#)
        for try await _ in double.service(.v4).entities("People") { break }
        #expect(double.keys == ["GET People"])
    }

    @Test func entityByCompositeKeyWithETagHeader() async throws {
        let double = ServiceDouble()
        double.on(
            "GET VisitSet(StudentId='0042',VisitNo=3)?$select=Note",
            headers: ["Content-Type": "application/json", "ETag": "W/\"7\""],
            body: #"{"d":{"StudentId":"0042","VisitNo":3,"Note":"tour"}}"#)
        let visit = try await double.service(.v2).entity(
            "VisitSet", key: ODataKey(["StudentId": "0042", "VisitNo": .int(3)]), query: ODataQuery().select("Note"))
        #expect(visit["Note"] == .string("tour") && visit.etag == "W/\"7\"")
    }

    @Test func navigationAndCountAndValue() async throws {
        let double = ServiceDouble()
        double.use(metadata: try fixture("v2-gateway-metadata.xml"))
        double.on("GET StudentSet('0042')/Visits", body: #"{"d":{"results":[{"StudentId":"0042","VisitNo":1}]}}"#)
        double.on("GET StudentSet/$count?$filter=Active eq true", headers: ["Content-Type": "text/plain"], body: "17")
        double.on("GET StudentSet('0042')/LastName/$value", headers: ["Content-Type": "text/plain"], body: "O'Neil")
        let service = double.service(nil)
        let visits = try await service.entities(ODataPath("StudentSet").key("0042").navigate("Visits")).collect()
        #expect(visits.first?["VisitNo"] == .int(1))
        #expect(service.entityType(of: ODataPath("StudentSet").key("0042").navigate("Visits"))?.name == "Visit")
        let count = try await service.count(
            "StudentSet", query: ODataQuery().filter(.property("Active") == true).top(5))
        #expect(count == 17)
        #expect(double.requests.last { $0.url.path.hasSuffix("$count") }?.headers["Accept"] == "text/plain")
        let raw = try await service.rawValue(ODataPath("StudentSet").key("0042").navigate("LastName"))
        #expect(String(decoding: raw, as: UTF8.self) == "O'Neil")
    }

    @Test func mediaDownloadToFile() async throws {
        let double = ServiceDouble()
        let bytes = Data((0..<100_000).map { UInt8($0 % 251) })
        double.on("GET AttachmentSet('A1')/$value") { _ in
            TransportResponse(status: 200, headers: ["Content-Type": "application/pdf", "ETag": "\"m1\""], body: bytes)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("odata-media-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let etag = try await double.service(.v2).downloadMedia(ODataPath("AttachmentSet").key("A1"), to: file)
        let written = try Data(contentsOf: file)
        #expect(etag == "\"m1\"" && written == bytes)
    }

    struct Student: Decodable, Sendable, Equatable {
        let StudentId: String
        let BirthDate: Date?
    }

    @Test(arguments: [ODataVersion.v2, .v4])
    func decodableEntities(version: ODataVersion) async throws {
        let double = ServiceDouble()
        if version == .v2 {
            double.on(
                "GET StudentSet",
                body: #"{"d":{"results":[{"StudentId":"1","BirthDate":"/Date(0)/"}],"__next":"StudentSet?p=2"}}"#)
            double.on("GET StudentSet?p=2", body: #"{"d":{"results":[{"StudentId":"2","BirthDate":null}]}}"#)
        } else {
            double.on(
                "GET StudentSet",
                body:
                    #"{"value":[{"StudentId":"1","BirthDate":"1970-01-01T00:00:00Z"}],"@odata.nextLink":"StudentSet?p=2"}"#
            )
            double.on("GET StudentSet?p=2", body: #"{"value":[{"StudentId":"2","BirthDate":null}]}"#)
        }
        var students: [Student] = []
        for try await student in double.service(version).entities("StudentSet", as: Student.self) {
            students.append(student)
        }
        #expect(
            students == [
                Student(StudentId: "1", BirthDate: Date(timeIntervalSince1970: 0)),
                Student(StudentId: "2", BirthDate: nil),
            ])
    }

    @Test func serverErrorsBecomeODataErrors() async throws {
        let double = ServiceDouble()
        double.on(
            "GET StudentSet('0099')", status: 404, body: String(decoding: try fixture("v2-error.json"), as: UTF8.self))
        let error = try await #require(throws: ODataError.self) {
            try await double.service(.v2).entity("StudentSet", key: "0099")
        }
        #expect(error.code == .notFound && error.serviceCode == "ZADM/042" && error.sapErrorDetails.count == 2)
        #expect(error.url?.absoluteString.hasSuffix("StudentSet('0099')") == true)
        #expect(error.operation == "read StudentSet('0099')")
    }

    @Test func bodyThatIsNotODataIsInvalidPayload() async throws {
        let double = ServiceDouble()
        double.on("GET People", body: #"{"items":[]}"#)
        let error = try await #require(throws: ODataError.self) {
            try await double.service(.v4).entities("People").collect()
        }
        #expect(error.code == .invalidPayload && error.url != nil)
    }
}

extension ServiceDouble {
    func use(metadata: Data) {
        on(
            "GET $metadata", headers: ["Content-Type": "application/xml"],
            body: String(decoding: metadata, as: UTF8.self))
    }
}

/// A generated-proxy-like type: pulled straight from the reader.
struct PulledStudent: JSONDecodable, Sendable, Equatable {
    var id = ""
    var gpa: Decimal?

    init(id: String, gpa: Decimal?) {
        self.id = id
        self.gpa = gpa
    }

    init(from reader: inout JSONReader) throws {
        try reader.readObject { key, reader in
            switch key {
            case "StudentId": id = try reader.readString()
            case "Gpa": gpa = Decimal(string: try reader.readString())
            default: break
            }
        }
    }
}

@Suite("ODataService pull decoding")
struct ServicePullDecodingTests {
    @Test func pullDecodedPages() async throws {
        let double = ServiceDouble()
        double.on("GET StudentSet", body: ServiceReadTests.v2Page(["1", "2"], next: "StudentSet?p=2"))
        double.on("GET StudentSet?p=2", body: ServiceReadTests.v2Page(["3"]))
        var students: [PulledStudent] = []
        for try await student in double.service(.v2).entities("StudentSet", pullDecoding: PulledStudent.self) {
            students.append(student)
        }
        #expect(students.map(\.id) == ["1", "2", "3"] && students.allSatisfy { $0.gpa == 3.5 })
    }
}
