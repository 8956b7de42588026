import Foundation
import GRDB

/// The SQLite schema, as GRDB migrations (each runs once per database file, in order).
///
/// - `repositories`: one row per repository.
/// - `objects`: one row per object, keyed by (repository, id); the fields the engine searches by are columns
///   (base type, type, version series, latest and PWC flags, relationship ends, content hash), times are
///   integer milliseconds, and the property bag, ACL, policy ids and parent ids are compact JSON
///   (``StoredPropertyCodec``).
/// - `filings`: one row per (object, folder) with the object's name; its primary key (repository, folder, name)
///   makes names unique per folder and hands out children in name order straight from the index.
/// - `document_locks`, `document_trash`, `access_grants` (v3): ``ServerStateStore``'s.
/// - `changes`: the change log, keyed by (repository, token); a new entry takes the next token after its
///   repository's largest, so each repository counts its own (v2; v1 drew them from one counter for the whole
///   store, which told every user how busy everyone else was). Every entry keeps `readers`, the principals who
///   could read its object then.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE repositories (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        description TEXT NOT NULL,
                        owner TEXT,
                        root_folder_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE objects (
                        repository TEXT NOT NULL,
                        id TEXT NOT NULL,
                        base_type TEXT NOT NULL,
                        type_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        parents TEXT NOT NULL,
                        properties TEXT NOT NULL,
                        change_token INTEGER NOT NULL,
                        content_hash TEXT,
                        content_length INTEGER,
                        content_mime TEXT,
                        content_filename TEXT,
                        version_series TEXT,
                        is_latest INTEGER NOT NULL,
                        is_pwc INTEGER NOT NULL,
                        source_id TEXT,
                        target_id TEXT,
                        acl TEXT NOT NULL,
                        policies TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        modified_at INTEGER NOT NULL,
                        PRIMARY KEY (repository, id)
                    );
                    CREATE INDEX objects_by_type ON objects (repository, base_type, type_id);
                    CREATE INDEX objects_by_type_id ON objects (repository, type_id);
                    CREATE INDEX objects_by_series ON objects (repository, version_series)
                        WHERE version_series IS NOT NULL;
                    CREATE INDEX objects_by_source ON objects (repository, source_id) WHERE source_id IS NOT NULL;
                    CREATE INDEX objects_by_target ON objects (repository, target_id) WHERE target_id IS NOT NULL;
                    CREATE INDEX objects_by_content ON objects (content_hash) WHERE content_hash IS NOT NULL;
                    CREATE TABLE filings (
                        repository TEXT NOT NULL,
                        folder TEXT NOT NULL,
                        name TEXT NOT NULL,
                        object TEXT NOT NULL,
                        PRIMARY KEY (repository, folder, name)
                    ) WITHOUT ROWID;
                    CREATE INDEX filings_by_object ON filings (repository, object);
                    CREATE TABLE changes (
                        token INTEGER PRIMARY KEY AUTOINCREMENT,
                        repository TEXT NOT NULL,
                        object_id TEXT NOT NULL,
                        change_type TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        type_id TEXT NOT NULL,
                        base_type TEXT NOT NULL
                    );
                    CREATE INDEX changes_by_repository ON changes (repository, token);
                    """)
        }
        migrator.registerMigration("v2: change tokens per repository") { db in
            try db.execute(
                sql: """
                    CREATE TABLE change_log (
                        repository TEXT NOT NULL,
                        token INTEGER NOT NULL,
                        object_id TEXT NOT NULL,
                        change_type TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        type_id TEXT NOT NULL,
                        base_type TEXT NOT NULL,
                        readers TEXT,
                        PRIMARY KEY (repository, token)
                    ) WITHOUT ROWID;
                    INSERT INTO change_log (repository, token, object_id, change_type, time, type_id, base_type)
                        SELECT repository, token, object_id, change_type, time, type_id, base_type FROM changes;
                    DROP TABLE changes;
                    ALTER TABLE change_log RENAME TO changes;
                    """)
        }
        migrator.registerMigration("v3: server state") { db in
            try db.execute(sql: SQLiteSchema.serverStateTables)
        }
        migrator.registerMigration("v4: offline tier") { db in
            try db.execute(sql: SQLiteSchema.offlineTierTables)
        }
        migrator.registerMigration("v5: offline upload ledger") { db in
            try db.execute(sql: SQLiteSchema.offlineLedgerTable)
        }
        migrator.registerMigration("v6: offline sync points") { db in
            try db.execute(sql: SQLiteSchema.offlineSyncPointsTable)
        }
        migrator.registerMigration("v7: upload batches") { db in
            try db.execute(sql: SQLiteSchema.uploadBatchTables)
        }
        migrator.registerMigration("v8: sessions") { db in
            try db.execute(sql: SQLiteSchema.sessionTables)
        }
        return migrator
    }

    /// ``OfflineTierStore``'s tables (v4): a row per defining query and scope, and its rows, each with the version
    /// at which it last changed (removed rows keep their key and the version of their removal, until forgotten).
    static let offlineTierTables = """
        CREATE TABLE offline_queries (
            endpoint TEXT NOT NULL,
            query TEXT NOT NULL,
            scope TEXT NOT NULL,
            version INTEGER NOT NULL,
            oldest_version INTEGER NOT NULL,
            refreshed_at INTEGER NOT NULL,
            backend_delta_link TEXT,
            row_count INTEGER NOT NULL,
            byte_count INTEGER NOT NULL,
            PRIMARY KEY (endpoint, query, scope)
        ) WITHOUT ROWID;
        CREATE TABLE offline_rows (
            endpoint TEXT NOT NULL,
            query TEXT NOT NULL,
            scope TEXT NOT NULL,
            key TEXT NOT NULL,
            hash BLOB NOT NULL,
            body BLOB,
            version INTEGER NOT NULL,
            removed_at INTEGER,
            PRIMARY KEY (endpoint, query, scope, key)
        );
        CREATE INDEX offline_rows_by_version ON offline_rows (endpoint, query, scope, version, key);
        """

    /// The version of each defining query each client last received (v6), for the operator's view.
    static let offlineSyncPointsTable = """
        CREATE TABLE offline_sync_points (
            endpoint TEXT NOT NULL,
            query TEXT NOT NULL,
            scope TEXT NOT NULL,
            client TEXT NOT NULL,
            version INTEGER NOT NULL,
            seen_at INTEGER NOT NULL,
            PRIMARY KEY (endpoint, query, scope, client)
        ) WITHOUT ROWID;
        """

    /// ``OfflineUploadLedger``'s table (v5): one row per uploaded request, keyed by endpoint, user and
    /// repeatability id; the answer's headers as JSON.
    static let offlineLedgerTable = """
        CREATE TABLE offline_ledger (
            endpoint TEXT NOT NULL,
            user TEXT NOT NULL,
            request_id TEXT NOT NULL,
            method TEXT NOT NULL,
            target TEXT NOT NULL,
            body_hash BLOB NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            status INTEGER,
            headers TEXT,
            body BLOB,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (endpoint, user, request_id)
        ) WITHOUT ROWID;
        CREATE INDEX offline_ledger_by_time ON offline_ledger (endpoint, updated_at);
        """

    /// ``ServerStateStore``'s tables (v3): the Nuxeo API's locks and trash marks, keyed by (repository, key), and
    /// access tokens' grants, keyed by the token's SHA-256.
    static let serverStateTables = """
        CREATE TABLE document_locks (
            repository TEXT NOT NULL,
            object TEXT NOT NULL,
            owner TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (repository, object)
        ) WITHOUT ROWID;
        CREATE TABLE document_trash (
            repository TEXT NOT NULL,
            object TEXT NOT NULL,
            parent TEXT,
            owner TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (repository, object)
        ) WITHOUT ROWID;
        CREATE INDEX document_trash_by_parent ON document_trash (repository, parent);
        CREATE TABLE access_grants (
            digest TEXT PRIMARY KEY NOT NULL,
            user_name TEXT NOT NULL,
            application TEXT NOT NULL,
            device TEXT NOT NULL,
            description TEXT,
            permission TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            UNIQUE (user_name, application, device)
        );
        """

    /// ``UploadBatchStore``'s tables (v7): batches, their files and the files' chunks. A chunk's hash counts as a
    /// reference to its blob, as an object's content hash does.
    static let uploadBatchTables = """
        CREATE TABLE upload_batches (
            id TEXT PRIMARY KEY NOT NULL,
            owner TEXT NOT NULL,
            touched_at INTEGER NOT NULL
        );
        CREATE INDEX upload_batches_by_owner ON upload_batches (owner);
        CREATE INDEX upload_batches_by_touch ON upload_batches (touched_at);
        CREATE TABLE upload_files (
            batch TEXT NOT NULL,
            file INTEGER NOT NULL,
            name TEXT NOT NULL,
            mime_type TEXT NOT NULL,
            size INTEGER,
            chunk_count INTEGER NOT NULL,
            chunked INTEGER NOT NULL,
            claimed_at INTEGER,
            PRIMARY KEY (batch, file)
        ) WITHOUT ROWID;
        CREATE TABLE upload_chunks (
            batch TEXT NOT NULL,
            file INTEGER NOT NULL,
            chunk INTEGER NOT NULL,
            hash TEXT NOT NULL,
            length INTEGER NOT NULL,
            PRIMARY KEY (batch, file, chunk)
        ) WITHOUT ROWID;
        CREATE INDEX upload_chunks_by_hash ON upload_chunks (hash);
        """

    /// ``SessionStore``'s tables (v8): named secrets, cookie sessions by the SHA-256 of their id, failed-login counts.
    static let sessionTables = """
        CREATE TABLE server_secrets (
            name TEXT PRIMARY KEY NOT NULL,
            value BLOB NOT NULL
        );
        CREATE TABLE sessions (
            digest TEXT PRIMARY KEY NOT NULL,
            user_name TEXT NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX sessions_by_expiry ON sessions (expires_at);
        CREATE TABLE login_failures (
            key TEXT PRIMARY KEY NOT NULL,
            failures INTEGER NOT NULL,
            last_failure INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX login_failures_by_time ON login_failures (last_failure);
        """

    /// The object columns, in the order ``SQLiteMetadataStore`` reads them.
    static let objectColumns = """
        repository, id, base_type, type_id, name, parents, properties, change_token, content_hash, content_length, \
        content_mime, content_filename, version_series, is_latest, is_pwc, source_id, target_id, acl, policies, \
        created_at, modified_at
        """

    /// ``objectColumns`` of the table aliased `o`.
    static let prefixedObjectColumns = objectColumns.split(separator: ",").map {
        "o." + $0.trimmingCharacters(in: .whitespaces)
    }.joined(separator: ", ")
}
