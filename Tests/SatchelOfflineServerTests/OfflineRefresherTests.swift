import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelOfflineServer
import SatchelRepository
import SatchelTestSupport
import Testing

/// The middle tier's refresh against odatapy (V4): a full read, then a change on the back-end, carried as one
/// changed row, through the back-end's delta link (`AUTO`) and through the middle tier's own comparison (`ALWAYS`).
@Suite("Offline middle tier: refresh from a back-end")
struct OfflineRefresherTests {
    @Test("one entity changed on the back-end is one changed row, with or without the back-end's deltas")
    func changesAreRows() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 2, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(
            configuration: .init(
                serviceURL: server.serviceURL, http: HTTPClient.Configuration(timeout: .seconds(30), retry: .never)))
        let all = try await service.entities("Categories").collect()
        #expect(all.count > 2, "more than one page: \(all.count)")
        let refresher = OfflineRefresher(store: MemoryMetadataStore())

        for (tracking, id) in [(OfflineDeltaTracking.auto, 1), (.always, 2)] {
            let query = OfflineQueryID(endpoint: "shop", query: "categories-\(tracking)", scope: OfflineQueryID.shared)
            let definingQuery = OfflineDefiningQuery(name: "categories", query: "Categories", deltaTracking: tracking)
            let first = try await refresher.refresh(query, definingQuery: definingQuery, service: service)
            #expect(first.refresh.added == all.count && first.refresh.state.version == 1, "\(tracking)")
            #expect(!first.usedBackendDelta && first.pages > 1)
            #expect((first.refresh.state.backendDeltaLink != nil) == (tracking == .auto), "\(tracking)")

            // Nothing changed: the version stays.
            let same = try await refresher.refresh(query, definingQuery: definingQuery, service: service)
            #expect(same.refresh.state.version == 1 && same.refresh.changed == 0 && same.refresh.added == 0)

            try await service.update(
                "Categories", key: .single(.int(id)), with: ODataEntity(properties: ["Name": .string("renamed \(id)")]))
            let second = try await refresher.refresh(query, definingQuery: definingQuery, service: service)
            #expect(second.usedBackendDelta == (tracking == .auto), "\(tracking)")
            #expect(second.refresh.changed == 1 && second.refresh.added == 0 && second.refresh.removed == 0)
            #expect(second.refresh.state.rows == all.count)
            let changes = try await refresher.store.offlineChanges(query, since: 1, after: nil, limit: 100)
            #expect(changes.rows.map(\.key) == ["(\(id))"] && changes.removedKeys.isEmpty, "\(tracking)")
            #expect(String(decoding: changes.rows[0].body, as: UTF8.self).contains("renamed \(id)"))
        }
    }
}
