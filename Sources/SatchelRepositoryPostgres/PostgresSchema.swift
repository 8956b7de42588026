/// The PostgreSQL schema: the SQLite store's tables, with PostgreSQL types (version 3 adds ``ServerStateStore``'s,
/// version 6 its upload batches, version 7 its sessions).
///
/// Text that is sorted or compared (ids, names, type ids) is `COLLATE "C"`, so the order is by code point
/// whatever the database's locale, the same as SQLite and the memory store. Change tokens count per repository
/// (version 2, keyed by (repository, token); version 1 drew them from one `bigserial` for the whole store): a writer
/// takes its repository's advisory lock, then the next token after the repository's largest.
enum PostgresSchema {
    /// Schema versions, each applied once, in order, under an advisory lock.
    static let migrations: [(version: Int, sql: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE repositories (
                    id text COLLATE "C" PRIMARY KEY,
                    name text NOT NULL,
                    description text NOT NULL,
                    owner text,
                    root_folder_id text NOT NULL,
                    created_at bigint NOT NULL
                )
                """,
                """
                CREATE TABLE objects (
                    repository text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    base_type text COLLATE "C" NOT NULL,
                    type_id text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    parents text NOT NULL,
                    properties text NOT NULL,
                    change_token bigint NOT NULL,
                    content_hash text,
                    content_length bigint,
                    content_mime text,
                    content_filename text,
                    version_series text COLLATE "C",
                    is_latest boolean NOT NULL,
                    is_pwc boolean NOT NULL,
                    source_id text COLLATE "C",
                    target_id text COLLATE "C",
                    acl text NOT NULL,
                    policies text NOT NULL,
                    created_at bigint NOT NULL,
                    modified_at bigint NOT NULL,
                    PRIMARY KEY (repository, id)
                )
                """,
                "CREATE INDEX objects_by_type ON objects (repository, base_type, type_id)",
                "CREATE INDEX objects_by_type_id ON objects (repository, type_id)",
                """
                CREATE INDEX objects_by_series ON objects (repository, version_series)
                    WHERE version_series IS NOT NULL
                """,
                "CREATE INDEX objects_by_source ON objects (repository, source_id) WHERE source_id IS NOT NULL",
                "CREATE INDEX objects_by_target ON objects (repository, target_id) WHERE target_id IS NOT NULL",
                "CREATE INDEX objects_by_content ON objects (content_hash) WHERE content_hash IS NOT NULL",
                """
                CREATE TABLE filings (
                    repository text COLLATE "C" NOT NULL,
                    folder text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    object text COLLATE "C" NOT NULL,
                    PRIMARY KEY (repository, folder, name)
                )
                """,
                "CREATE INDEX filings_by_object ON filings (repository, object)",
                """
                CREATE TABLE changes (
                    token bigserial PRIMARY KEY,
                    repository text COLLATE "C" NOT NULL,
                    object_id text NOT NULL,
                    change_type text NOT NULL,
                    time bigint NOT NULL,
                    type_id text NOT NULL,
                    base_type text NOT NULL
                )
                """,
                "CREATE INDEX changes_by_repository ON changes (repository, token)",
            ]
        ),
        (
            2,
            [
                """
                CREATE TABLE change_log (
                    repository text COLLATE "C" NOT NULL,
                    token bigint NOT NULL,
                    object_id text NOT NULL,
                    change_type text NOT NULL,
                    time bigint NOT NULL,
                    type_id text NOT NULL,
                    base_type text NOT NULL,
                    readers text,
                    PRIMARY KEY (repository, token)
                )
                """,
                """
                INSERT INTO change_log (repository, token, object_id, change_type, time, type_id, base_type)
                    SELECT repository, token, object_id, change_type, time, type_id, base_type FROM changes
                """,
                "DROP TABLE changes",
                "ALTER TABLE change_log RENAME TO changes",
            ]
        ),
        (
            3,
            [
                """
                CREATE TABLE document_locks (
                    repository text COLLATE "C" NOT NULL,
                    object text COLLATE "C" NOT NULL,
                    owner text NOT NULL,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (repository, object)
                )
                """,
                """
                CREATE TABLE document_trash (
                    repository text COLLATE "C" NOT NULL,
                    object text COLLATE "C" NOT NULL,
                    parent text COLLATE "C",
                    owner text NOT NULL,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (repository, object)
                )
                """,
                "CREATE INDEX document_trash_by_parent ON document_trash (repository, parent)",
                """
                CREATE TABLE access_grants (
                    digest text COLLATE "C" PRIMARY KEY,
                    user_name text COLLATE "C" NOT NULL,
                    application text NOT NULL,
                    device text NOT NULL,
                    description text,
                    permission text NOT NULL,
                    created_at bigint NOT NULL,
                    UNIQUE (user_name, application, device)
                )
                """,
            ]
        ),
        (
            4,
            [
                // The offline middle tier's row state (OfflineTierStore) and upload ledger (OfflineUploadLedger).
                // Keys compare byte by byte ("C"), as SQLite's do: pages continue after a key the same way.
                """
                CREATE TABLE offline_queries (
                    endpoint text COLLATE "C" NOT NULL,
                    query text COLLATE "C" NOT NULL,
                    scope text COLLATE "C" NOT NULL,
                    version bigint NOT NULL,
                    oldest_version bigint NOT NULL,
                    refreshed_at bigint NOT NULL,
                    backend_delta_link text,
                    row_count bigint NOT NULL,
                    byte_count bigint NOT NULL,
                    PRIMARY KEY (endpoint, query, scope)
                )
                """,
                """
                CREATE TABLE offline_rows (
                    endpoint text COLLATE "C" NOT NULL,
                    query text COLLATE "C" NOT NULL,
                    scope text COLLATE "C" NOT NULL,
                    key text COLLATE "C" NOT NULL,
                    hash bytea NOT NULL,
                    body bytea,
                    version bigint NOT NULL,
                    removed_at bigint,
                    PRIMARY KEY (endpoint, query, scope, key)
                )
                """,
                "CREATE INDEX offline_rows_by_version ON offline_rows (endpoint, query, scope, version, key)",
                """
                CREATE TABLE offline_ledger (
                    endpoint text COLLATE "C" NOT NULL,
                    user_name text COLLATE "C" NOT NULL,
                    request_id text COLLATE "C" NOT NULL,
                    method text NOT NULL,
                    target text NOT NULL,
                    body_hash bytea NOT NULL,
                    state text NOT NULL,
                    attempts integer NOT NULL,
                    status integer,
                    headers text,
                    body bytea,
                    updated_at bigint NOT NULL,
                    PRIMARY KEY (endpoint, user_name, request_id)
                )
                """,
            ]
        ),
        (
            5,
            [
                // The version of each defining query each client last received, for the operator's view.
                """
                CREATE TABLE offline_sync_points (
                    endpoint text COLLATE "C" NOT NULL,
                    query text COLLATE "C" NOT NULL,
                    scope text COLLATE "C" NOT NULL,
                    client text COLLATE "C" NOT NULL,
                    version bigint NOT NULL,
                    seen_at bigint NOT NULL,
                    PRIMARY KEY (endpoint, query, scope, client)
                )
                """
            ]
        ),
        (
            6,
            [
                // Upload batches (UploadBatchStore): a chunk's hash counts as a reference to its blob.
                """
                CREATE TABLE upload_batches (
                    id text COLLATE "C" PRIMARY KEY,
                    owner text COLLATE "C" NOT NULL,
                    touched_at bigint NOT NULL
                )
                """,
                "CREATE INDEX upload_batches_by_owner ON upload_batches (owner)",
                "CREATE INDEX upload_batches_by_touch ON upload_batches (touched_at)",
                """
                CREATE TABLE upload_files (
                    batch text COLLATE "C" NOT NULL,
                    file integer NOT NULL,
                    name text NOT NULL,
                    mime_type text NOT NULL,
                    size bigint,
                    chunk_count integer NOT NULL,
                    chunked boolean NOT NULL,
                    claimed_at bigint,
                    PRIMARY KEY (batch, file)
                )
                """,
                """
                CREATE TABLE upload_chunks (
                    batch text COLLATE "C" NOT NULL,
                    file integer NOT NULL,
                    chunk integer NOT NULL,
                    hash text COLLATE "C" NOT NULL,
                    length bigint NOT NULL,
                    PRIMARY KEY (batch, file, chunk)
                )
                """,
                "CREATE INDEX upload_chunks_by_hash ON upload_chunks (hash)",
            ]
        ),
        (
            7,
            [
                // SessionStore: named secrets, cookie sessions by the SHA-256 of their id, failed-login counts.
                "CREATE TABLE server_secrets (name text COLLATE \"C\" PRIMARY KEY, value bytea NOT NULL)",
                """
                CREATE TABLE sessions (
                    digest text COLLATE "C" PRIMARY KEY,
                    user_name text NOT NULL,
                    expires_at bigint NOT NULL
                )
                """,
                "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
                """
                CREATE TABLE login_failures (
                    key text COLLATE "C" PRIMARY KEY,
                    failures integer NOT NULL,
                    last_failure bigint NOT NULL
                )
                """,
                "CREATE INDEX login_failures_by_time ON login_failures (last_failure)",
            ]
        ),
    ]

    static let objectColumns = """
        repository, id, base_type, type_id, name, parents, properties, change_token, content_hash, content_length, \
        content_mime, content_filename, version_series, is_latest, is_pwc, source_id, target_id, acl, policies, \
        created_at, modified_at
        """

    /// How many columns ``objectColumns`` names.
    static let objectColumnCount = objectColumns.split(separator: ",").count

    static let prefixedObjectColumns = objectColumns.split(separator: ",").map {
        "o." + String($0.drop(while: { $0 == " " }))
    }.joined(separator: ", ")

    /// The advisory lock key (arbitrary, fixed) that migrations run under.
    static let migrationLock: Int64 = 0x5341_5443_4845_4C01
    /// The class of the per-repository advisory locks change-log writers hold (the key is the repository's hash).
    static let changeLogLockClass: Int32 = 0x5341_5443
    /// The class of the per-user advisory locks that issuing an access grant holds (the key is the user's hash).
    static let grantLockClass: Int32 = 0x5341_5447
    /// The class of the per-query advisory locks a refresh of the offline middle tier's row state holds (the key is
    /// the hash of the endpoint, query and scope).
    static let offlineRefreshLockClass: Int32 = 0x5341_544F
    /// The class of the per-user advisory locks that opening an upload batch holds (the key is the user's hash).
    static let uploadLockClass: Int32 = 0x5341_5455
    /// The class of the per-key advisory locks that counting a login attempt holds (the key is the counter's hash).
    static let loginLockClass: Int32 = 0x5341_544C
}
