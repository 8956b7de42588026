import Foundation
import SatchelHTTP
import SatchelTestSupport
import Testing

@testable import SatchelOData

/// `$batch` against real servers started by the tests: mock-sap (SAP Gateway style V2, multipart, CSRF) and the
/// odatapy V4 reference service (multipart and JSON). A missing peer fails the test.
@Suite("$batch against live peers", .serialized)
struct BatchLiveTests {
    static func gateway(_ sap: MockSAPServer) -> (ODataService, CSRFTokenAuth) {
        let csrf = CSRFTokenAuth()
        var configuration = ODataService.Configuration(
            serviceURL: sap.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"))
        configuration.sapClient = "100"
        configuration.auth = [csrf]
        return (ODataService(configuration: configuration), csrf)
    }

    static func partner(_ id: String, name: String) -> ODataEntity {
        ODataEntity(properties: [
            "BusinessPartnerID": .string(id), "CompanyName": .string(name), "CurrencyCode": "EUR",
            "BusinessPartnerRole": "01", "EmailAddress": "batch@example.edu",
        ])
    }

    @Test func mockSAPReadsAndAChangeset() async throws {
        let sap = try await MockSAPServer.start()
        defer { sap.stop() }
        let (service, csrf) = Self.gateway(sap)
        var batch = ODataBatch()
        let page = batch.page("BusinessPartnerSet", query: ODataQuery().top(2).count())
        let one = batch.entity("BusinessPartnerSet", key: "0100000000")
        let contacts = batch.page(ODataPath("BusinessPartnerSet").key("0100000000").navigate("ToContacts"))
        let (created, updated) = batch.changeset { changes in
            (
                changes.create("BusinessPartnerSet", Self.partner("0999000002", name: "Batch Co")),
                changes.update(
                    "BusinessPartnerSet", key: "0999000002",
                    with: ODataEntity(properties: ["CompanyName": "Batch Co 2"]))
            )
        }
        let count = batch.count("BusinessPartnerSet")
        let response = try await service.send(batch)
        #expect(response.allSucceeded, "\(response.errors)")
        #expect(response.status == 202 && csrf.token != nil)
        let firstPage = try response[page].page()
        #expect(firstPage.entities.count == 2 && firstPage.count != nil)
        #expect(try response[one].entity()["CompanyName"]?.stringValue == "SAP")
        #expect(response[one].etag?.hasPrefix("W/") == true)
        #expect(try response[contacts].page().entities.isEmpty == false)
        #expect(response[created].status == 201)
        #expect(try response[created].entity()["BusinessPartnerID"]?.stringValue == "0999000002")
        #expect(response[updated].status == 204)
        #expect(try response[count].count() == (firstPage.count ?? -1) + 1)
        let stored = try await service.entity("BusinessPartnerSet", key: "0999000002")
        #expect(stored["CompanyName"]?.stringValue == "Batch Co 2")
    }

    @Test func mockSAPFailingChangesetRollsBack() async throws {
        let sap = try await MockSAPServer.start()
        defer { sap.stop() }
        let (service, _) = Self.gateway(sap)
        var missingKey = Self.partner("", name: "No key")
        missingKey.properties["BusinessPartnerID"] = nil
        let response = try await service.batch { batch in
            batch.count("BusinessPartnerSet")
            batch.changeset { changes in
                changes.create("BusinessPartnerSet", Self.partner("0999000003", name: "Rolled back"))
                changes.create("BusinessPartnerSet", missingKey)
            }
            batch.entity("BusinessPartnerSet", key: "0100000000")
        }
        #expect(response[0].succeeded && response[3].succeeded)
        for result in response[1...2] {
            #expect(result.error?.code == .badRequest && result.status == 400)
            #expect(result.error?.message.contains("BusinessPartnerID") == true)
            #expect(result.error?.serviceCode == "/IWBEP/CX_MGW_BUSI_EXCEPTION")
        }
        let gone = try await #require(throws: ODataError.self) {
            try await service.entity("BusinessPartnerSet", key: "0999000003")
        }
        #expect(gone.code == .notFound)
    }

    // MARK: odatapy V4

    @Test(arguments: [ODataBatchFormat.multipart, .json])
    func odatapyReadsAndAChangesetWithReferences(format: ODataBatchFormat) async throws {
        let peer = try await ODataPyServer.start()
        defer { peer.stop() }
        let service = ODataService(configuration: .init(serviceURL: peer.serviceURL))
        let id = format == .json ? 951 : 950
        var batch = ODataBatch(format: format)
        let page = batch.page("Products", query: ODataQuery().top(2).count())
        let one = batch.entity("Products", key: 7)
        let navigation = batch.page(ODataPath("Categories").key(1).navigate("Products"), query: .init().top(3))
        let (created, updated, linked) = batch.changeset { changes in
            let created = changes.create("Products", ODataEntity(properties: ["ID": .int(Int64(id)), "Name": "Batch"]))
            return (
                created,
                changes.update(created.path, with: ODataEntity(properties: ["Name": "Batch 2"]), ifMatch: "*"),
                changes.addLink(
                    from: created.path, navigation: "Category", to: ODataPath("Categories").key(2),
                    replace: true)
            )
        }
        let count = batch.count("Products")
        let response = try await service.send(batch)
        #expect(response.allSucceeded, "\(response.errors)")
        #expect(try response[page].page().count == 250 && response[page].page().entities.count == 2)
        #expect(try response[one].entity()["Name"]?.stringValue == "Product 007")
        #expect(response[one].etag != nil)
        #expect(try response[navigation].page().entities.count == 3)
        #expect(try response[created].entity()["ID"]?.intValue == Int64(id) && response[created].etag == "W/\"1\"")
        #expect(response[updated].status == 204 && response[linked].succeeded)
        #expect(try response[count].count() == 251)
        let stored = try await service.entity("Products", key: .single(.int(id)))
        #expect(stored["Name"]?.stringValue == "Batch 2")
        let category = try await service.entity(ODataPath("Products").key(.single(.int(id))).navigate("Category"))
        #expect(category["ID"]?.intValue == 2)
    }

    @Test(arguments: [ODataBatchFormat.multipart, .json])
    func odatapyFailingChangeset(format: ODataBatchFormat) async throws {
        let peer = try await ODataPyServer.start()
        defer { peer.stop() }
        let service = ODataService(configuration: .init(serviceURL: peer.serviceURL))
        func build(_ batch: inout ODataBatch) {
            batch.changeset { changes in
                changes.create("Products", ODataEntity(properties: ["ID": 960, "Name": "Rolled back"]))
                // No If-Match on an entity with an ETag: the service answers 428.
                changes.update("Products", key: 1, with: ODataEntity(properties: ["Name": "x"]))
            }
            batch.count("Products")
        }
        var stopping = ODataBatch(format: format)
        build(&stopping)
        let stopped = try await service.send(stopping)
        for result in stopped.prefix(2) {
            #expect(result.error?.code == .preconditionRequired && result.status == 428)
        }
        #expect(stopped[2].error?.code == .notExecuted && stopped[2].status == nil)
        var going = ODataBatch(format: format, continueOnError: true)
        build(&going)
        let continued = try await service.send(going)
        #expect(continued[0].error?.code == .preconditionRequired && continued[1].error?.code == .preconditionRequired)
        #expect(try continued[2].count() == 250)
        let gone = try await #require(throws: ODataError.self) { try await service.entity("Products", key: 960) }
        #expect(gone.code == .notFound)
    }
}
