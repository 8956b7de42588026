import Foundation
import SatchelHTTP
import SatchelJSON
import Testing

@testable import SatchelOData

/// The bytes a batch is written as, compared whole: V2 multipart, V4 multipart, V4 JSON.
@Suite("$batch writer")
struct BatchWriterTests {
    static func written(_ batch: ODataBatch, version: ODataVersion, sapClient: String? = nil) async throws -> String {
        let service = ServiceDouble().service(version, sapClient: sapClient)
        let plan = try await service.plan(batch)
        let (body, _) = ODataBatchWriter(boundarySeed: "t").write(plan)
        return String(decoding: body, as: UTF8.self)
    }

    /// A read, a changeset whose second change refers to the first (`$2`), and a count.
    static func sample(format: ODataBatchFormat? = nil) -> ODataBatch {
        var batch = ODataBatch(format: format)
        batch.page("StudentSet", query: ODataQuery().top(2))
        batch.changeset { changes in
            let created = changes.create("StudentSet", ODataEntity(properties: ["LastName": "Lovelace"]))
            changes.update(created.path, with: ODataEntity(properties: ["FirstName": "Ada"]), ifMatch: "*")
        }
        batch.count("StudentSet")
        return batch
    }

    @Test func v2Multipart() async throws {
        let text = try await Self.written(Self.sample(), version: .v2, sapClient: "100")
        let expected = [
            "--batch_t",
            "Content-Type: application/http",
            "Content-Transfer-Encoding: binary",
            "",
            "GET StudentSet?$top=2&sap-client=100 HTTP/1.1",
            "Accept: application/json, application/atom+xml;q=0.9, application/xml;q=0.8",
            "",
            "",
            "--batch_t",
            "Content-Type: multipart/mixed; boundary=changeset_t_1",
            "",
            "--changeset_t_1",
            "Content-Type: application/http",
            "Content-Transfer-Encoding: binary",
            "Content-ID: 2",
            "",
            "POST StudentSet?sap-client=100 HTTP/1.1",
            "Accept: application/json, application/atom+xml;q=0.9, application/xml;q=0.8",
            "Content-Type: application/json",
            "Content-Length: 23",
            "",
            #"{"LastName":"Lovelace"}"#,
            "--changeset_t_1",
            "Content-Type: application/http",
            "Content-Transfer-Encoding: binary",
            "Content-ID: 3",
            "",
            "MERGE $2 HTTP/1.1",
            "Accept: application/json, application/atom+xml;q=0.9, application/xml;q=0.8",
            "If-Match: *",
            "Content-Type: application/json",
            "Content-Length: 19",
            "",
            #"{"FirstName":"Ada"}"#,
            "--changeset_t_1--",
            "",
            "--batch_t",
            "Content-Type: application/http",
            "Content-Transfer-Encoding: binary",
            "",
            "GET StudentSet/$count?sap-client=100 HTTP/1.1",
            "Accept: text/plain",
            "",
            "",
            "--batch_t--",
            "",
        ].joined(separator: "\r\n")
        #expect(text == expected)
    }

    @Test func v4Multipart() async throws {
        var batch = ODataBatch()
        batch.entity("People", key: "russell", query: ODataQuery().select("FirstName"))
        batch.changeset { changes in
            let created = changes.create("People", ODataEntity(properties: ["UserName": "ada"]))
            changes.addLink(from: created.path, navigation: "Friends", to: ODataPath("People").key("russell"))
            changes.delete(ODataPath("People").key("old"), ifMatch: "W/\"1\"")
        }
        let text = try await Self.written(batch, version: .v4)
        let accept = "Accept: application/json;odata.metadata=minimal"
        let expected = [
            "--batch_t",
            "Content-Type: application/http",
            "Content-Transfer-Encoding: binary",
            "",
            "GET People('russell')?$select=FirstName HTTP/1.1",
            accept,
            "",
            "",
            "--batch_t",
            "Content-Type: multipart/mixed; boundary=changeset_t_1",
            "",
            "--changeset_t_1",
            "Content-Type: application/http",
            "Content-Transfer-Encoding: binary",
            "Content-ID: 2",
            "",
            "POST People HTTP/1.1",
            accept,
            "Content-Type: application/json",
            "Content-Length: 18",
            "",
            #"{"UserName":"ada"}"#,
            "--changeset_t_1",
            "Content-Type: application/http",
            "Content-Transfer-Encoding: binary",
            "Content-ID: 3",
            "",
            "POST $2/Friends/$ref HTTP/1.1",
            accept,
            "Content-Type: application/json",
            "Content-Length: 90",
            "",
            #"{"@odata.id":"https://gw.example.edu/sap/opu/odata/sap/ZADMISSIONS_SRV/People('russell')"}"#,
            "--changeset_t_1",
            "Content-Type: application/http",
            "Content-Transfer-Encoding: binary",
            "Content-ID: 4",
            "",
            "DELETE People('old') HTTP/1.1",
            accept,
            "If-Match: W/\"1\"",
            "",
            "",
            "--changeset_t_1--",
            "",
            "--batch_t--",
            "",
        ].joined(separator: "\r\n")
        #expect(text == expected)
    }

    @Test func v4JSON() async throws {
        let text = try await Self.written(Self.sample(format: .json), version: .v4)
        let accept = #""accept":"application/json;odata.metadata=minimal""#
        let expected =
            #"{"requests":["#
            + #"{"id":"1","method":"GET","url":"StudentSet?$top=2","headers":{\#(accept)}},"#
            + #"{"id":"2","atomicityGroup":"g1","method":"POST","url":"StudentSet","#
            + #""headers":{\#(accept),"content-type":"application/json"},"body":{"LastName":"Lovelace"}},"#
            + #"{"id":"3","atomicityGroup":"g1","dependsOn":["2"],"method":"PATCH","url":"$2","#
            + #""headers":{\#(accept),"if-match":"*","content-type":"application/json"},"body":{"FirstName":"Ada"}},"#
            + #"{"id":"4","method":"GET","url":"StudentSet/$count","headers":{"accept":"text/plain"}}"#
            + "]}"
        #expect(text == expected)
    }

    @Test func outerRequestHeadersPerFormat() async throws {
        let service = ServiceDouble().service(.v4, sapClient: "100")
        var batch = Self.sample(format: .json)
        batch.continueOnError = true
        let json = service.batchRequest(try await service.plan(batch), writer: ODataBatchWriter(boundarySeed: "t"))
        #expect(json.method == .post && json.url.absoluteString == ServiceDouble.root + "/$batch?sap-client=100")
        #expect(json.body?.contentType == "application/json" && json.headers["Accept"] == "application/json")
        #expect(json.headers["Prefer"] == "odata.continue-on-error" && json.headers["OData-Version"] == "4.0")
        let multipart = service.batchRequest(
            try await service.plan(Self.sample()), writer: ODataBatchWriter(boundarySeed: "t"))
        #expect(multipart.body?.contentType == "multipart/mixed; boundary=batch_t")
        #expect(multipart.headers["Accept"] == "multipart/mixed" && multipart.headers["Prefer"] == nil)
    }

    @Test func jsonIsRefusedForV2() async throws {
        let error = try await #require(throws: ODataError.self) {
            try await ServiceDouble().service(.v2).plan(Self.sample(format: .json))
        }
        #expect(error.code == .invalidArgument)
    }

    @Test func referencesAndNumbering() {
        var batch = ODataBatch()
        let read = batch.count("A")
        let (first, second) = batch.changeset { changes in
            (changes.create("A", ODataEntity()), changes.create("B", ODataEntity()))
        }
        batch.changeset { _ in }
        let last = batch.changeset { $0.delete(first.path) }
        #expect([read.index, first.index, second.index, last.index] == [Int](0...3))
        #expect(first.contentID == "2" && first.path.text(for: .v4) == "$2" && "\(second)" == "$3")
        #expect(batch.entries.count == 3 && batch.partCount == 4 && batch.requests.map(\.changeset) == [nil, 1, 1, 2])
        #expect(ODataService.referencedIDs(in: ["$2/Visits", "$9", "People", "$2"], before: 3) == ["2"])
    }
}
