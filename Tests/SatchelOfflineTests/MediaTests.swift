import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelTestSupport
import Testing

/// Media streams offline, against odatapy (V4 media entities `Documents`, with media ETags): a defining query with
/// `retrievesStreams` brings the content, content changed or created offline is uploaded (checked on the server), and
/// the same code reads and writes content through `any ODataProvider` online and offline.
@Suite("Offline store: media streams")
struct MediaTests {
    static func document(_ id: Int) -> ODataPath { ODataPath("Documents").key(.single(.int(id))) }

    /// What the seam makes possible: one body for the service and for the store.
    static func appendLine(_ provider: any ODataProvider, to id: Int, _ line: String) async throws -> Data {
        var content = try await provider.mediaContent(document(id))
        content.append(Data(line.utf8))
        try await provider.replaceMediaContent(document(id), with: content, contentType: "text/plain")
        return try await provider.mediaContent(document(id))
    }

    @Test("content comes with the entities, changes and creations go up, server changes come down")
    func streams() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("media")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "docs", query: "Documents", retrievesStreams: true)])
        try await store.open()
        for id in 1...3 {
            let local = try await store.media("Documents", .key(.single(.int(id))))
            #expect(local.data == (try await service.rawValue(Self.document(id))), "document \(id)")
            #expect(local.contentType == "text/plain" && local.etag != nil)
        }

        // The same code online and offline; offline the change waits in the queue.
        let online = try await Self.appendLine(service, to: 1, "online\n")
        let offline = try await Self.appendLine(store, to: 2, "offline\n")
        #expect(String(decoding: online, as: UTF8.self).hasSuffix("online\n"))
        #expect(String(decoding: offline, as: UTF8.self).hasSuffix("offline\n"))
        // Changed twice before the upload: one request, the latest content.
        let twice = try await Self.appendLine(store, to: 2, "again\n")
        #expect(try await store.requests().map(\.method) == ["PUTMEDIA"])
        let created = try await store.createMedia(
            "Documents", data: Data("made offline\n".utf8), contentType: "text/plain",
            properties: ODataEntity(properties: ["Title": .string("Offline")]))
        #expect(try await store.media("Documents", .id(created)).data == Data("made offline\n".utf8))

        #expect(try await store.upload() == OfflineUploadResult(sent: 3, failed: 0, held: 0))
        #expect(try await service.rawValue(Self.document(2)) == twice)
        let made = try await store.entity("Documents", .id(created))
        let madeID = try #require(made["ID"]?.intValue.map(Int.init))
        #expect(try await service.rawValue(Self.document(madeID)) == Data("made offline\n".utf8))
        #expect(try await service.entity(Self.document(madeID))["Title"] == .string("Offline"))

        // Content changed on the server arrives with the next download.
        try await service.replaceMediaContent(
            Self.document(3), with: Data("new on the server\n".utf8), contentType: "text/plain")
        try await store.download()
        #expect(try await store.media("Documents", .id(created)).data == Data("made offline\n".utf8))
        #expect(try await store.media("Documents", .key(.single(.int(3)))).data == Data("new on the server\n".utf8))
        #expect(try await store.media("Documents", .key(.single(.int(1)))).data == online)
        try await store.close()
    }

    @Test("without retrievesStreams there is no content, and a set without streams takes none")
    func noStreams() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let folder = try offlineTestFolder("media-none")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "docs", query: "Documents"), .init(name: "c", query: "Categories")])
        try await store.open()
        let missing = await #expect(throws: OfflineStoreError.self) {
            try await store.media("Documents", .key(.single(.int(1))))
        }
        #expect(missing?.message.contains("retrievesStreams") == true)
        let refused = await #expect(throws: OfflineStoreError.self) {
            try await store.updateMedia(
                "Categories", .key(.single(.int(1))), data: Data(), contentType: "text/plain")
        }
        #expect(refused?.message.contains("no stream") == true)
        try await store.close()
    }

    @Test("content changed on the server meanwhile: 412 to the ErrorArchive; changed again, the fix goes over it")
    func conflict() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("media-conflict")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "docs", query: "Documents", retrievesStreams: true)])
        try await store.open()
        try await service.replaceMediaContent(Self.document(1), with: Data("theirs\n".utf8), contentType: "text/plain")
        try await store.updateMedia(
            "Documents", .key(.single(.int(1))), data: Data("mine\n".utf8), contentType: "text/plain")
        #expect(try await store.upload() == OfflineUploadResult(sent: 0, failed: 1, held: 0))
        let error = try #require(try await store.errors().first)
        #expect(error.httpStatus == 412 && error.requestMethod == "PUTMEDIA", "\(error)")
        #expect(try await service.rawValue(Self.document(1)) == Data("theirs\n".utf8))
        // The app decides: its content wins.
        try await store.updateMedia(
            "Documents", .key(.single(.int(1))), data: Data("mine, again\n".utf8), contentType: "text/plain")
        #expect(try await store.errors().isEmpty)
        #expect(try await store.upload() == OfflineUploadResult(sent: 1, failed: 0, held: 0))
        #expect(try await service.rawValue(Self.document(1)) == Data("mine, again\n".utf8))
        // Content is never part of a transaction.
        let refused = await #expect(throws: OfflineStoreError.self) {
            try await store.updateMedia(
                "Documents", .key(.single(.int(2))), data: Data(), contentType: "text/plain",
                options: OfflineChangeOptions(transactionID: "t"))
        }
        #expect(refused?.message.contains("transaction") == true)
        try await store.close()
    }
}
