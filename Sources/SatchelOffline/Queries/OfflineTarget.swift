import Foundation
import GRDB
import SatchelOData
import SatchelStore
import Synchronization

/// What a read path names: an entity set, or the related entities of one entity (`Set(key)/Navigation`).
struct OfflineTarget {
    let table: OfflineTable
    /// For a navigation: the entity it starts from, and how it relates.
    let source: (table: OfflineTable, key: ODataKey, relationship: OfflineRelationship)?

    init(path: ODataPath, schema: OfflineSchema) throws(OfflineStoreError) {
        let parts = path.segments
        if parts.count == 1, let set = parts[0].entitySetName {
            table = try schema.table(set)
            source = nil
            return
        }
        if parts.count == 3, let set = parts[0].entitySetName, case .key(let key) = parts[1],
            let navigation = parts[2].entitySetName
        {
            let from = try schema.table(set)
            let relationship = try schema.relationship(from: from, navigation: navigation)
            table = relationship.target
            source = (from, key, relationship)
            return
        }
        throw OfflineStoreError(
            .unsupported, "the offline store reads entity sets and Set(key)/Navigation; not \(path)")
    }

    /// The condition a navigation puts on the target's rows (none for an entity set).
    func restriction(db: Database) throws -> OfflineSQL? {
        guard let source else { return nil }
        let row = try OfflineStore.row(db, table: source.table, .key(source.key))
        return source.relationship.restriction(toSourceRow: row)
    }
}
