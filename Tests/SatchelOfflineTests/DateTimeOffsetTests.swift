import Foundation
import SatchelOData
import SatchelOffline
import SatchelTestSupport
import Testing

/// A DateTimeOffset keeps the offset it was written with: read back from the store as the service sends it, sent
/// with it, and the date functions answer at that offset as the service does (odatapy, V4).
@Suite("Offline store: DateTimeOffset offsets")
struct DateTimeOffsetTests {
    @Test("offsets survive the store; hour() and day() answer at the value's own offset")
    func offsets() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        // 2026-03-01T21:30:00Z, written at +02:00 (23:30 there) and at -05:30 (16:00 there).
        let instant = Date(timeIntervalSince1970: 1_772_400_600)
        for (id, offset) in [(7, 120), (8, -330)] {
            let etag = try await service.entity("Products", key: .single(.int(id))).etag
            try await service.update(
                "Products", key: .single(.int(id)),
                with: ODataEntity(properties: ["Modified": .dateTimeOffset(instant, offsetMinutes: offset)]),
                ifMatch: etag)
        }
        let onlineSeven = try await service.entity("Products", key: .single(.int(7)))["Modified"]
        #expect(onlineSeven == .dateTimeOffset(instant, offsetMinutes: 120), "the service keeps the offset")

        let folder = try offlineTestFolder("offsets")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "p", query: "Products?$filter=ID le 20")])
        try await store.open()
        for (id, offset) in [(7, 120), (8, -330), (9, 0)] {
            let local = try await store.entity("Products", .key(.single(.int(id))))["Modified"]
            let online = try await service.entity("Products", key: .single(.int(id)))["Modified"]
            #expect(local == online, "product \(id)")
            if id != 9 { #expect(local == .dateTimeOffset(instant, offsetMinutes: offset)) }
        }
        for text in [
            "hour(Modified) eq 23", "hour(Modified) eq 16", "day(Modified) eq 1 and ID le 9", "minute(Modified) eq 0",
        ] {
            let query = ODataQuery().filter(try ODataExpression.parse(text, version: .v4))
            let online = try await service.entities("Products", query: query.filter(.property("ID") <= 20))
                .collect().map { $0["ID"] }
            let local = try await store.entities("Products", query: query).map { $0["ID"] }
            #expect(local == online, "\(text)")
        }
        // In UTC both would be 21:30: the offsets decide.
        for (text, id) in [("hour(Modified) eq 23", 7), ("hour(Modified) eq 16", 8)] {
            let query = ODataQuery().filter(try ODataExpression.parse(text, version: .v4))
            #expect(try await store.entities("Products", query: query).contains { $0["ID"] == .int(Int64(id)) })
        }

        // Changed offline at another offset: uploaded with it.
        let later = instant.addingTimeInterval(3600)
        try await store.update(
            "Products", .key(.single(.int(9))),
            with: ODataEntity(properties: ["Modified": .dateTimeOffset(later, offsetMinutes: 60)]))
        #expect(
            try await store.entity("Products", .key(.single(.int(9))))["Modified"]
                == .dateTimeOffset(later, offsetMinutes: 60))
        #expect(try await store.upload().sent == 1)
        #expect(
            try await service.entity("Products", key: .single(.int(9)))["Modified"]
                == .dateTimeOffset(later, offsetMinutes: 60))
        try await store.close()
    }
}
