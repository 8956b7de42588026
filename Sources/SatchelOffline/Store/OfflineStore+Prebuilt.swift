import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelStore
import SatchelText
import Synchronization

/// A first open through Satchel's offline middle tier: the store arrives whole, built on the server, instead of
/// entity by entity (docs/offline-server.md, "Prebuilt stores").
extension OfflineStore {
    /// The middle tier's resource that answers a prebuilt store, under the service root.
    package static let prebuiltResource = "$satchel.store"
    /// The response header that carries the one-time key the store arrives sealed with (base64, 32 bytes).
    package static let transferKeyHeader = "Satchel-Transfer-Key"
    /// The media type of a prebuilt store.
    package static let storeMediaType = "application/vnd.satchel.store"
    /// Answers after which the open downloads as from any service: no prebuilt stores here (404, 405, 501), not over
    /// this connection (403: plain HTTP), too large (413), or not now (503: builds busy).
    static let downloadsInstead: Set<Int> = [403, 404, 405, 413, 501, 503]

    /// What the client asks a prebuilt store for: its defining queries (`{"definingQueries": [{"name", "query",
    /// "streams", "track"}]}`).
    static func prebuiltRequestBody(_ queries: [OfflineDefiningQuery]) -> Data {
        let list = queries.map { query -> JSONValue in
            [
                "name": .string(query.name), "query": .string(query.query),
                "streams": .bool(query.retrievesStreams), "track": .string(query.deltaTracking.rawValue),
            ]
        }
        return Data(JSONValue.object(["definingQueries": .array(list)]).serialized())
    }

    /// Asks the middle tier for a store built on the server and puts it at the configured path, sealed under the
    /// configured key: the file arrives sealed under a one-time transfer key (from the answer's
    /// ``transferKeyHeader``), and its pages are opened and sealed again here (``StoreFile/changeKey(from:to:)``),
    /// so the server never learns the device's key. Returns false when the service answers no store
    /// (``downloadsInstead``): the open then downloads as from any service. Nothing is at the configured path until
    /// the store is whole and sealed.
    func receivePrebuiltStore() async throws -> Bool {
        let path = configuration.path
        let transfer = path + ".transfer"
        try? FileManager.default.removeItem(atPath: transfer)
        let service = configuration.service
        var root = service.configuration.serviceURL.absoluteString
        if !root.hasSuffix("/") { root += "/" }
        guard let url = URL(string: root + Self.prebuiltResource) else {
            throw OfflineStoreError(.prebuiltStore, "no prebuilt-store URL under \(root)")
        }
        var headers = HTTPClient.Headers()
        headers.add("Accept", Self.storeMediaType + ", application/json")
        let request = HTTPClient.Request(
            .post, url: url, headers: headers,
            body: .data(Self.prebuiltRequestBody(configuration.definingQueries), contentType: "application/json"),
            operation: "receive the prebuilt store")
        signals.emit(.receivingStore)
        let signals = signals
        let counted = Mutex<Int64>(0)
        let response: HTTPClient.Response
        do {
            response = try await service.client.download(request, to: URL(fileURLWithPath: transfer)) { progress in
                guard progress.direction == .download else { return }
                let added = counted.withLock { done in
                    defer { done = progress.bytesDone }
                    return progress.bytesDone - done
                }
                if added > 0 { signals.count(received: Int(added)) }
            }
        } catch let error as HTTPTransferError {
            try? FileManager.default.removeItem(atPath: transfer)
            if let status = error.status, Self.downloadsInstead.contains(status) { return false }
            throw ODataError(http: error)
        } catch {
            try? FileManager.default.removeItem(atPath: transfer)
            throw error
        }
        do {
            guard let text = response.headers[Self.transferKeyHeader], let bytes = Data(base64Encoded: text),
                bytes.count == 32
            else {
                throw ODataError(
                    .invalidPayload,
                    "the prebuilt store from \(url.absoluteString) came without a valid \(Self.transferKeyHeader)"
                        + " header (base64 of 32 bytes)")
            }
            let transferKey = try StoreKey.raw(bytes)
            signals.emit(.resealing)
            let key = configuration.key
            try await BlockingWork.shared.run {
                if let key {
                    try StoreFile(path: transfer).changeKey(from: transferKey, to: key)
                    guard rename(transfer, path) == 0 else {
                        throw OfflineStoreError(
                            .prebuiltStore,
                            "cannot move the prebuilt store to \(path): \(String(cString: strerror(errno)))")
                    }
                } else {
                    // A store without a key is plaintext: the transfer copy is written out in the clear.
                    try StoreFile(path: transfer).export(key: transferKey, to: path)
                    try? FileManager.default.removeItem(atPath: transfer)
                }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: transfer)
            throw error
        }
        return true
    }
}
