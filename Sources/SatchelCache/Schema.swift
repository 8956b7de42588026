import Foundation
import GRDB

/// The cache's tables. Nodes are kept per *generation* (one per load); `hierarchy.generation` names the one shown.
enum Schema {
    static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS cache_meta(key TEXT PRIMARY KEY, value BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS generation(
                    id INTEGER PRIMARY KEY AUTOINCREMENT, hierarchy TEXT NOT NULL, started REAL NOT NULL,
                    complete INTEGER NOT NULL, lease TEXT);
                CREATE TABLE IF NOT EXISTS hierarchy(
                    name TEXT PRIMARY KEY, generation INTEGER NOT NULL, source TEXT NOT NULL, root_id TEXT NOT NULL,
                    loaded_at REAL NOT NULL, folders INTEGER NOT NULL, documents INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS node(
                    generation INTEGER NOT NULL, path TEXT NOT NULL, id TEXT NOT NULL, parent_id TEXT,
                    name TEXT NOT NULL, sort_key TEXT NOT NULL, title TEXT, type TEXT NOT NULL,
                    is_folder INTEGER NOT NULL, modified REAL, change_token TEXT, content_key TEXT, digest TEXT,
                    file_name TEXT, mime_type TEXT, length INTEGER,
                    PRIMARY KEY(generation, path)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS node_id ON node(generation, id);
                CREATE INDEX IF NOT EXISTS node_children ON node(generation, parent_id, is_folder DESC, sort_key, path);
                CREATE TABLE IF NOT EXISTS blob(
                    key TEXT PRIMARY KEY, file TEXT NOT NULL, length INTEGER NOT NULL, digest TEXT,
                    used INTEGER NOT NULL, saved REAL NOT NULL);
                CREATE INDEX IF NOT EXISTS blob_used ON blob(used);
                """)
    }

    /// The blob limits kept in the database, replaced by `new` when given.
    static func blobLimits(replacingWith new: BlobCache.Limits?, _ db: Database) throws -> BlobCache.Limits {
        if let new {
            try storeBlobLimits(new, db)
            return new
        }
        let count = try Int64.fetchOne(db, sql: "SELECT value FROM cache_meta WHERE key = 'blob-max-count'")
        let bytes = try Int64.fetchOne(db, sql: "SELECT value FROM cache_meta WHERE key = 'blob-max-bytes'")
        guard count != nil || bytes != nil else { return BlobCache.Limits() }
        // -1: no limit.
        return BlobCache.Limits(
            maximumCount: count.flatMap { $0 < 0 ? nil : Int($0) }, maximumBytes: bytes.flatMap { $0 < 0 ? nil : $0 })
    }

    static func storeBlobLimits(_ limits: BlobCache.Limits, _ db: Database) throws {
        for (key, value) in [
            ("blob-max-count", Int64(limits.maximumCount ?? -1)), ("blob-max-bytes", limits.maximumBytes ?? -1),
        ] {
            try db.execute(
                sql: "INSERT OR REPLACE INTO cache_meta(key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// Rows of loads that never finished and whose process is gone (`isDead` of their lease).
    static func discardUnfinishedLoads(_ db: Database, isDead: (String?) -> Bool) throws {
        for row in try Row.fetchAll(db, sql: "SELECT id, lease FROM generation WHERE complete = 0")
        where isDead(row["lease"]) {
            try discard(generation: row["id"], db)
        }
    }

    static func discard(generation: Int64, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM node WHERE generation = ?", arguments: [generation])
        try db.execute(sql: "DELETE FROM generation WHERE id = ?", arguments: [generation])
    }

    static func insert(_ nodes: [HierarchyNode], generation: Int64, _ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM generation WHERE id = ?", arguments: [generation]) == true
        else { throw CacheError(.superseded, "the load was discarded (the cache was opened again meanwhile)") }
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO node(generation, path, id, parent_id, name, sort_key, title, type, is_folder,
                    modified, change_token, content_key, digest, file_name, mime_type, length)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for node in nodes {
            let modified = node.lastModified?.timeIntervalSince1970
            try statement.execute(arguments: [
                generation, node.path, node.id, node.parentID, node.name, node.name.lowercased(), node.title,
                node.type, node.isFolder, modified, node.changeToken, node.content?.key,
                node.content?.digest?.description, node.content?.fileName, node.content?.mimeType,
                node.content?.length,
            ])
        }
    }

    /// Makes `generation` the hierarchy `name`'s, after checking it is a tree with one root; the previous
    /// generation's rows go in the same transaction.
    static func switchTo(generation: Int64, name: String, source: String, _ db: Database) throws -> HierarchySummary {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM generation WHERE id = ?", arguments: [generation]) == true
        else { throw CacheError(.superseded, "the load was discarded (the cache was opened again meanwhile)") }
        let roots = try String.fetchAll(
            db, sql: "SELECT id FROM node WHERE generation = ? AND parent_id IS NULL LIMIT 2", arguments: [generation])
        guard roots.count == 1, let root = roots.first else {
            throw CacheError(.invalidSource, roots.isEmpty ? "the source gave no root" : "the source gave two roots")
        }
        // Only what hangs from the root is kept: nodes whose parent never came, and folders in a cycle, are not
        // (one pass; UNION ends cycles).
        try db.execute(
            sql: """
                WITH RECURSIVE reach(id) AS (
                    SELECT id FROM node WHERE generation = ?1 AND parent_id IS NULL
                    UNION
                    SELECT node.id FROM node JOIN reach ON node.parent_id = reach.id
                    WHERE node.generation = ?1 AND node.is_folder = 1)
                DELETE FROM node WHERE generation = ?1 AND parent_id IS NOT NULL
                    AND parent_id NOT IN (SELECT id FROM reach)
                """, arguments: [generation])
        let folders =
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM node WHERE generation = ? AND is_folder = 1", arguments: [generation])
            ?? 0
        let documents =
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM node WHERE generation = ? AND is_folder = 0", arguments: [generation])
            ?? 0
        if let previous = try Int64.fetchOne(
            db, sql: "SELECT generation FROM hierarchy WHERE name = ?", arguments: [name])
        {
            try discard(generation: previous, db)
        }
        let now = Date()
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO hierarchy(name, generation, source, root_id, loaded_at, folders, documents)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [name, generation, source, root, now.timeIntervalSince1970, folders, documents])
        try db.execute(sql: "UPDATE generation SET complete = 1 WHERE id = ?", arguments: [generation])
        return HierarchySummary(
            name: name, source: source, rootID: root, loadedAt: now, folders: folders, documents: documents)
    }

    static func summary(_ name: String, _ db: Database) throws -> HierarchySummary? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM hierarchy WHERE name = ?", arguments: [name]
        ).map(summary)
    }

    static func summaries(_ db: Database) throws -> [HierarchySummary] {
        try Row.fetchAll(db, sql: "SELECT * FROM hierarchy ORDER BY name").map(summary)
    }

    private static func summary(_ row: Row) -> HierarchySummary {
        HierarchySummary(
            name: row["name"], source: row["source"], rootID: row["root_id"],
            loadedAt: Date(timeIntervalSince1970: row["loaded_at"]), folders: row["folders"],
            documents: row["documents"])
    }

    static let nodeColumns =
        "path, id, parent_id, name, title, type, is_folder, modified, change_token, content_key, digest, file_name, mime_type, length"

    static func node(_ row: Row) -> HierarchyNode {
        var content: HierarchyNode.Content?
        if let key: String = row["content_key"] {
            var digest: ContentDigest?
            if let text: String = row["digest"], let colon = text.firstIndex(of: ":") {
                digest = ContentDigest(
                    algorithm: String(text[..<colon]), hex: String(text[text.index(after: colon)...]))
            }
            content = HierarchyNode.Content(
                key: key, digest: digest, fileName: row["file_name"], mimeType: row["mime_type"],
                length: row["length"])
        }
        let modified: Double? = row["modified"]
        return HierarchyNode(
            id: row["id"], parentID: row["parent_id"], path: row["path"], name: row["name"], title: row["title"],
            type: row["type"], isFolder: row["is_folder"],
            lastModified: modified.map(Date.init(timeIntervalSince1970:)),
            changeToken: row["change_token"], content: content)
    }
}
