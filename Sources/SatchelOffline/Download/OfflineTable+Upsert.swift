import Foundation
import GRDB
import SatchelOData
import SatchelStore
import Synchronization

extension OfflineTable {
    /// Inserts or updates one downloaded entity by its key: `_etag`, then `columns` (a row keeps its other
    /// columns); returns the row's id. A row with local changes not uploaded yet keeps them (its upload then meets
    /// the server's ETag) and returns nothing.
    func upsertSQL(columns: [OfflineColumn]) -> String {
        let names = ["_etag"] + columns.map(\.sql)
        let keys = keyPaths.compactMap { column($0)?.sql }
        let updates = names.filter { !keys.contains($0) }.map { "\($0) = excluded.\($0)" }
        return """
            INSERT INTO \(sql) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))
            ON CONFLICT (\(keys.joined(separator: ", "))) DO UPDATE SET \(updates.joined(separator: ", ")) WHERE _state = 0
            RETURNING _id
            """
    }
}
