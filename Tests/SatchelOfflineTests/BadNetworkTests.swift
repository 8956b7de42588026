import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// One open/upload/download cycle through a fault-injecting proxy (200 ms latency, responses cut at random bytes,
/// one change whose response is lost after the server applied it), retried the way an app retries: the server
/// and the store end as in a clean run.
@Suite("Offline store: a bad network")
struct BadNetworkTests {
    /// Runs `operation` until it succeeds, at most `attempts` times and for at most two minutes; only connection
    /// failures are retried.
    static func retrying<T>(_ attempts: Int = 25, _ operation: () async throws -> T) async throws -> T {
        var attempt = 1
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            do { return try await operation() } catch let error as ODataError
                where error.code == .connection || error.code == .invalidPayload
            {
                guard attempt < attempts, ContinuousClock.now < deadline else { throw error }
                attempt += 1
            }
        }
    }

    @Test("a creation whose answer was lost, then deleted offline: the server does not keep it")
    func deleteAfterLostCreate() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let proxy = try FaultyTCPProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        let direct = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("lost")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: proxy.url.appendingPathComponent("odata"), folder: folder,
            queries: [.init(name: "few", query: "Products?$filter=ID le 5")])
        try await store.open()
        let id = try await store.create(
            "Products",
            ODataEntity(properties: ["ID": .int(9300), "Name": .string("lost answer"), "CategoryID": .int(1)]))
        proxy.dropResponse(toNext: "POST")
        await #expect(throws: (any Error).self) { try await store.upload() }
        // The server has it; the store does not know. Deleting it offline must delete it there too.
        #expect(try await direct.entity("Products", key: .single(.int(9300)))["Name"]?.stringValue == "lost answer")
        try await store.delete("Products", .id(id))
        #expect(try await store.requests().map(\.method) == ["POST", "DELETE"])
        let result = try await store.upload()
        #expect(result.sent == 2 && result.failed == 0)
        await #expect(throws: ODataError.self) { try await direct.entity("Products", key: .single(.int(9300))) }
        #expect(try await store.count("Products", query: ODataQuery().filter(.property("ID") == 9300)) == 0)
        try await store.close()
    }

    @Test func cycleThroughFaults() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 25, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let proxy = try FaultyTCPProxy(
            upstreamPort: server.port, faults: .init(latency: .milliseconds(200), cutProbability: 0.25))
        defer { proxy.stop() }
        let direct = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("net")
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = OfflineStore.Configuration(
            service: offlineTestService(proxy.url.appendingPathComponent("odata")),
            path: folder.appendingPathComponent("net.store").path,
            definingQueries: [.init(name: "some", query: "Products?$filter=ID le 60")], key: StoreKey.random())

        // Open: an interrupted initial download never leaves a store that claims to be complete.
        var store = OfflineStore(configuration: configuration)
        try await Self.retrying {
            store = OfflineStore(configuration: configuration)
            do {
                try await store.open()
            } catch {
                // Failed before the store was open (reading $metadata): nothing to claim. Else: not complete.
                if store.isOpen { #expect(try await !store.isInitialDownloadComplete) }
                try? await store.close()
                throw error
            }
        }
        #expect(try await store.count("Products") == 60)

        // Local changes on four entities, uploaded in one `$batch`; its response is lost after the server applied
        // it. The same batch goes again with the same repeatability id and is answered from what the server kept.
        try await store.update("Products", .key(.single(.int(7))), with: ODataEntity(properties: ["Stock": .int(707)]))
        try await store.update("Products", .key(.single(.int(8))), with: ODataEntity(properties: ["Stock": .int(808)]))
        try await store.create(
            "Products",
            ODataEntity(properties: ["ID": .int(9100), "Name": .string("through faults"), "CategoryID": .int(1)]))
        try await store.delete("Products", .key(.single(.int(9))))
        proxy.dropResponse(toNext: "POST")
        try await Self.retrying {
            _ = try await store.upload()
            let errors = try await store.errors()
            #expect(errors.isEmpty, "\(errors)")
            guard errors.isEmpty else { return }
            guard try await store.requests().isEmpty else { throw ODataError(.connection, "requests left") }
        }
        #expect(try await store.errors().isEmpty)
        #expect(proxy.droppedResponses == 1)

        // A change on the server, downloaded through the faults.
        let current = try await direct.entity("Products", key: .single(.int(10)))
        try await direct.update(
            "Products", key: .single(.int(10)), with: ODataEntity(properties: ["Name": .string("server side")]),
            ifMatch: current.etag)
        try await Self.retrying { try await store.download() }

        // The server as a clean run leaves it: each change once.
        #expect(try await direct.entity("Products", key: .single(.int(7)))["Stock"]?.intValue == 707)
        #expect(try await direct.entity("Products", key: .single(.int(8)))["Stock"]?.intValue == 808)
        #expect(try await direct.entity("Products", key: .single(.int(9100)))["Name"]?.stringValue == "through faults")
        await #expect(throws: ODataError.self) { try await direct.entity("Products", key: .single(.int(9))) }
        // The store equals the server for its defining query.
        let query = ODataQuery().filter(.property("ID") <= 60 || .property("ID") == 9100).orderBy("ID")
        let online = try await direct.entities("Products", query: query).collect()
        let local = try await store.entities("Products", query: query)
        func rows(_ entities: [ODataEntity]) -> [String] {
            entities.map {
                "\($0["ID"]?.intValue ?? 0) \($0["Name"]?.stringValue ?? "") \($0["Stock"]?.intValue ?? -1)"
            }
        }
        #expect(rows(local).filter { !$0.hasPrefix("9100 ") } == rows(online).filter { !$0.hasPrefix("9100 ") })
        #expect(rows(local).contains { $0.hasPrefix("9100 ") })
        let counts = try await server.repeatability()
        #expect(counts.replayed > 0, "the lost batch was sent again and answered: \(counts)")
        try await store.close()
    }
}
