import Foundation
import GRDB

/// A loaded hierarchy, read from the cache with the network off. Every call reads the tree as last loaded (a load
/// that completes meanwhile shows from the next call on). Siblings come folders first, then by name (case folded),
/// then by path. Reads run on the database's own reader threads, never on the concurrency pool.
public struct Hierarchy: Sendable {
    /// The name it was loaded under.
    public let name: String
    let database: DatabasePool

    /// What the hierarchy is and when it was loaded.
    public func summary() async throws -> HierarchySummary {
        guard let summary = try await database.read({ [name] db in try Schema.summary(name, db) }) else {
            throw CacheError(.unknownHierarchy, "the hierarchy '\(name)' was removed")
        }
        return summary
    }

    /// The root node. Throws `CacheError` (`.unknownHierarchy`) when the hierarchy was removed.
    public func root() async throws -> HierarchyNode {
        try await read { db, generation in
            try Self.one(db, "generation = ? AND parent_id IS NULL", [generation], what: "the root")
        }
    }

    /// The node with this id (the first by path when a document is filed in several folders). Throws `CacheError`
    /// (`.unknownNode`) when there is none.
    public func node(id: String) async throws -> HierarchyNode {
        try await read { db, generation in
            try Self.one(db, "generation = ? AND id = ?", [generation, id], what: "a node with id \(id)")
        }
    }

    /// The node at this full path (`/ws/Reports/q3.pdf`). Throws `CacheError` (`.unknownNode`) when there is none.
    public func node(path: String) async throws -> HierarchyNode {
        try await read { db, generation in
            try Self.one(db, "generation = ? AND path = ?", [generation, path], what: "a node at \(path)")
        }
    }

    /// The root's children: folders first, then documents.
    public func childrenOfRoot() async throws -> [HierarchyNode] { try await children(of: try await root().id) }

    /// A folder's children: folders first, then documents.
    public func children(of id: String) async throws -> [HierarchyNode] {
        try await read { db, generation in
            try Self.children(db, generation: generation, parent: id, documentsOnly: false)
        }
    }

    /// The children of the folder at this full path. Throws `CacheError` (`.unknownNode`) when there is no node
    /// there.
    public func children(ofPath path: String) async throws -> [HierarchyNode] {
        try await children(of: try await node(path: path).id)
    }

    /// The documents directly in a folder.
    public func documents(of id: String) async throws -> [HierarchyNode] {
        try await read { db, generation in
            try Self.children(db, generation: generation, parent: id, documentsOnly: true)
        }
    }

    /// The node's siblings and itself, in order.
    public func siblings(of id: String) async throws -> [HierarchyNode] {
        let node = try await node(id: id)
        guard let parent = node.parentID else { return [node] }
        return try await children(of: parent)
    }

    /// Whether any document is anywhere under the node.
    public func hasContent(under id: String) async throws -> Bool {
        try await read { db, generation in
            let node = try Self.one(db, "generation = ? AND id = ?", [generation, id], what: "a node with id \(id)")
            let prefix = node.path.hasSuffix("/") ? node.path : node.path + "/"
            let upper = String(prefix.dropLast()) + "0"  // the first path after every path under the prefix
            return try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM node WHERE generation = ? AND path > ? AND path < ? AND is_folder = 0 LIMIT 1",
                arguments: [generation, prefix, upper]) ?? false
        }
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (Database, Int64) throws -> T) async throws -> T {
        try await database.read { [name] db in
            guard
                let generation = try Int64.fetchOne(
                    db, sql: "SELECT generation FROM hierarchy WHERE name = ?", arguments: [name])
            else { throw CacheError(.unknownHierarchy, "the hierarchy '\(name)' was removed") }
            return try body(db, generation)
        }
    }

    private static func one(
        _ db: Database, _ condition: String, _ arguments: StatementArguments, what: String
    ) throws
        -> HierarchyNode
    {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT \(Schema.nodeColumns) FROM node WHERE \(condition) ORDER BY path LIMIT 1",
                arguments: arguments)
        else { throw CacheError(.unknownNode, "the hierarchy has no \(what)") }
        return Schema.node(row)
    }

    private static func children(
        _ db: Database, generation: Int64, parent: String, documentsOnly: Bool
    ) throws
        -> [HierarchyNode]
    {
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(Schema.nodeColumns) FROM node WHERE generation = ? AND parent_id = ?
                \(documentsOnly ? "AND is_folder = 0" : "") ORDER BY is_folder DESC, sort_key, path
                """)
        return try Row.fetchAll(statement, arguments: [generation, parent]).map(Schema.node)
    }
}
