import Foundation
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// Local paging and the path-shaped API: the store answers in pages of the size asked, with the same elements and
/// the same result as the service online, and takes the same paths for reads and changes.
@Suite("Offline store: local paging, one shape online and offline")
struct LocalPagingTests {
    @Test("pages of the size asked, bounded by $top and $skip, equal to one read and to the service's answer")
    func pagesAndSequences() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("paging")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "p", query: "Products?$filter=CategoryID le 3")])
        try await store.open()
        let path = ODataPath("Products")
        let query = ODataQuery().filter(.property("CategoryID") <= 3).orderBy("Price", descending: true)
        let whole = try await store.entities(path, query: query)
        #expect(whole.count > 100)

        var sizes: [Int] = []
        var paged: [ODataEntity] = []
        for try await page in store.pages(path, query: query, pageSize: 40) {
            sizes.append(page.entities.count)
            paged += page.entities
        }
        #expect(sizes.dropLast().allSatisfy { $0 == 40 } && (sizes.last ?? 0) <= 40, "\(sizes)")
        #expect(paged.map { $0["ID"] } == whole.map { $0["ID"] })
        // The same elements and the same result as online.
        let online = try await service.entities(path, query: query).collect()
        #expect(paged.map { $0["ID"] } == online.map { $0["ID"] })
        #expect(
            try await store.entitySequence(path, query: query, pageSize: 7).collect().map { $0["ID"] }
                == online.map { $0["ID"] })

        // $top and $skip bound the whole result; the first page carries the count when asked.
        var bounded = query
        bounded.top = 95
        bounded.skip = 10
        bounded.includeCount = true
        var boundedSizes: [Int] = []
        var counts: [Int64?] = []
        var boundedIDs: [ODataValue?] = []
        for try await page in store.pages(path, query: bounded, pageSize: 40) {
            boundedSizes.append(page.entities.count)
            counts.append(page.count)
            boundedIDs += page.entities.map { $0["ID"] }
        }
        #expect(boundedSizes == [40, 40, 15], "\(boundedSizes)")
        #expect(counts == [Int64(whole.count), nil, nil], "\(counts)")
        #expect(boundedIDs == Array(whole.dropFirst(10).prefix(95)).map { $0["ID"] })

        // Nothing selected: one empty page, as online.
        let none = ODataQuery().filter(.property("ID") == -1)
        var emptyPages = 0
        for try await page in store.pages(path, query: none) {
            emptyPages += 1
            #expect(page.entities.isEmpty)
        }
        #expect(emptyPages == 1)
        try await store.close()
    }

    @Test("reads and changes by path, as online")
    func pathShapedChanges() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("paths")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()
        let three = ODataPath("Products").key(.single(.int(3)))
        try await store.update(three, with: ODataEntity(properties: ["Stock": .int(303)]))
        #expect(try await store.entity(three)["Stock"]?.intValue == 303)
        try await store.create(
            ODataPath("Products"),
            ODataEntity(properties: ["ID": .int(7601), "Name": "by path", "CategoryID": .int(1)]))
        let created = ODataPath("Products").key(.single(.int(7601)))
        #expect(try await store.entity(created)["Name"]?.stringValue == "by path")
        await #expect(throws: OfflineStoreError.self) {
            try await store.create(three, ODataEntity(properties: ["ID": .int(7602)]))
        }
        #expect(try await store.upload().sent == 2)
        #expect(try await service.entity(three)["Stock"]?.intValue == 303)
        #expect(try await service.entity(created)["Name"]?.stringValue == "by path")
        try await store.close()
    }
}
