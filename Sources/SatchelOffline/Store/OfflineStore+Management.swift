import Foundation
import GRDB
import SatchelText
import SatchelOData
import SatchelStore

extension OfflineStore {
    /// Gives up the pending changes of one entity: its queued requests (and their ErrorArchive entries) are dropped
    /// and it returns to what was last downloaded (an entity created offline is removed).
    public func undoPendingChanges(_ entitySet: String, _ reference: EntityReference) async throws {
        let opened = try current()
        let table = try opened.schema.table(entitySet)
        try await opened.store.database.write { db in
            let row = try Self.row(db, table: table, reference, includingDeleted: true)
            try Self.restore(db, table: table, schema: opened.schema, entityID: row["_id"])
        }
    }

    /// Drops an entity's queued requests and errors and restores its downloaded values (or removes it when it
    /// was created offline).
    static func restore(_ db: Database, table: OfflineTable, schema: OfflineSchema, entityID: Int64) throws {
        // Entities created inline with a creation dropped here never reached the server.
        try OfflineDeepInsert.dropChildren(
            ofRequestsOn: OfflineEntityRef(entitySet: table.entitySet, entityID: entityID), schema: schema, db: db)
        try db.execute(
            sql: "DELETE FROM q_errors WHERE entity_set = ? AND entity_id = ?", arguments: [table.entitySet, entityID])
        try db.execute(
            sql: "DELETE FROM q_requests WHERE entity_set = ? AND entity_id = ?",
            arguments: [table.entitySet, entityID])
        // Content changed here goes back to the server's at the next download.
        try db.execute(
            sql: "DELETE FROM s_media WHERE entity_set = ? AND entity_id = ? AND local = 1",
            arguments: [table.entitySet, entityID])
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT _state, _server FROM \(table.sql) WHERE _id = ?", arguments: [entityID])
        else { return }
        // A downloaded row without changes holds the server's values already.
        if row["_state"] as Int == OfflineState.downloaded.rawValue { return }
        guard let server = row["_server"] as String? else {
            // Created offline: nothing on the server to go back to.
            try db.execute(sql: "DELETE FROM \(table.sql) WHERE _id = ?", arguments: [entityID])
            try forgetRow(OfflineEntityRef(entitySet: table.entitySet, entityID: entityID), db: db)
            return
        }
        let values = OfflineQueue.decode(server, table: table)
        let restored = table.columns.map { column in
            values.first(where: { $0.column.path == column.path })?.value ?? .null
        }
        try db.execute(
            sql: """
                UPDATE \(table.sql) SET \(table.columns.map { "\($0.sql) = ?" }.joined(separator: ", ")), _state = 0, _server = NULL
                WHERE _id = ?
                """,
            arguments: StatementArguments(restored + [entityID.databaseValue]))
    }

    /// Adds a defining query to an open store; its data arrives with the next ``download()``.
    public func addDefiningQuery(_ query: OfflineDefiningQuery) async throws {
        let opened = try current()
        _ = try query.shape(version: opened.version, schema: opened.schema)
        try await opened.store.database.write { db in
            try db.execute(
                sql: "INSERT INTO s_defining_queries (name, query, streams, track) VALUES (?, ?, ?, ?)",
                arguments: [query.name, query.query, query.retrievesStreams, query.deltaTracking.rawValue])
        }
    }

    /// Removes a defining query: the entities only it brought (and without local changes) leave the store.
    public func removeDefiningQuery(named name: String) async throws {
        let opened = try current()
        try await opened.store.database.write { db in
            try db.execute(sql: "DELETE FROM s_defining_queries WHERE name = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM s_members WHERE query = ?", arguments: [name])
            try Self.removeUnnamedRows(
                in: opened.schema.tables.values.sorted { $0.entitySet < $1.entitySet }, db: db)
        }
    }

    /// Closes the store and deletes its local database (no server call). While requests wait in the queue (changes
    /// not uploaded yet, ErrorArchive entries not settled) it refuses with ``OfflineStoreError/Code/pendingRequests``, unless `force`: then
    /// they are lost with the rest. A closed store is opened (locally, with its key) to look at its queue.
    public func clear(force: Bool = false) async throws {
        if !force {
            let wasOpen = isOpen
            if !wasOpen, FileManager.default.fileExists(atPath: configuration.path) {
                do {
                    try await open(resuming: false, localOnly: true)
                } catch let error as OfflineStoreError where error.code == .noLocalStore {
                    // A store whose first open never stored its `$metadata` has no queue to lose. Any other failure
                    // (a wrong key, a damaged file) is thrown: nothing is removed that could not be looked at.
                }
            }
            if isOpen {
                let pending = try await requests().count
                if pending > 0 {
                    if !wasOpen { try await close() }
                    throw OfflineStoreError(
                        .pendingRequests,
                        "\(pending) request(s) are still queued in \(configuration.path) (not uploaded, or refused and "
                            + "not settled): upload or revert them first, or remove the store with force")
                }
            }
        }
        try await close()
        try await BlockingWork.shared.run { [path = configuration.path] in try StoreFile(path: path).destroy() }
    }

    /// Prepares a store built on the middle tier for the client that asked for it: delta links made under
    /// `oldRoot` point under `newRoot` (the root the client reaches the middle tier at), and each defining query of
    /// `clientQueries` the store holds takes the client's own spelling of its text and its delta tracking, so the
    /// client's open finds its queries as it wrote them and keeps them complete, with their delta links.
    package func handOver(
        linksFrom oldRoot: String, to newRoot: String, clientQueries: [OfflineDefiningQuery]
    ) async throws {
        let opened = try current()
        try await opened.store.database.write { db in
            if oldRoot != newRoot {
                try db.execute(
                    sql: """
                        UPDATE s_defining_queries SET delta_link = ? || substr(delta_link, ?)
                        WHERE substr(delta_link, 1, ?) = ?
                        """,
                    arguments: [
                        newRoot, oldRoot.unicodeScalars.count + 1, oldRoot.unicodeScalars.count, oldRoot,
                    ])
            }
            for query in clientQueries {
                try db.execute(
                    sql: "UPDATE s_defining_queries SET query = ?, track = ? WHERE name = ?",
                    arguments: [query.query, query.deltaTracking.rawValue, query.name])
            }
        }
    }

}
