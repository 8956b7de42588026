import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore

/// A new folder under the system's temporary folder (the caller removes it).
func offlineTestFolder(_ name: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-\(name)-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// The service at `url`, without retries (a failure must show at once).
func offlineTestService(_ url: URL) -> ODataService {
    ODataService(
        configuration: .init(serviceURL: url, http: HTTPClient.Configuration(timeout: .seconds(30), retry: .never)))
}

/// An offline store of the service at `url`, in `folder`.
func offlineTestStore(
    serviceURL url: URL, folder: URL, queries: [OfflineDefiningQuery], key: StoreKey? = StoreKey.random(),
    upload: OfflineUploadMode = .batch(maximumRequests: 100)
) -> OfflineStore {
    OfflineStore(
        configuration: .init(
            service: offlineTestService(url), path: folder.appendingPathComponent("test.store").path,
            definingQueries: queries, key: key, upload: upload))
}

/// Every element of an async sequence, in order.
func collect<Elements: AsyncSequence>(_ sequence: Elements) async throws -> [Elements.Element] {
    var elements: [Elements.Element] = []
    for try await element in sequence { elements.append(element) }
    return elements
}
