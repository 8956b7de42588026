public import Foundation
import GRDB
import SatchelHTTP
import SatchelOData
import SatchelStore

/// A media entity's content as the store holds it.
public struct OfflineMedia: Sendable, Hashable {
    /// The content's bytes.
    public var data: Data
    /// The content's media type, as downloaded or as written offline; nil when the service sent none.
    public var contentType: String?
    /// The server's media ETag for this content (none for content changed offline and not uploaded yet).
    public var etag: String?
}

/// Media streams in the store (docs/offline.md, "Media"): a defining query with `retrievesStreams` downloads the
/// content of its media entities into `s_media` (again only when the media ETag changed); local changes of content
/// are queued as requests of their own, sent alone (never in a `$batch`): `PUTMEDIA` (`PUT …/$value`) and
/// `POSTMEDIA` (a media entity created from its content).
enum OfflineMediaTable {
    static func create(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS s_media (
                    entity_set TEXT NOT NULL, entity_id INTEGER NOT NULL, content_type TEXT, media_etag TEXT,
                    local INTEGER NOT NULL DEFAULT 0, content BLOB NOT NULL, PRIMARY KEY (entity_set, entity_id))
                """)
    }

    static func write(
        _ entity: OfflineEntityRef, data: Data, contentType: String?, etag: String?, local: Bool, db: Database
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO s_media (entity_set, entity_id, content_type, media_etag, local, content)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (entity_set, entity_id) DO UPDATE SET content_type = excluded.content_type,
                    media_etag = excluded.media_etag, local = excluded.local, content = excluded.content
                """, arguments: [entity.entitySet, entity.entityID, contentType, etag, local, data])
    }

    static func forget(_ entity: OfflineEntityRef, db: Database) throws {
        try db.execute(
            sql: "DELETE FROM s_media WHERE entity_set = ? AND entity_id = ?",
            arguments: [entity.entitySet, entity.entityID])
    }

    /// Removes the content of rows of `table` that are gone.
    static func forgetVanished(in table: OfflineTable, db: Database) throws {
        try db.execute(
            sql: "DELETE FROM s_media WHERE entity_set = ? AND entity_id NOT IN (SELECT _id FROM \(table.sql))",
            arguments: [table.entitySet])
    }

    /// Whether a queued request sends content rather than properties.
    static func isMedia(method: String) -> Bool { method == "PUTMEDIA" || method == "POSTMEDIA" }
}
