import Foundation
import SatchelHTTP
import SatchelJSON
import Testing

@testable import SatchelOData

/// `service.send(batch)` against the in-memory double: matching responses to requests, decoding, per-part
/// errors, changeset failures, parts never answered, and what throws.
@Suite("ODataService $batch")
struct BatchServiceTests {
    typealias Fixtures = BatchFixtures

    static func multipart(_ lines: [String], boundary: String, status: Int = 202) -> TransportResponse {
        TransportResponse(
            status: status, headers: ["Content-Type": "multipart/mixed; boundary=\(boundary)"],
            body: Fixtures.body(lines))
    }

    static func sampleV2() -> (ODataBatch, [ODataBatchReference]) {
        var batch = ODataBatch()
        let page = batch.page("StudentSet", query: ODataQuery().top(2))
        let (created, updated) = batch.changeset { changes in
            let created = changes.create("StudentSet", ODataEntity(properties: ["LastName": "Lovelace"]))
            return (created, changes.update(created.path, with: ODataEntity(properties: ["FirstName": "Ada"])))
        }
        let count = batch.count("StudentSet")
        return (batch, [page, created, updated, count])
    }

    @Test func v2ResultsInRequestOrderWithCSRFOnTheOuterPostOnly() async throws {
        let double = ServiceDouble()
        double.on("GET $batch?sap-client=100") { request in
            #expect(request.headers["X-CSRF-Token"] == "Fetch")
            return TransportResponse(status: 405, headers: ["X-CSRF-Token": "tok-7"])
        }
        double.on("POST $batch?sap-client=100") { request in
            #expect(request.headers["X-CSRF-Token"] == "tok-7")
            #expect(request.body?.contentType?.hasPrefix("multipart/mixed; boundary=batch_") == true)
            #expect(!request.bodyText.lowercased().contains("csrf"))
            #expect(request.bodyText.contains("MERGE $2 HTTP/1.1\r\n"))
            return Self.multipart(Fixtures.v2Lines, boundary: "batchresponse_1")
        }
        let (batch, refs) = Self.sampleV2()
        let service = double.service(.v2, sapClient: "100", auth: [CSRFTokenAuth()])
        let response = try await service.send(batch)
        #expect(response.status == 202 && response.count == 4 && response.allSucceeded)
        #expect(try response[refs[0]].page().entities.map { $0["StudentId"]?.stringValue } == ["1", "2"])
        let created = response[refs[1]]
        #expect(created.status == 201 && created.location == "StudentSet('9')" && created.etag == "W/\"1\"")
        #expect(try created.entity()["LastName"]?.stringValue == "Lovelace")
        #expect(response[refs[2]].status == 204 && response[refs[2]].etag == "W/\"2\"")
        #expect(response[refs[2]].content == .none)
        #expect(try response[refs[2]].value() == .null)
        #expect(try response[refs[3]].count() == 3)
        #expect(response[refs[3]].operation == "count StudentSet" && response[refs[1]].method == .post)
        #expect(double.keys == ["GET $batch?sap-client=100", "POST $batch?sap-client=100"])
    }

    @Test func failedChangesetGivesItsErrorToEveryChange() async throws {
        let double = ServiceDouble()
        double.on("POST $batch") { _ in Self.multipart(Fixtures.failedChangesetLines, boundary: "batchresponse_2") }
        let (batch, refs) = Self.sampleV2()
        let response = try await double.service(.v2).send(batch)
        #expect(response[refs[0]].succeeded)
        #expect(try response[refs[3]].count() == 7)
        for ref in refs[1...2] {
            let error = try #require(response[ref].error)
            #expect(error.code == .badRequest && error.status == 400 && error.serviceCode == "SY/530")
            #expect(error.message == "LastName is required" && error.operation == "changeset 1 (rolled back)")
            #expect(!response[ref].succeeded && response[ref].status == 400)
        }
        #expect(response.errors.count == 2 && !response.allSucceeded)
        let thrown = try #require(throws: ODataError.self) { try response[refs[1]].entity() }
        #expect(thrown.serviceCode == "SY/530")
    }

    @Test func v4NestedChangesetErrorNamesTheFailingChange() async throws {
        // A V4 service answers a failed changeset with one error part inside it, carrying the Content-ID.
        let lines = [
            "--r", "Content-Type: multipart/mixed; boundary=c", "", "--c", "Content-Type: application/http",
            "Content-ID: 2", "", "HTTP/1.1 412 Precondition Failed", "Content-Type: application/json", "ETag: W/\"9\"",
            "", #"{"error":{"code":"412","message":"stale"}}"#, "--c--", "--r--",
        ]
        let double = ServiceDouble()
        double.on("POST $batch") { _ in Self.multipart(lines, boundary: "r", status: 200) }
        var batch = ODataBatch()
        batch.changeset { changes in
            changes.create("People", ODataEntity(properties: ["UserName": "a"]))
            changes.update(ODataPath("People").key("b"), with: ODataEntity(), ifMatch: "W/\"1\"")
        }
        let response = try await double.service(.v4).send(batch)
        for result in response {
            #expect(result.error?.code == .preconditionFailed && result.error?.currentETag == "W/\"9\"")
            #expect(result.error?.operation == "update People('b')" && result.error?.message == "stale")
        }
    }

    @Test func partsTheServiceNeverAnsweredAreNotExecuted() async throws {
        let lines = [
            "--r", "Content-Type: application/http", "", "HTTP/1.1 200 OK", "Content-Type: application/json", "",
            #"{"value":[]}"#, "--r", "Content-Type: application/http", "", "HTTP/1.1 404 Not Found",
            "Content-Type: application/json", "", #"{"error":{"code":"NF","message":"no such set"}}"#, "--r--",
        ]
        let double = ServiceDouble()
        double.on("POST $batch") { _ in Self.multipart(lines, boundary: "r", status: 200) }
        var batch = ODataBatch()
        batch.page("People")
        batch.page("Nope")
        let last = batch.count("People")
        let response = try await double.service(.v4).send(batch)
        #expect(response[0].succeeded && response[1].error?.code == .notFound)
        #expect(response[1].error?.message == "no such set" && response[1].error?.method == .get)
        #expect(response[last].status == nil && response[last].error?.code == .notExecuted)
        #expect(response[last].error?.message.contains("continueOnError") == true)
    }

    @Test func v4JSONByIDWithFailedGroupAndDependency() async throws {
        let body = #"""
            {"responses":[
              {"id":"3","atomicityGroup":"g1","status":400,"headers":{"content-type":"application/json"},
               "body":{"error":{"code":"BAD","message":"Name is required"}}},
              {"id":"1","status":200,"headers":{"content-type":"application/json","odata-version":"4.0"},
               "body":{"@odata.count":1,"value":[{"ID":1,"@odata.etag":"W/\"e\""}]}},
              {"id":"4","status":424,"headers":{"content-type":"application/json"},
               "body":{"error":{"code":"424","message":"depends on g1"}}}
            ]}
            """#
        let double = ServiceDouble()
        double.on("POST $batch") { request in
            let json = try? JSONValue(parsing: request.body?.inMemoryData ?? Data())
            #expect(json?["requests"]?[2]?["dependsOn"] == ["2"] && json?["requests"]?[3]?["dependsOn"] == ["2"])
            return TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        var batch = ODataBatch(format: .json)
        batch.page("Products", query: ODataQuery().count())
        batch.changeset { changes in
            let created = changes.create("Products", ODataEntity(properties: ["ID": 300]))
            changes.update(created.path, with: ODataEntity(properties: ["Name": .null]))
        }
        batch.changeset { changes in
            changes.addLink(from: ODataPath.raw("$2"), navigation: "Category", to: "Categories(1)", replace: true)
        }
        let response = try await double.service(.v4).send(batch)
        let page = try response[0].page()
        #expect(page.count == 1 && page.entities.first?.etag == "W/\"e\"")
        #expect(response[1].error?.message == "Name is required" && response[2].error?.message == "Name is required")
        #expect(response[1].error?.code == .badRequest && response[1].status == 400)
        #expect(response[3].status == 424 && response[3].error?.code == .clientError)
    }

    @Test func unreadablePartBodyFailsThatPartOnly() async throws {
        let lines = [
            "--r", "Content-Type: application/http", "", "HTTP/1.1 200 OK", "Content-Type: application/json", "",
            #"{"d":{"nothing":1}}"#, "--r", "Content-Type: application/http", "", "HTTP/1.1 200 OK", "", "many",
            "--r--",
        ]
        let double = ServiceDouble()
        double.on("POST $batch") { _ in Self.multipart(lines, boundary: "r") }
        var batch = ODataBatch()
        batch.page("StudentSet")
        batch.count("StudentSet")
        let response = try await double.service(.v2).send(batch)
        #expect(response[0].status == 200 && response[0].error?.code == .invalidPayload)
        #expect(response[0].error?.operation == "read StudentSet" && response[0].error?.location == "d.results")
        #expect(response[1].error?.message.contains("not a number") == true)
        let mismatch = try #require(throws: ODataError.self) { try response[1].page() }
        #expect(mismatch.code == .invalidPayload)
    }

    @Test func outerFailuresThrow() async throws {
        let double = ServiceDouble()
        let service = double.service(.v2)
        double.on(
            "POST $batch", status: 500,
            body: #"{"error":{"code":"/IWFND/CM_BEC/026","message":{"lang":"en","value":"Backend down"}}}"#)
        var batch = ODataBatch()
        batch.count("StudentSet")
        let server = try await #require(throws: ODataError.self) { try await service.send(batch) }
        #expect(server.code == .server && server.message == "Backend down" && server.status == 500)
        double.on(
            "POST $batch", status: 200, headers: ["Content-Type": "text/html"],
            body: "<html><body>Please log on</body></html>")
        let html = try await #require(throws: ODataError.self) { try await service.send(batch) }
        #expect(html.code == .invalidPayload && html.message.contains("text/html") && html.status == 200)
        #expect(html.message.contains("Please log on") && html.method == .post)
        double.on(
            "POST $batch", status: 202, headers: ["Content-Type": "multipart/mixed; boundary=x"],
            body: "--x\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n")
        let truncated = try await #require(throws: ODataError.self) { try await service.send(batch) }
        #expect(truncated.code == .invalidPayload && truncated.message.contains("truncated"))
    }

    @Test func batchClosureAndOperations() async throws {
        let double = ServiceDouble()
        double.on("POST $batch") { request in
            #expect(request.bodyText.contains("GET TotalStock() HTTP/1.1\r\n"))
            #expect(request.bodyText.contains("DELETE People('a')/Friends/$ref?$id=$2 HTTP/1.1\r\n"))
            return Self.multipart(
                [
                    "--r", "Content-Type: application/http", "", "HTTP/1.1 200 OK", "Content-Type: application/json",
                    "", #"{"value":42}"#, "--r", "Content-Type: multipart/mixed; boundary=c", "", "--c",
                    "Content-Type: application/http", "", "HTTP/1.1 204 No Content", "", "", "--c--", "--r--",
                ], boundary: "r", status: 200)
        }
        let response = try await double.service(.v4).batch { batch in
            batch.call("TotalStock")
            batch.changeset { $0.removeLink(from: ODataPath("People").key("a"), navigation: "Friends", to: "$2") }
        }
        #expect(try response[0].value().intValue == 42 && response[1].succeeded)
    }
}
