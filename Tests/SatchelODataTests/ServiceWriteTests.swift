import Foundation
import SatchelHTTP
import SatchelJSON
import Testing

@testable import SatchelOData

@Suite("ODataService writes, links, operations, delta")
struct ServiceWriteTests {
    @Test func createDeepInsertV2WithCSRF() async throws {
        let double = ServiceDouble()
        double.on("GET StudentSet") { request in
            #expect(request.headers["X-CSRF-Token"] == "Fetch")
            return TransportResponse(
                status: 200, headers: ["X-CSRF-Token": "tok-1"], body: Data(#"{"d":{"results":[]}}"#.utf8))
        }
        double.on("POST StudentSet") { request in
            #expect(request.headers["X-CSRF-Token"] == "tok-1")
            let json = try? JSONValue(parsing: request.body?.inMemoryData ?? Data())
            #expect(json?["Visits"]?[0]?["VisitNo"] == 1)
            return TransportResponse(
                status: 201,
                headers: ["Content-Type": "application/json", "ETag": "W/\"1\"", "Location": "StudentSet('0044')"],
                body: Data(
                    #"{"d":{"__metadata":{"uri":"StudentSet('0044')","etag":"W/\"1\""},"StudentId":"0044"}}"#.utf8))
        }
        var student = ODataEntity(properties: ["LastName": "Lovelace"])
        student["Visits"] = .entities([ODataEntity(properties: ["VisitNo": 1])])
        let result = try await double.service(.v2, auth: [CSRFTokenAuth()]).create("StudentSet", student)
        #expect(result.entity?["StudentId"] == .string("0044") && result.etag == "W/\"1\"")
        #expect(result.location == "StudentSet('0044')")
        #expect(double.requests.last?.body?.contentType?.hasPrefix("application/json") == true)
    }

    @Test(arguments: [
        (ODataVersion.v2, ODataUpdateMethod.merge, "MERGE"), (.v4, .merge, "PATCH"), (.v2, .replace, "PUT"),
        (.v4, .replace, "PUT"),
    ])
    func updateMethodsAndIfMatch(version: ODataVersion, method: ODataUpdateMethod, httpMethod: String) async throws {
        let double = ServiceDouble()
        double.on("\(httpMethod) StudentSet('0042')", status: 204, headers: ["ETag": "W/\"2\""])
        let result = try await double.service(version).update(
            "StudentSet", key: "0042", with: ODataEntity(properties: ["LastName": "X"]), method: method,
            ifMatch: "W/\"1\"")
        #expect(result.etag == "W/\"2\"" && result.entity == nil)
        #expect(double.requests.last?.headers["If-Match"] == "W/\"1\"")
        #expect(double.requests.last?.bodyText == #"{"LastName":"X"}"#)
    }

    @Test func preconditionFailedCarriesCurrentETag() async throws {
        let double = ServiceDouble()
        double.on(
            "PATCH People('a')", status: 412, headers: ["Content-Type": "application/json", "ETag": "W/\"9\""],
            body: #"{"error":{"code":"","message":"The ETag does not match"}}"#)
        let error = try await #require(throws: ODataError.self) {
            try await double.service(.v4).update(ODataPath("People").key("a"), with: ODataEntity(), ifMatch: "W/\"1\"")
        }
        #expect(error.code == .preconditionFailed && error.currentETag == "W/\"9\"")
        #expect(error.message == "The ETag does not match" && error.method == .patch)
    }

    @Test func deleteWithIfMatch() async throws {
        let double = ServiceDouble()
        double.on("DELETE StudentSet('0042')", status: 204)
        try await double.service(.v2).delete(ODataPath("StudentSet").key("0042"), ifMatch: "*")
        #expect(double.requests.last?.headers["If-Match"] == "*")
    }

    @Test func linksV2AndV4() async throws {
        let v2 = ServiceDouble()
        v2.on("POST StudentSet('1')/$links/Visits", status: 204)
        v2.on("DELETE StudentSet('1')/$links/Visits(StudentId='1',VisitNo=2)", status: 204)
        let service2 = v2.service(.v2)
        try await service2.addLink(
            from: ODataPath("StudentSet").key("1"), navigation: "Visits",
            to: ODataPath("VisitSet").key(ODataKey(["StudentId": "1", "VisitNo": .int(2)])))
        let linkBody = try JSONValue(parsing: v2.requests.last?.body?.inMemoryData ?? Data())
        #expect(linkBody["uri"]?.stringValue == "\(ServiceDouble.root)/VisitSet(StudentId='1',VisitNo=2)")
        try await service2.removeLink(
            from: ODataPath("StudentSet").key("1"), navigation: "Visits",
            to: ODataPath("VisitSet").key(ODataKey(["StudentId": "1", "VisitNo": .int(2)])))
        let v4 = ServiceDouble()
        v4.on("PUT People('a')/BestFriend/$ref", status: 204)
        v4.on("DELETE People('a')/Friends/$ref?$id=\(ServiceDouble.root)/People('b')", status: 204)
        let service4 = v4.service(.v4)
        try await service4.addLink(
            from: ODataPath("People").key("a"), navigation: "BestFriend", to: ODataPath("People").key("b"),
            replace: true)
        let body = try JSONValue(parsing: v4.requests.last?.body?.inMemoryData ?? Data())
        #expect(body["@odata.id"]?.stringValue == "\(ServiceDouble.root)/People('b')")
        try await service4.removeLink(
            from: ODataPath("People").key("a"), navigation: "Friends", to: ODataPath("People").key("b"))
        #expect(v2.requests.count == 2 && v4.requests.count == 2)
    }

    @Test func operationsV2() async throws {
        let double = ServiceDouble()
        double.use(metadata: try fixture("v2-gateway-metadata.xml"))
        double.on("GET CountByState?StateCode='MS'", body: #"{"d":{"CountByState":12}}"#)
        double.on("POST ApproveStudent?StudentId='0042'&Comment='ok'", body: #"{"d":{"StudentId":"0042","Gpa":"4.0"}}"#)
        let service = double.service(nil)
        #expect(try await service.call("CountByState", parameters: ["StateCode": "MS"]) == .int(12))
        let approved = try await service.call("ApproveStudent", parameters: ["StudentId": "0042", "Comment": "ok"])
        #expect(approved.entityValue?["Gpa"] == .decimal(4))
    }

    @Test func operationsV4() async throws {
        let double = ServiceDouble()
        double.use(metadata: try fixture("v4-metadata.xml"))
        double.on("GET GetNearestAirport(lat=1.5,lon=-2.0)", body: #"{"Code":"KSFO","Location":{"Address":"SFO"}}"#)
        double.on("POST ResetDataSource", status: 204)
        double.on("POST People('a')/Trip.ShareTrip", status: 204)
        let service = double.service(nil)
        let airport = try await service.call("GetNearestAirport", parameters: ["lat": 1.5, "lon": -2.0])
        #expect(airport.entityValue?["Code"] == .string("KSFO"))
        #expect(try await service.call("ResetDataSource") == .null)
        try await service.call(
            "Trip.ShareTrip", parameters: ["userName": "b", "tripId": 3], boundTo: ODataPath("People").key("a"))
        let body = try JSONValue(parsing: double.requests.last?.body?.inMemoryData ?? Data())
        #expect(body == ["userName": "b", "tripId": 3])
    }

    @Test func deltaV4() async throws {
        let double = ServiceDouble()
        double.on("GET People", body: #"{"value":[{"UserName":"a"}],"@odata.nextLink":"People?page=2"}"#)
        double.on("GET People?page=2", body: #"{"value":[{"UserName":"b"}],"@odata.deltaLink":"People?$deltatoken=1"}"#)
        double.on("GET People?$deltatoken=1", body: String(decoding: try fixture("v4-delta.json"), as: UTF8.self))
        let service = double.service(.v4)
        let initial = try await service.trackChanges("People")
        #expect(initial.changed.count == 2 && initial.deltaLink == "People?$deltatoken=1")
        #expect(double.requests.first?.headers["Prefer"] == "odata.track-changes")
        let changes = try await service.changes(since: try #require(initial.deltaLink))
        #expect(changes.changed.count == 1 && changes.removed.count == 3)
        #expect(changes.deltaLink == "People?$deltatoken=8015")
    }

    @Test func deltaV2DeltaToken() async throws {
        let double = ServiceDouble()
        double.on(
            "GET StudentSet?!deltatoken='00505688017A1EE8A0B6F8A7B5C1A1E0_20260105100000'",
            body: String(decoding: try fixture("v2-delta.json"), as: UTF8.self))
        let changes = try await double.service(.v2).changes(
            since: "StudentSet?!deltatoken='00505688017A1EE8A0B6F8A7B5C1A1E0_20260105100000'")
        #expect(changes.changed.count == 1 && changes.removed.first?["StudentId"] == .string("0007"))
        #expect(changes.deltaLink?.contains("!deltatoken") == true)
    }

    @Test func mediaUploadFromFile() async throws {
        let double = ServiceDouble()
        let bytes = Data(repeating: 7, count: 50_000)
        double.on("PUT AttachmentSet('A1')/$value") { request in
            #expect(request.body?.contentType == "application/pdf")
            return TransportResponse(status: 204, headers: ["ETag": "\"m2\""])
        }
        double.on("POST AttachmentSet") { request in
            #expect(request.headers["Slug"] == "report.pdf")
            return TransportResponse(
                status: 201, headers: ["Content-Type": "application/json"],
                body: Data(
                    #"{"d":{"__metadata":{"media_src":"AttachmentSet('A2')/$value","content_type":"application/pdf"},"Id":"A2"}}"#
                        .utf8))
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("odata-upload-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let service = double.service(.v2)
        let etag = try await service.uploadMedia(
            ODataPath("AttachmentSet").key("A1"), from: file, contentType: "application/pdf")
        #expect(etag == "\"m2\"")
        let created = try await service.createMedia(
            "AttachmentSet", from: file, contentType: "application/pdf", slug: "report.pdf")
        #expect(created.entity?.mediaReadLink == "AttachmentSet('A2')/$value")
        #expect(created.entity?.mediaContentType == "application/pdf")
    }
}
