import Foundation
import GRDB
import SatchelHTTP
public import SatchelOData
import SatchelStore

/// `$batch` against the store (docs/offline.md, "The seam"): the same ``SatchelOData/ODataBatch`` an app sends to the
/// service.
extension OfflineStore {
    /// Runs a batch as the service would, against the store: reads are answered from it; the changes of a changeset
    /// are made in one local transaction (all or none) and queued under one transaction id, so the upload sends them
    /// in one changeset; a change outside changesets is queued on its own. `$n` names an entity created earlier in
    /// the same changeset, as a path or in a binding. Operations are the service's: their parts fail with
    /// `notSupported`.
    public func send(_ batch: ODataBatch) async throws -> ODataBatchResponse {
        let opened = try current()
        var results: [ODataBatchResult] = []
        for entry in batch.entries {
            switch entry {
            case .request(let request):
                if case .read = request.operation {
                    results.append(await read(request, opened: opened))
                } else {
                    results += try await change([request], transaction: nil, opened: opened)
                }
            case .changeset(let requests):
                results += try await change(
                    requests, transaction: "batch-" + UUID().uuidString.lowercased(), opened: opened)
            }
        }
        return ODataBatchResponse(results: results, status: 200)
    }

    private func read(_ request: ODataBatchRequest, opened: Opened) async -> ODataBatchResult {
        guard case .read(let path, let query, let expectation) = request.operation else {
            return Self.failed(request, OfflineStoreError(.unsupported, "not a read"))
        }
        var result = Self.result(for: request, status: 200)
        do {
            switch expectation {
            case .page: result.content = .page(ODataPage(entities: try await entities(path, query: query)))
            case .count: result.content = .count(Int64(try await countEntities(at: path, query: query)))
            case .entity:
                let (set, key) = try Self.address(path)
                guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
                result.content = .entity(try await entity(set, .key(key), query: query))
            }
            return result
        } catch {
            return Self.failed(request, error)
        }
    }

    /// The changes of one changeset (or one change alone), in one local transaction: a failure undoes them all and
    /// every part answers with it.
    private func change(
        _ requests: [ODataBatchRequest], transaction: String?, opened: Opened
    ) async throws -> [ODataBatchResult] {
        let serviceURL = configuration.service.configuration.serviceURL
        let options = OfflineChangeOptions(transactionID: requests.count > 1 ? transaction : nil)
        do {
            return try await opened.store.database.write { db in
                var created: [String: (set: String, id: Int64)] = [:]
                var results: [ODataBatchResult] = []
                for request in requests {
                    do {
                        results.append(
                            try Self.change(
                                request, created: &created, options: options, opened: opened,
                                serviceURL: serviceURL, db: db))
                    } catch {
                        throw OfflineBatchFailure(request: request, error: error)
                    }
                }
                return results
            }
        } catch let failure as OfflineBatchFailure {
            return requests.map { Self.failed($0, failure.error) }
        }
    }

    /// One change of a batch, made locally.
    private static func change(
        _ request: ODataBatchRequest, created: inout [String: (set: String, id: Int64)], options: OfflineChangeOptions,
        opened: Opened, serviceURL: URL?, db: Database
    ) throws -> ODataBatchResult {
        /// A path: `$n` (an entity created earlier here) or `Set(key)`.
        func target(_ path: ODataPath) throws -> (set: String, reference: EntityReference) {
            if let entry = created[path.description] { return (entry.set, .id(entry.id)) }
            let (set, key) = try address(path)
            guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
            return (set, .key(key))
        }
        /// A path naming `$n` names the entity created earlier in the changeset by its read link.
        func path(_ path: ODataPath) -> String {
            created[path.description].map { "\($0.set)(\(OfflineLinks.entityIDKey)=\($0.id))" } ?? path.description
        }
        /// Bindings naming `$n` name the entity created earlier in the changeset by its read link.
        func resolved(_ entity: ODataEntity) -> ODataEntity {
            var entity = entity
            for (navigation, paths) in entity.bindings {
                entity.bindings[navigation] = paths.map { path in
                    created[path].map { "\($0.set)(\(OfflineLinks.entityIDKey)=\($0.id))" } ?? path
                }
            }
            return entity
        }
        switch request.operation {
        case .create(let path, let entity):
            let (set, key) = try address(path)
            guard key == nil else {
                throw OfflineStoreError(.unsupported, "the offline store creates in entity sets, not \(path)")
            }
            let id = try create(set, resolved(entity), options: options, opened: opened, serviceURL: serviceURL, db: db)
            created[request.reference.description] = (set, id)
            var result = Self.result(for: request, status: 201)
            let table = try opened.schema.table(set)
            let select = try OfflineSelect(table: table, query: ODataQuery(), version: opened.version)
            result.content = .entity(select.entity(from: try row(db, table: table, .id(id))))
            return result
        case .update(let path, let entity, let method, _):
            let (set, reference) = try target(path)
            try update(
                set, reference, with: resolved(entity), method: method, options: options, opened: opened,
                serviceURL: serviceURL, db: db)
        case .delete(let path, _):
            let (set, reference) = try target(path)
            try delete(set, reference, options: options, opened: opened, db: db)
        case .addLink(let source, let navigation, let linked, _):
            let (set, reference) = try target(source)
            try link(
                set, reference, navigation: navigation, target: path(linked), removing: false, options: options,
                opened: opened, serviceURL: serviceURL, db: db)
        case .removeLink(let source, let navigation, let linked):
            let (set, reference) = try target(source)
            try link(
                set, reference, navigation: navigation, target: linked.map(path), removing: true, options: options,
                opened: opened, serviceURL: serviceURL, db: db)
        case .call(let name, _, _):
            throw OfflineStoreError(.unsupported, "\(name) is an operation of the service: call it online")
        case .read:
            throw OfflineStoreError(.invalidChange, "a read inside a changeset")
        }
        return Self.result(for: request, status: 204)
    }

    private static func result(for request: ODataBatchRequest, status: Int) -> ODataBatchResult {
        let (method, path): (HTTPClient.Method, ODataPath) =
            switch request.operation {
            case .read(let path, _, _): (.get, path)
            case .create(let path, _): (.post, path)
            case .update(let path, _, let method, _): (method == .replace ? .put : .patch, path)
            case .delete(let path, _): (.delete, path)
            case .addLink(let path, _, _, _): (.post, path)
            case .removeLink(let path, _, _): (.delete, path)
            case .call(let name, _, let bound): (.post, bound?.navigate(name) ?? ODataPath(name))
            }
        return ODataBatchResult(
            reference: request.reference, operation: "\(method) \(path) (offline)", method: method,
            url: path.description, status: status)
    }

    private static func failed(_ request: ODataBatchRequest, _ error: any Error) -> ODataBatchResult {
        var result = result(for: request, status: 400)
        var failure: ODataError
        if let offline = error as? OfflineStoreError {
            // The part answers as a service would: the status says what the store's own error means.
            let code: ODataError.Code =
                switch offline.status {
                case 404: .notFound
                case 501: .notSupported
                case 409: .conflict
                default: .invalidArgument
                }
            failure = ODataError(code, offline.message, underlying: offline)
            failure.status = offline.status
        } else {
            failure = error as? ODataError ?? ODataError(.invalidArgument, "\(error)", underlying: error)
        }
        if failure.status == nil {
            failure.status =
                switch failure.code {
                case .notFound: 404
                case .notSupported: 501
                case .conflict: 409
                default: 400
                }
        }
        result.status = failure.status
        result.error = failure
        return result
    }
}

/// A change of a batch that failed locally: its changeset is undone.
private struct OfflineBatchFailure: Error {
    let request: ODataBatchRequest
    let error: any Error
}
